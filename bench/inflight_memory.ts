/**
 * Memory held per open stream by the HTTP/1.1 transport: `N` streaming requests (default 2,000)
 * are sent to the built-in mock server (its own process, 3 s between tokens), and once each has
 * read its first chunk, a full garbage collection is run and the growth of the heap and of the
 * buffers outside it (`Deno.memoryUsage()`) is divided by `N`.
 *
 *   deno run -A --v8-flags=--expose-gc bench/inflight_memory.ts [N]
 */

import { createHttp1Transport } from "../src/answer/client.ts";
import { getEndpoint } from "../src/endpoints/mod.ts";
import { startMockProcess } from "./mock_process.ts";

const N = Number(Deno.args[0] ?? 2000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  console.error("run with --v8-flags=--expose-gc");
  Deno.exit(2);
}

const mock = await startMockProcess(["--itl-ms", "3000"]);
const url = `${mock.url}/v1/chat/completions`;

const endpoint = getEndpoint("chat", {});
const transport = createHttp1Transport({ connections: N });
const body = JSON.stringify({
  model: "mock",
  messages: [{ role: "user", content: "hi" }],
  max_tokens: 3,
  stream: true,
  stream_options: { include_usage: true },
});
const send = () =>
  transport.send({
    url,
    headers: {
      "content-type": "application/json",
      "X-Request-ID": crypto.randomUUID(),
      "X-Correlation-ID": crypto.randomUUID(),
    },
    body,
    streaming: true,
    endpoint,
    timeoutMs: 600_000,
  });
const measure = () => {
  gc!();
  gc!();
  const m = Deno.memoryUsage();
  return { heap: m.heapUsed, external: m.external };
};

try {
  // Warm up the code paths (and the connection pool's first entries) before the reference point.
  const warm = await Promise.all(Array.from({ length: 4 }, send));
  if (warm.some((r) => r.error)) throw new Error(`warm-up failed: ${warm[0].error?.message}`);
  const before = measure();
  const all = Array.from({ length: N }, send);
  // The first chunk comes at once, the next after 3 s.
  await new Promise((r) => setTimeout(r, 1500));
  const open = measure();
  const results = await Promise.all(all);
  const errors = results.filter((r) => r.error).length;
  console.log(
    `${N} open streams: ${((open.heap - before.heap) / N).toFixed(0)} B of heap and ` +
      `${((open.external - before.external) / N).toFixed(0)} B of buffers each` +
      (errors ? ` (${errors} requests failed)` : ""),
  );
} finally {
  transport.close();
  await mock.stop();
}
