import assert from "node:assert/strict";
import { MemoryConn, warmAnswers, type WarmUp, warmUp } from "../../src/load/warm.ts";
import { WorkerPool } from "../../src/load/pool.ts";
import { MAX_SAMPLE_EVENTS, type SampleAnswer, sampleAnswer } from "../../src/mock/sample.ts";
import { knownEventsFor } from "../../src/transport/known_events.ts";
import { getEndpoint } from "../../src/endpoints/mod.ts";
import { warmUpLine } from "../../src/cli/run.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

function chatBody(maxTokens: number | undefined, stream = true): Uint8Array {
  return enc.encode(JSON.stringify({
    model: "m",
    messages: [{ role: "user", content: "Tell me a story." }],
    ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
    stream,
    stream_options: { include_usage: true },
  }));
}

/** A warm-up of chat streams sending `body`, answered with `s`. */
function chatWarmUp(body: Uint8Array, s: SampleAnswer): WarmUp {
  return {
    url: "http://127.0.0.1:9/v1/chat/completions",
    endpointType: "chat",
    streaming: true,
    body,
    reads: s.reads,
  };
}

Deno.test("a memory connection answers each request written with its reads, in order", async () => {
  const conn = new MemoryConn([enc.encode("head"), enc.encode("abcdef"), enc.encode("end")]);
  const buf = new Uint8Array(4);
  // A read before any request waits for one.
  const early = conn.read(buf);
  await conn.write(enc.encode("GET / HTTP/1.1\r\n\r\n"));
  assert.equal(await early, 4);
  assert.equal(dec.decode(buf), "head");
  // A read smaller than the next piece takes part of it; the rest comes next.
  assert.equal(await conn.read(buf), 4);
  assert.equal(dec.decode(buf), "abcd");
  const big = new Uint8Array(16);
  assert.equal(await conn.read(big), 2);
  assert.equal(dec.decode(big.subarray(0, 2)), "ef");
  assert.equal(await conn.read(big), 3);
  // The answer is over: the next read waits for the next request, and its answer starts over.
  const next = conn.read(big);
  await conn.write(enc.encode("GET / HTTP/1.1\r\n\r\n"));
  assert.equal(dec.decode(big.subarray(0, await next as number)), "head");
  // Closing ends a waiting read; writing after it fails.
  await conn.read(big);
  await conn.read(big);
  const waiting = conn.read(big);
  conn.close();
  assert.equal(await waiting, null);
  await assert.rejects(conn.write(enc.encode("x")));
});

Deno.test("the mock's sample answer: the head, a read per event, the end", async () => {
  const s = await sampleAnswer("/v1/chat/completions", chatBody(5));
  assert.ok(s !== null);
  const texts = s.reads.map((r) => dec.decode(r));
  assert.match(texts[0], /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(texts[0], /transfer-encoding: chunked\r\n\r\n$/);
  // The head; role and 5 tokens, finish, usage, [DONE], each its own chunk; the end.
  assert.equal(s.reads.length, 9 + 2);
  for (const t of texts.slice(1, -1)) {
    const size = parseInt(t.slice(0, t.indexOf("\r\n")), 16);
    const data = t.slice(t.indexOf("\r\n") + 2, -2);
    assert.equal(enc.encode(data).length, size);
    assert.match(data, /^data: .*\n\n$/);
  }
  assert.equal(texts.at(-2)!.includes("data: [DONE]"), true);
  assert.equal(texts.at(-1), "0\r\n\r\n");
});

Deno.test("a long sample keeps its first events and its last ones", async () => {
  const s = await sampleAnswer("/v1/chat/completions", chatBody(2000));
  assert.ok(s !== null);
  assert.equal(s.reads.length, MAX_SAMPLE_EVENTS + 2);
  const texts = s.reads.map((r) => dec.decode(r));
  assert.match(texts[1], /"role":"assistant"/);
  assert.match(texts.at(-3)!, /"usage":\{"prompt_tokens"/);
  assert.match(texts.at(-2)!, /\[DONE\]/);
});

Deno.test("a whole sample body has its length; a request the mock refuses has no sample", async () => {
  const s = await sampleAnswer("/v1/chat/completions", chatBody(3, false));
  assert.ok(s !== null);
  assert.equal(s.reads.length, 2);
  const head = dec.decode(s.reads[0]);
  assert.equal(Number(/content-length: (\d+)/.exec(head)![1]), s.reads[1].length);
  assert.equal(JSON.parse(dec.decode(s.reads[1])).object, "chat.completion");
  assert.equal(await sampleAnswer("/somewhere/else", chatBody(3)), null);
  assert.equal(await sampleAnswer("/v1/chat/completions", enc.encode("not json")), null);
});

Deno.test("answers to warm up with: enough events in all, within bounds", () => {
  assert.equal(warmAnswers(256), 32);
  assert.equal(warmAnswers(20), 256);
  assert.equal(warmAnswers(4096), 16);
  assert.equal(warmAnswers(0), 256);
});

Deno.test("a warm-up reads every sample answer whole, then forgets the events it learned", async () => {
  const body = chatBody(40);
  const s = (await sampleAnswer("/v1/chat/completions", body))!;
  const keys = getEndpoint("chat").volatileKeys!;
  const before = knownEventsFor(keys);
  const w = await warmUp(chatWarmUp(body, s));
  assert.equal(w.failed, 0);
  assert.equal(w.answers, warmAnswers(s.reads.length - 2));
  // Every answer's 40 tokens were timed (the role chunk, empty, is not).
  assert.equal(w.events, w.answers * 40);
  // The warm-up's readers learned the sample's closing events...
  const finish = s.reads.at(-2)!;
  const done = dec.decode(finish);
  const event = enc.encode(done.slice(done.indexOf("\r\n") + 2, -2));
  assert.notEqual(before.match(event, 0, event.length), null);
  // ...and the readers of the run start from nothing.
  const after = knownEventsFor(keys);
  assert.notEqual(after, before);
  assert.equal(after.match(event, 0, event.length), null);
});

Deno.test("Workers warm up before they are ready, and say what they did", async () => {
  const body = chatBody(8);
  const s = (await sampleAnswer("/v1/chat/completions", body))!;
  const pool = await WorkerPool.start(
    2,
    [{ sessionId: "s", bodies: [dec.decode(body)] }],
    undefined,
    chatWarmUp(body, s),
  );
  try {
    assert.equal(pool.warmed.length, 2);
    for (const w of pool.warmed) {
      assert.ok(w !== undefined);
      assert.equal(w.failed, 0);
      assert.equal(w.events, w.answers * 8);
    }
    assert.match(
      warmUpLine(true, "http1", pool.warmed),
      /^warm-up: 2 of 2 Workers each read 256 sample answers from memory \(2048 timed chunks, 0 failed\) in \d+, \d+ ms\n$/,
    );
  } finally {
    pool.close();
  }
});

Deno.test("the warm-up line says why there was none", () => {
  assert.match(warmUpLine(false, "fetch", []), /only the HTTP\/1\.1 client/);
  assert.match(warmUpLine(false, "http1", []), /does not answer this run's first request/);
  assert.equal(warmUpLine(true, "http1", [undefined, undefined]), "warm-up: could not run\n");
});
