import assert from "node:assert/strict";
import { join } from "node:path";
import {
  AIPERF_COMPAT_VERSION,
  isoUtc,
  type RunInfo,
  SCHEMA_VERSION,
  summaryJson,
  writeSummaryJson,
} from "../../src/export/summary_json.ts";
import { streamedRun, T0 } from "./_summary.ts";

const REF = "/work/shared/reference/aiperf";

const RUN: RunInfo = {
  benchmarkId: "b-123",
  cliCommand: "reprise profile -m qwen --api-key <redacted>",
  randomSeed: 42,
  startNs: T0,
  endNs: T0 + 5_123_456_789n,
  wasCancelled: false,
  inputConfig: { model: "qwen", streaming: true },
  version: "0.1.0",
};

// Reference tags that reprise does not produce (goodput needs SLOs; `prefill_throughput` is
// the old name of `prefill_throughput_per_user`).
const NOT_PRODUCED = new Set([
  "goodput",
  "good_request_count",
  "prefill_throughput",
  "telemetry_data",
]);

Deno.test("summaryJson: same keys and metric blocks as AIPerf's qwen export", async () => {
  const ref = JSON.parse(
    await Deno.readTextFile(`${REF}/qwen_concurrency1/profile_export_aiperf.json`),
  );
  const { agg } = streamedRun();
  const doc = JSON.parse(summaryJson(agg.summary(), RUN, { errorSummary: agg.errorSummary() }));
  for (const [key, refValue] of Object.entries(ref)) {
    if (refValue === null || NOT_PRODUCED.has(key)) continue;
    assert.ok(key in doc, `missing top-level key ${key}`);
    const isBlock = typeof refValue === "object" && refValue !== null && "unit" in refValue;
    if (!isBlock) continue;
    const block = doc[key];
    assert.equal(block.unit, (refValue as { unit: string }).unit, `unit of ${key}`);
    const refKeys = Object.keys(refValue as object).sort();
    const ours = Object.keys(block).filter((k) => k !== "count" && k !== "sum").sort();
    assert.deepEqual(ours, refKeys, `stats keys of ${key}`);
    // count and sum (schema 1.1+) only on record metrics.
    assert.equal("count" in block, "p50" in block, `count of ${key}`);
  }
});

Deno.test("summaryJson: identity, times and run info", () => {
  const { agg } = streamedRun(10, 2);
  const warm = streamedRun(3).agg.summary();
  const text = summaryJson(agg.summary(), RUN, {
    errorSummary: agg.errorSummary(),
    warmupMetrics: warm,
  });
  assert.ok(text.startsWith('{\n  "schema_version": '), "pretty-printed with 2 spaces");
  const doc = JSON.parse(text);
  assert.equal(doc.schema_version, SCHEMA_VERSION);
  assert.equal(doc.aiperf_version, AIPERF_COMPAT_VERSION);
  assert.equal(doc.reprise_version, "0.1.0");
  assert.equal(doc.benchmark_id, "b-123");
  assert.equal(doc.start_time, "2025-11-07T21:38:54.797067Z");
  assert.equal(doc.end_time, "2025-11-07T21:38:59.920524Z");
  assert.equal(doc.was_cancelled, false);
  assert.deepEqual(doc.input_config, RUN.inputConfig);
  assert.deepEqual(doc.run_info, {
    benchmark_id: "b-123",
    random_seed: 42,
    cli_command: RUN.cliCommand,
  });
  assert.deepEqual(doc.error_summary, [
    { error_details: { code: 503, type: "HTTPError", message: "Service Unavailable" }, count: 2 },
  ]);
  assert.equal(doc.error_request_count.avg, 2);
  assert.equal(doc.request_count.avg, 10);
  assert.equal(doc.warmup_metrics.request_count.avg, 3);
  assert.equal(doc.warmup_metrics.request_latency.unit, "ms");
  // An adjusted tail of failures is written as null, never as a non-JSON token.
  assert.equal(doc.adj_request_latency.p99, null);
  assert.ok(!/Infinity|NaN/.test(text));
});

Deno.test("summaryJson: no warmup key without warmup; ISO times", () => {
  const doc = JSON.parse(summaryJson(streamedRun(2).agg.summary(), RUN));
  assert.ok(!("warmup_metrics" in doc));
  assert.deepEqual(doc.error_summary, []);
  assert.equal(isoUtc(0n), "1970-01-01T00:00:00.000000Z");
  assert.equal(isoUtc(1_000_000_001_999n), "1970-01-01T00:16:40.000001Z");
});

Deno.test("writeSummaryJson creates the directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "a", "b", "profile_export_aiperf.json");
    await writeSummaryJson(path, streamedRun(2).agg.summary(), RUN);
    assert.equal(JSON.parse(await Deno.readTextFile(path)).benchmark_id, "b-123");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
