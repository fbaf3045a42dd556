/**
 * CPU of the HTTP/1.1 transport alone: one thread, no Worker, no records, no metrics. It sends
 * chat requests with `--concurrency` slots to the mock server (started in its own process) and
 * prints the CPU this process spent per request, for comparison with bench/baseline_reader.ts on
 * the same mock.
 *
 *   deno run -A bench/transport_cpu.ts [--requests 50000] [--concurrency 64] [--tokens 16]
 *     [--ttft-ms 0] [--itl-ms 0] [--endpoint chat|completions|messages|responses]
 *
 * Prints one JSON line: {"requests","events","errors","seconds","cpuUsPerRequest"}.
 */

import process from "node:process";
import { parseArgs } from "node:util";
import { createHttp1Transport } from "../src/answer/client.ts";
import { recycleResult } from "../src/answer/result.ts";
import { chatEndpoint } from "../src/endpoints/chat.ts";
import { completionsEndpoint } from "../src/endpoints/completions.ts";
import { messagesEndpoint } from "../src/endpoints/messages.ts";
import { responsesEndpoint } from "../src/endpoints/responses.ts";
import type { Endpoint } from "../src/endpoints/types.ts";
import { startMockProcess } from "./mock_process.ts";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "50000" },
    concurrency: { type: "string", default: "64" },
    tokens: { type: "string", default: "16" },
    "ttft-ms": { type: "string", default: "0" },
    "itl-ms": { type: "string", default: "0" },
    endpoint: { type: "string", default: "chat" },
  },
});
const total = Number(values.requests);
const concurrency = Number(values.concurrency);

const endpoints = {
  chat: chatEndpoint,
  completions: completionsEndpoint,
  messages: messagesEndpoint,
  responses: responsesEndpoint,
};
const chosen = Object.hasOwn(endpoints, values.endpoint!)
  ? endpoints[values.endpoint as keyof typeof endpoints]
  : undefined;
if (chosen === undefined) {
  console.error(
    `--endpoint: expected chat, completions, messages or responses, got ${values.endpoint}`,
  );
  Deno.exit(2);
}
const endpoint: Endpoint = chosen;

const mock = await startMockProcess([
  "--ttft-ms",
  values["ttft-ms"]!,
  "--itl-ms",
  values["itl-ms"]!,
]);
const url = `${mock.url}${endpoint.path}`;
const tokens = Number(values.tokens);
const prompt = "Tell me a story.";
const body = new TextEncoder().encode(JSON.stringify(
  endpoint === responsesEndpoint
    ? { model: "mock", input: prompt, max_output_tokens: tokens, stream: true }
    : {
      model: "mock",
      ...(endpoint === completionsEndpoint
        ? { prompt }
        : { messages: [{ role: "user", content: prompt }] }),
      max_tokens: tokens,
      stream: true,
      stream_options: { include_usage: true },
    },
));
const transport = createHttp1Transport({ connections: concurrency });

let issued = 0;
let events = 0;
let errors = 0;
async function slot(): Promise<void> {
  while (issued < total) {
    issued++;
    const r = await transport.send({
      url,
      headers: { "content-type": "application/json", "x-request-id": crypto.randomUUID() },
      body,
      streaming: true,
      endpoint,
      timeoutMs: 60_000,
    });
    if (r.error) errors++;
    events += r.responsePerf.length;
    recycleResult(r);
  }
}

try {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, slot));
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({
    requests: total,
    events,
    errors,
    seconds: (performance.now() - t0) / 1000,
    cpuUsPerRequest: (cpu.user + cpu.system) / total,
  }));
} finally {
  transport.close();
  await mock.stop();
}
