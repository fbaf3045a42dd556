import assert from "node:assert/strict";
import {
  MemoryConn,
  PER_REQUEST_WARM_MAX_STREAMS,
  SHORT_ANSWERS,
  shortAnswer,
  warmAnswers,
  warmsPerRequest,
  type WarmUp,
  warmUp,
} from "../../src/load/warm.ts";
import { MAIN_WARM_RECORDS, warmRecords } from "../../src/load/warm_records.ts";
import { Results } from "../../src/export/results.ts";
import { RecordWriter } from "../../src/export/record_writer.ts";
import { computeRecordValues } from "../../src/metrics/record_metrics.ts";
import { builtinTokenizer } from "../../src/tokenizer/tokenizer.ts";
import type { RequestRecord } from "../../src/record/record.ts";
import { WorkerPool } from "../../src/load/pool.ts";
import { MAX_SAMPLE_EVENTS, type SampleAnswer, sampleAnswer } from "../../src/mock/sample.ts";
import { knownEventsFor } from "../../src/answer/known_events.ts";
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
  assert.equal(warmAnswers(256), 128);
  assert.equal(warmAnswers(1024), 32);
  assert.equal(warmAnswers(20), 256);
  assert.equal(warmAnswers(4096), 16);
  assert.equal(warmAnswers(0), 256);
});

Deno.test("a short answer keeps the head, the first two events and the last four, and reads whole", async () => {
  const s = (await sampleAnswer("/v1/chat/completions", chatBody(40)))!;
  const short = shortAnswer(s.reads);
  assert.equal(short.length, 1 + 2 + 4 + 1);
  assert.deepEqual(short.slice(0, 3), s.reads.slice(0, 3));
  assert.deepEqual(short.slice(3), s.reads.slice(-5));
  const texts = short.map((r) => dec.decode(r));
  assert.match(texts[1], /"role":"assistant"/);
  assert.match(texts.at(-2)!, /\[DONE\]/);
  // Short answers stay as they are; so does a whole body.
  assert.equal(shortAnswer(short), short);
  const whole = (await sampleAnswer("/v1/chat/completions", chatBody(3, false)))!;
  assert.equal(shortAnswer(whole.reads), whole.reads);
  // Read through the client, it is a complete answer: the first token and the last are timed.
  const { createHttp1Transport } = await import("../../src/answer/client.ts");
  const transport = createHttp1Transport({
    connections: 1,
    connect: () => Promise.resolve(new MemoryConn(short) as unknown as Deno.Conn),
  });
  try {
    const r = await transport.send({
      url: "http://memory/v1/chat/completions",
      headers: {},
      body: chatBody(40),
      streaming: true,
      endpoint: getEndpoint("chat"),
      timeoutMs: 0,
    });
    assert.equal(r.error, null);
    assert.equal(r.responsePerf.length, 2);
    assert.equal(r.usage?.completionTokens, 40);
  } finally {
    transport.close();
  }
});

Deno.test("a warm-up reads every sample answer whole, then forgets the events it learned", async () => {
  const body = chatBody(40);
  const s = (await sampleAnswer("/v1/chat/completions", body))!;
  const keys = getEndpoint("chat").fast!.volatileKeys!;
  const before = knownEventsFor(keys);
  // With the run's headers and timeout, as `reprise profile` gives them.
  const w = await warmUp({
    ...chatWarmUp(body, s),
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    timeoutMs: 600_000,
    shortAnswers: SHORT_ANSWERS,
  });
  assert.equal(w.failed, 0);
  assert.equal(w.answers, warmAnswers(s.reads.length - 2));
  assert.equal(w.shortAnswers, SHORT_ANSWERS);
  // Every whole answer's 40 tokens were timed (the role chunk, empty, is not).
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
      /^warm-up: 2 of 2 Workers each read 256 sample answers from memory \(2048 timed chunks\), 0 failed, in \d+, \d+ ms\n$/,
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

/** A streamed record's metric values, with `inputTokens` prompt tokens. */
function measure(r: RequestRecord, inputTokens: number) {
  return computeRecordValues(r, {
    inputTokens,
    tokenizer: builtinTokenizer(),
    streaming: true,
    producesTokens: true,
    preferUsage: true,
    requestedOutputTokens: null,
    checkUsage: false,
  });
}

Deno.test("the warm-up line counts short answers when there were some", () => {
  const w = { answers: 32, events: 8192, shortAnswers: 512, failed: 0, ms: 40 };
  assert.equal(
    warmUpLine(true, "http1", [w]),
    "warm-up: 1 of 1 Worker each read 32 sample answers from memory (8192 timed chunks) and 512 " +
      "short ones, 0 failed, in 40 ms\n",
  );
});

Deno.test("per-request code is warmed up to the stream count where memory matters more", () => {
  assert.equal(warmsPerRequest(1), true);
  assert.equal(warmsPerRequest(PER_REQUEST_WARM_MAX_STREAMS), true);
  assert.equal(warmsPerRequest(PER_REQUEST_WARM_MAX_STREAMS + 1), false);
  assert.equal(warmsPerRequest(4096), false);
});

Deno.test("warm-up records come as a Worker's do: unpacked from batches, timed, each its own", () => {
  const records = [...warmRecords(300, 8, 2, "conv")];
  assert.equal(records.length, 300);
  const ids = new Set(records.map((r) => r.requestId));
  assert.equal(ids.size, 300);
  for (const [i, r] of records.entries()) {
    assert.equal(r.phase, "profiling");
    assert.equal(r.conversationIndex, 2);
    assert.equal(r.conversationId, "conv");
    assert.equal(r.sessionNum, i);
    assert.equal(r.error, null);
    // The batch's times, seen through a view, as unpacked records hold them.
    assert.ok(r.responseNs instanceof Float64Array);
    assert.equal(r.responseNs.length, 8);
    for (let k = 1; k < 8; k++) assert.equal(r.responseNs[k] - r.responseNs[k - 1], 5e6);
    assert.ok(r.endNs > r.responseNs[7]);
    assert.equal(r.usage?.completionTokens, 8);
  }
  // Records differ from one another, so that no metric column holds a single value.
  assert.notEqual(records[0].responseNs[0], records[1].responseNs[0]);
  // They measure as real records do: a TTFT of 50 ms and more, an ITL of 5 ms.
  const v = measure(records[1], 5);
  assert.ok(v.some((x) => x === 5e6));
  assert.equal(MAIN_WARM_RECORDS, 512);
});

Deno.test("the main thread's warm-up measures records and writes nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const runDir = `${dir}/never`;
    const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: "Hi" }] });
    Results.warmUp(
      {
        runDir,
        conversations: [{ sessionId: "s", bodies: [body] }],
        streaming: true,
        endpoint: getEndpoint("chat"),
        run: { benchmarkId: "b", cliCommand: "c", randomSeed: 1, inputConfig: {}, version: "v" },
      },
      warmRecords(200, 16, 0, "s"),
    );
    await assert.rejects(Deno.stat(runDir), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a discarding record writer counts its lines and writes them nowhere", () => {
  const w = RecordWriter.discarding({ maxBufferBytes: 256 });
  for (const r of warmRecords(20, 4, 0, "s")) {
    w.writeValues(
      r,
      measure(r, 1),
    );
  }
  assert.equal(w.lines, 20);
  w.close();
  assert.throws(() => w.writeValues([...warmRecords(1, 4, 0, "s")][0], []));
});
