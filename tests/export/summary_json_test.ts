import assert from "node:assert/strict";
import { join } from "node:path";
import {
  AIPERF_COMPAT_VERSION,
  newBenchmarkId,
  type RunInfo,
  SCHEMA_VERSION,
  summaryJson,
  writeSummaryJson,
} from "../../src/export/summary_json.ts";
import { isoUtc } from "../../src/record/clock.ts";
import { streamedRun, T0 } from "./_summary.ts";
import { REFERENCE } from "../_reference.ts";

const REF = join(REFERENCE, "aiperf");

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
  assert.equal(doc.start_time, "2025-11-07T21:38:54.797067");
  assert.equal(doc.end_time, "2025-11-07T21:38:59.920524");
  assert.equal(doc.was_cancelled, false);
  assert.deepEqual(doc.reprise_input_config, RUN.inputConfig);
  assert.equal(doc.input_config.models.items[0].name, "qwen");
  assert.equal(doc.input_config.endpoint.streaming, true);
  assert.deepEqual(doc.run_info, {
    benchmark_id: "b-123",
    sweep_id: null,
    random_seed: 42,
    trial: 0,
    run_label: "run_0001",
    variation_label: "base",
    variation_index: 0,
    variation_values: {},
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
  assert.equal(isoUtc(0n), "1970-01-01T00:00:00.000000");
  assert.equal(isoUtc(1_000_000_001_999n), "1970-01-01T00:16:40.000001");
});

Deno.test("summaryJson: times and benchmark_id are spelled as in AIPerf's exports", async () => {
  const ref = JSON.parse(
    await Deno.readTextFile(`${REF}/smoke_100k_conc/profile_export_aiperf.json`),
  );
  const id = newBenchmarkId();
  const doc = JSON.parse(summaryJson(streamedRun(2).agg.summary(), { ...RUN, benchmarkId: id }));
  const shape = (s: string) => s.replace(/[0-9a-f]/g, "x").replace(/\d/g, "9");
  assert.equal(shape(doc.benchmark_id), shape(ref.benchmark_id));
  assert.equal(shape(doc.start_time), shape(ref.start_time));
  assert.equal(shape(doc.end_time), shape(ref.end_time));
  assert.notEqual(newBenchmarkId(), id);
});

Deno.test("summaryJson: input_config has AIPerf's nested snake_case shape", async () => {
  const ref = JSON.parse(
    await Deno.readTextFile(`${REF}/smoke_100k_conc/profile_export_aiperf.json`),
  ).input_config;
  const doc = JSON.parse(summaryJson(streamedRun(2).agg.summary(), {
    ...RUN,
    inputConfig: {
      model: "qwen",
      url: "http://h:8000",
      endpointType: "chat",
      streaming: true,
      requestTimeoutSeconds: 600,
      header: ["X-Team: a"],
      extraInputs: ["max_tokens:64"],
      isl: 128,
      islStddev: 0,
      osl: 128,
      concurrency: 8,
      requestCount: 100,
      artifactDir: "artifacts",
      tokenizer: "builtin",
      warmupRequestCount: 5,
    },
  })).input_config;
  // Every key of ours is one AIPerf writes, at the same place.
  const within = (ours: Record<string, unknown>, theirs: Record<string, unknown>, at: string) => {
    for (const k of Object.keys(ours)) assert.ok(k in theirs, `${at}.${k} is not AIPerf's`);
  };
  within(doc, ref, "input_config");
  for (const k of ["endpoint", "artifacts", "tokenizer", "runtime", "logging", "models"]) {
    within(doc[k], ref[k], k);
  }
  within(doc.datasets[0], ref.datasets[0], "datasets[0]");
  within(doc.datasets[0].prompts, ref.datasets[0].prompts, "datasets[0].prompts");
  within(doc.phases[1], ref.phases[0], "phases[1]");
  assert.deepEqual(doc.models, { strategy: "round_robin", items: [{ name: "qwen" }] });
  assert.deepEqual(doc.endpoint.urls, ["http://h:8000"]);
  assert.deepEqual(doc.endpoint.headers, { "X-Team": "a" });
  assert.deepEqual(doc.endpoint.extra, { max_tokens: 64 });
  assert.deepEqual(doc.datasets[0].prompts.isl, { mean: 128, stddev: 0 });
  assert.deepEqual(doc.phases.map((p: { name: string }) => p.name), ["warmup", "profiling"]);
  assert.equal(doc.phases[0].exclude_from_results, true);
  assert.equal(doc.phases[1].type, "concurrency");
  assert.equal(doc.phases[1].concurrency, 8);
  assert.equal(doc.phases[1].requests, 100);
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
