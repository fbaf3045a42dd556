/**
 * The main thread's work per finished request: record metrics, the `profile_export.jsonl` line,
 * the aggregator, and all of them together as `Results.add` does them. Records are what a
 * streaming chat run against the mock server produces: 256 chunk arrivals stamped from
 * `performance.now()` (whole ns offsets, as slots.ts rounds them), a 256-word answer, and the
 * server's usage.
 * Token counting is stubbed out (its own bench is tokenizer_bench.ts).
 *
 *   deno bench --allow-all bench/records_bench.ts
 */

import { join } from "node:path";
import type { Endpoint } from "../src/endpoints/types.ts";
import type { RequestRecord } from "../src/record/record.ts";
import { RecordWriter } from "../src/export/record_writer.ts";
import { MetricsAggregator } from "../src/metrics/aggregator.ts";
import { computeRecordValues, type RecordContext } from "../src/metrics/record_metrics.ts";
import type { Tokenizer } from "../src/tokenizer/tokenizer.ts";
import { Results } from "../src/export/results.ts";
import { mulberry32 } from "../src/util/rng.ts";

const CHUNKS = 256;
/** Distinct records cycled through, so no call sees the same values twice in a row. */
const VARIANTS = 64;

const tokenizer: Tokenizer = { name: "x", count: () => CHUNKS };

const words = Array.from({ length: CHUNKS }, (_, i) => ` word${i % 97}`);
const outputText = words.join("");

function makeRecord(i: number, rand: () => number): RequestRecord {
  // Stamped as a Worker does: performance.now() differences (ms, µs resolution) in whole ns.
  const startPerf = 1000 + i * 13.4567 + Math.round(rand() * 1e3) / 1e3;
  let perf = startPerf + 20 + rand() * 20;
  const responseNs = new Float64Array(CHUNKS);
  for (let c = 0; c < CHUNKS; c++) {
    responseNs[c] = Math.round((Math.round(perf * 1e3) / 1e3 - startPerf) * 1e6);
    perf += 4 + rand() * 8;
  }
  const startNs = 1_762_551_534_797_067_827n + BigInt(i) * 13_456_789n;
  return {
    phase: "profiling",
    workerId: i % 8,
    sessionNum: i,
    conversationIndex: i % 16,
    conversationId: `session-${i % 16}`,
    turnIndex: 0,
    requestId: crypto.randomUUID(),
    correlationId: crypto.randomUUID(),
    intendedStartNs: startNs - 12_345n,
    startNs,
    ackNs: Math.round((Math.round((startPerf + 5 + rand()) * 1e3) / 1e3 - startPerf) * 1e6),
    endNs: responseNs[CHUNKS - 1] + 250_001,
    responseNs,
    responseReasoning: null,
    outputText,
    reasoningText: "",
    usage: { promptTokens: 550, completionTokens: CHUNKS, totalTokens: 550 + CHUNKS },
    httpStatus: 200,
    error: null,
    cancelled: false,
  };
}

const rand = mulberry32(0x12345);
const records = Array.from({ length: VARIANTS }, (_, i) => makeRecord(i, rand));

const ctx: RecordContext = {
  inputTokens: 550,
  tokenizer,
  streaming: true,
  producesTokens: true,
  preferUsage: true,
  requestedOutputTokens: CHUNKS,
  checkUsage: true,
};
// As the main thread passes them: by position (RecordValues), not as objects keyed by tag.
const values = records.map((r) => computeRecordValues(r, ctx));

let n = 0;
const next = () => n++ % VARIANTS;

Deno.bench({
  name: "computeRecordValues",
  group: "per record",
  fn: () => {
    const i = next();
    computeRecordValues(records[i], ctx);
  },
});

// The line as the run writes it: encoded into the writer's buffer, written out when it fills.
const linesDir = await Deno.makeTempDir({ prefix: "reprise_records_bench_lines_" });
const lines = await RecordWriter.open(join(linesDir, "profile_export.jsonl"));
let written = 0;
Deno.bench({
  name: "RecordWriter.writeValues",
  group: "per record",
  fn: async () => {
    const i = next();
    lines.writeValues(records[i], values[i]);
    // Keeps the file small: a new one every 20,000 lines.
    if (++written % 20_000 === 0) {
      lines.flush();
      await Deno.truncate(join(linesDir, "profile_export.jsonl"), 0);
    }
  },
});

// A run's first 10,000 records: every value kept.
let agg = new MetricsAggregator();
let added = 0;
Deno.bench({
  name: "MetricsAggregator.addValues",
  group: "per record",
  fn: () => {
    const i = next();
    if (++added % 10_000 === 0) agg = new MetricsAggregator();
    agg.addValues(records[i], values[i]);
  },
});

// Further on, past 2 Mi inter-chunk gaps: the gaps column counts them in a histogram.
const long = new MetricsAggregator();
for (let i = 0; i < 40_000; i++) long.addValues(records[i % VARIANTS], values[i % VARIANTS]);
Deno.bench({
  name: "MetricsAggregator.addValues, past 40,000 records",
  group: "per record",
  fn: () => {
    const i = next();
    long.addValues(records[i], values[i]);
  },
});

const endpoint: Endpoint = {
  type: "chat",
  path: "/v1/chat/completions",
  supportsStreaming: true,
  metricsTitle: "bench",
  parseResponse: () => {
    throw new Error("not used");
  },
  parseEvent: () => null,
};
const runDir = await Deno.makeTempDir({ prefix: "reprise_records_bench_" });
const body = JSON.stringify({
  model: "m",
  messages: [{ role: "user", content: "hello ".repeat(500) }],
  max_tokens: CHUNKS,
  stream: true,
});
let results: Results | undefined;
let resultsAdded = 0;
let dirs = 0;
/** A new run every so often: keeps the records file and the columns at a realistic size. */
async function freshResults(): Promise<Results> {
  if (results !== undefined) {
    await results.finish({ startNs: 0n, endNs: 1n, wasCancelled: false });
    await Deno.remove(join(runDir, String(dirs)), { recursive: true });
  }
  return await Results.open({
    runDir: join(runDir, String(++dirs)),
    conversations: Array.from({ length: 16 }, (_, i) => ({
      sessionId: `session-${i}`,
      bodies: [body],
    })),
    streaming: true,
    endpoint,
    tokenizer,
    run: {
      benchmarkId: "bench",
      cliCommand: null,
      randomSeed: null,
      inputConfig: {},
      version: "0",
    },
  });
}
Deno.bench({
  name: "Results.add (all of the above, line written to disk)",
  group: "per record",
  async fn(b) {
    if (results === undefined || ++resultsAdded % 20_000 === 0) results = await freshResults();
    const r = results;
    const i = next();
    b.start();
    r.add(records[i]);
    b.end();
  },
});

globalThis.addEventListener("unload", () => {
  try {
    lines.close();
    Deno.removeSync(linesDir, { recursive: true });
    Deno.removeSync(runDir, { recursive: true });
  } catch {
    // Already gone.
  }
});
