/** The slot model: a full batch queues, the queue drains as answers end, `/metrics` follows it. */

import assert from "node:assert/strict";
import { Engine } from "../../src/mock/engine.ts";
import { MockMetrics } from "../../src/mock/metrics.ts";

const PARAMS = {
  slots: 2,
  prefillUsPerToken: 0,
  decodeMs: 2,
  decodeMsPerSeq: 0,
  kvCacheTokens: 100,
};

Deno.test("slot model: answers beyond the slots wait for one, and get their tokens after", async () => {
  const stop = new AbortController();
  const engine = new Engine(PARAMS, stop.signal);
  const firstToken: number[] = [];
  const lastToken: number[] = [];
  let most = 0;
  const metrics = new MockMetrics();
  metrics.engine = engine;
  let text = "";
  const tickets = [0, 1, 2].map((i) =>
    engine.submit(10, 3, (n) => {
      most = Math.max(most, engine.running);
      if (n === 1) firstToken[i] = performance.now();
      if (n === 3) lastToken[i] = performance.now();
      if (i === 1 && n === 1) text = metrics.text("m");
    })
  );
  await Promise.all(tickets.map((t) => t.done));
  // Never more than the slots in the batch; the third answer started once another had ended.
  assert.equal(most, 2);
  assert.ok(firstToken[2] >= Math.min(lastToken[0], lastToken[1]));
  assert.match(text, /vllm:num_requests_running\{model_name="m"\} 2/);
  assert.match(text, /vllm:num_requests_waiting\{model_name="m"\} 1/);
  // Two answers of 10 prompt tokens and their first tokens, of a 100-token cache.
  assert.match(text, /vllm:kv_cache_usage_perc\{model_name="m"\} 0\.2[1-4]/);
  assert.equal(engine.running + engine.waiting, 0);
  stop.abort();
});

Deno.test("slot model: a cancelled answer gives its slot to the queue's head", async () => {
  const stop = new AbortController();
  const engine = new Engine({ ...PARAMS, slots: 1 }, stop.signal);
  const a = engine.submit(0, 1000, () => {});
  let bTokens = 0;
  const b = engine.submit(0, 2, () => bTokens++);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(bTokens, 0);
  a.cancel();
  await b.done;
  assert.equal(bTokens, 2);
  stop.abort();
});

Deno.test("mock server with --slots: /metrics reports the engine's batch, queue and KV cache", async () => {
  const { startMockServer } = await import("../../src/mock/server.ts");
  const server = await startMockServer({
    slots: 1,
    decodeMs: 20,
    decodeMsPerSeq: 0,
    outputTokens: 50,
  });
  const stop = new AbortController();
  try {
    const answers = [0, 1, 2].map(() =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], stream: true }),
        signal: stop.signal,
      })
    );
    // Once the first answer streams, the slot is taken and the other two wait.
    const first = await answers[0];
    const reader = first.body!.getReader();
    await reader.read();
    let text = "";
    for (let i = 0; i < 50 && !/num_requests_waiting\{[^}]*\} 2/.test(text); i++) {
      text = await (await fetch(`${server.url}/metrics`)).text();
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.match(text, /vllm:num_requests_running\{model_name="mock-model"\} 1\n/);
    assert.match(text, /vllm:num_requests_waiting\{model_name="mock-model"\} 2\n/);
    assert.match(text, /vllm:kv_cache_usage_perc\{model_name="mock-model"\} 0\.0\d*[1-9]/);
    await reader.cancel();
    for (const a of answers.slice(1)) await (await a).body?.cancel();
  } finally {
    stop.abort();
    await server.close();
  }
});
