import assert from "node:assert/strict";
import { type StreamScript, timedStream } from "../../src/mock/stream.ts";

const script = (count: number): StreamScript => ({
  head: "H|",
  count,
  event: (k) => `${k}|`,
  tail: "T",
});

async function chunks(body: ReadableStream<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  const dec = new TextDecoder();
  for await (const c of body) out.push(dec.decode(c));
  return out;
}

Deno.test("events already due leave as one chunk", async () => {
  const now = performance.now();
  const out = await chunks(timedStream(script(3), new Float64Array([now, now, now]), false));
  assert.deepEqual(out, ["H|0|1|2|T"]);
});

Deno.test("the head leaves at once; later tokens in their own chunks", async () => {
  const now = performance.now();
  const times = new Float64Array([now + 100, now + 200]);
  const out = await chunks(timedStream(script(2), times, false));
  assert.deepEqual(out, ["H|", "0|", "1|T"]);
});

Deno.test("truncate sends half of the tokens and no tail", async () => {
  const now = performance.now();
  assert.deepEqual(
    (await chunks(timedStream(script(6), new Float64Array(6).fill(now), true))).join(""),
    "H|0|1|2|",
  );
  assert.equal(
    (await chunks(timedStream(script(1), new Float64Array([now]), true))).join(""),
    "H|0|",
  );
  assert.equal((await chunks(timedStream(script(0), new Float64Array(0), true))).join(""), "H|");
  assert.equal((await chunks(timedStream(script(0), new Float64Array(0), false))).join(""), "H|T");
});

Deno.test("cancel and the server signal stop pending timers", async () => {
  const far = performance.now() + 60_000;
  const body = timedStream(script(2), new Float64Array([far, far]), false);
  const reader = body.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), "H|");
  await reader.cancel();

  const ac = new AbortController();
  const reader2 = timedStream(script(2), new Float64Array([far, far]), false, ac.signal)
    .getReader();
  await reader2.read();
  const next = reader2.read();
  ac.abort();
  assert.equal((await next).done, true);
});
