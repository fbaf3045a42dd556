/**
 * TTFT error of reprise's HTTP/1.1 transport and of the baseline reader, side by side against one
 * mock server at the same time. Sequential runs (`bench:load --baseline`) each get a mock of their
 * own, and from one run to the next the mock's own lateness moves the figures by more than a
 * tenth of a millisecond; here both clients share every moment of the mock's load, so what
 * differs between their figures is the clients.
 *
 * This process is the transport's client (one thread, no Worker, no records); the baseline reader
 * (bench/baseline_reader.ts) runs beside it in its own process. Each sends `--requests` streamed
 * chat requests over `--concurrency` slots. Every request carries its own `X-Request-ID`; the
 * mock (`--http direct`) logs when it sent each answer's first token (`--timing-log`), and each
 * client's first-token read is compared with that.
 *
 *   deno run -A bench/ttft_pair.ts [--concurrency 32] [--requests 352] [--tokens 256]
 *     [--ttft-ms 50] [--itl-ms 5] [--repeat 3]
 *
 * Prints, per run and client, the p10/p50/p90/p99 of (first token read − first token sent) in ms.
 */

import { parseArgs } from "node:util";
import { join } from "node:path";
import { createHttp1Transport } from "../src/answer/client.ts";
import { recycleResult } from "../src/answer/result.ts";
import { chatEndpoint } from "../src/endpoints/chat.ts";
import { epochNs } from "../src/record/clock.ts";
import { percentileLinear } from "../src/metrics/stats.ts";
import { startMockProcess } from "./mock_process.ts";

const { values } = parseArgs({
  options: {
    concurrency: { type: "string", default: "32" },
    requests: { type: "string", default: "352" },
    tokens: { type: "string", default: "256" },
    "ttft-ms": { type: "string", default: "50" },
    "itl-ms": { type: "string", default: "5" },
    repeat: { type: "string", default: "3" },
  },
});
const concurrency = Number(values.concurrency);
const total = Number(values.requests);
const repeat = Number(values.repeat);
for (const [name, v] of [["concurrency", concurrency], ["requests", total], ["repeat", repeat]]) {
  if (!Number.isInteger(v) || (v as number) < 1) {
    console.error(`--${name}: expected a positive integer`);
    Deno.exit(2);
  }
}

const dir = await Deno.makeTempDir({ prefix: "reprise_ttft_pair_" });
const bodyText = JSON.stringify({
  model: "mock",
  messages: [{ role: "user", content: "Tell me a story." }],
  max_tokens: Number(values.tokens),
  stream: true,
  stream_options: { include_usage: true },
});
const bodyFile = join(dir, "body.json");
await Deno.writeTextFile(bodyFile, bodyText);
const body = new TextEncoder().encode(bodyText);

/** The transport's client: request id → its first token read (epoch ns). */
async function runTransport(url: string): Promise<Map<string, bigint>> {
  const transport = createHttp1Transport({ connections: concurrency });
  const firsts = new Map<string, bigint>();
  let issued = 0;
  async function slot(): Promise<void> {
    while (issued < total) {
      issued++;
      const id = crypto.randomUUID();
      const r = await transport.send({
        url,
        headers: { "content-type": "application/json", "x-request-id": id },
        body,
        streaming: true,
        endpoint: chatEndpoint,
        timeoutMs: 60_000,
      });
      if (r.error === null && r.responsePerf.length > 0) firsts.set(id, epochNs(r.responsePerf[0]));
      recycleResult(r);
    }
  }
  try {
    await Promise.all(Array.from({ length: concurrency }, slot));
  } finally {
    transport.close();
  }
  return firsts;
}

/** The baseline reader in its own process: request id → its first token read (epoch ns). */
async function runBaseline(url: string, timings: string): Promise<Map<string, bigint>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      join(import.meta.dirname!, "baseline_reader.ts"),
      "--url",
      url,
      "--body-file",
      bodyFile,
      "--concurrency",
      String(concurrency),
      "--requests",
      String(total),
      "--timings",
      timings,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (out.code !== 0) throw new Error(`baseline reader: ${new TextDecoder().decode(out.stderr)}`);
  return readFirsts(timings, "first_token_ns");
}

/** `request_id` → the `field` (epoch ns) of each line of a JSON lines file. */
async function readFirsts(file: string, field: string): Promise<Map<string, bigint>> {
  const m = new Map<string, bigint>();
  const value = new RegExp(`"${field}":(\\d+)`);
  for (const line of (await Deno.readTextFile(file)).split("\n")) {
    if (line === "") continue;
    const id = /"request_id":"([^"]+)"/.exec(line)?.[1];
    const ns = value.exec(line)?.[1];
    if (id !== undefined && ns !== undefined) m.set(id, BigInt(ns));
  }
  return m;
}

function row(client: string, run: number, reads: Map<string, bigint>, sent: Map<string, bigint>) {
  const errs: number[] = [];
  for (const [id, read] of reads) {
    const s = sent.get(id);
    if (s !== undefined) errs.push(Number(read - s) / 1e6);
  }
  const sorted = Float64Array.from(errs).sort();
  const q = (p: number) => sorted.length ? percentileLinear(sorted, p).toFixed(2) : "-";
  console.log(
    `${client.padEnd(9)} run ${run}  n ${String(sorted.length).padStart(5)}  ` +
      `p10 ${q(10)}  p50 ${q(50)}  p90 ${q(90)}  p99 ${q(99)}`,
  );
}

console.log(
  `TTFT error (first token read − mock's send time, ms): ${concurrency} streams per client, ` +
    `${total} requests each, ${values.tokens} tokens, mock ${values["ttft-ms"]}/${
      values["itl-ms"]
    } ms, --http direct`,
);
try {
  for (let run = 1; run <= repeat; run++) {
    const log = join(dir, `timing_${run}.jsonl`);
    const mock = await startMockProcess([
      "--http",
      "direct",
      "--ttft-ms",
      values["ttft-ms"]!,
      "--itl-ms",
      values["itl-ms"]!,
      "--timing-log",
      log,
    ]);
    let reads: [Map<string, bigint>, Map<string, bigint>];
    try {
      const url = `${mock.url}${chatEndpoint.path}`;
      reads = await Promise.all([
        runTransport(url),
        runBaseline(url, join(dir, `baseline_${run}.jsonl`)),
      ]);
    } finally {
      // The mock writes its log out as it stops.
      await mock.stop();
    }
    const sent = await readFirsts(log, "first_token_ns");
    row("transport", run, reads[0], sent);
    row("baseline", run, reads[1], sent);
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
