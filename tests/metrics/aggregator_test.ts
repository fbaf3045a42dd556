import assert from "node:assert/strict";
import { LIST_CAP, MetricsAggregator } from "../../src/metrics/aggregator.ts";
import { Column } from "../../src/metrics/column.ts";
import { computeRecordMetrics } from "../../src/metrics/record_metrics.ts";
import type { MetricResult, Summary } from "../../src/metrics/summary.ts";
import type { RequestRecord } from "../../src/record/record.ts";
import { record, wordTokenizer } from "./_records.ts";
import { percentileLinear } from "../../src/metrics/stats.ts";
import { samplingWarnings } from "../../src/metrics/warnings.ts";

const MS = 1_000_000;
const S = 1_700_000_000_000_000_123n;
const ctx = { inputTokens: 10, tokenizer: wordTokenizer, streaming: true };

function close(actual: number | undefined, expected: number, tol = 1e-9) {
  assert.equal(typeof actual, "number", `expected a number near ${expected}`);
  assert.ok(
    Math.abs(actual! - expected) <= tol * Math.max(1, Math.abs(expected)),
    `${actual} != ${expected}`,
  );
}

function get(s: Summary, tag: string): MetricResult {
  const m = s.metrics.find((x) => x.tag === tag);
  assert.ok(m, `missing ${tag}`);
  return m;
}

function stream(
  startOffsetMs: number,
  responsesMs: number[],
  text: string,
  endMs: number,
): RequestRecord {
  return record({
    startNs: S + BigInt(startOffsetMs * MS),
    responseNs: responsesMs.map((t) => t * MS),
    responseReasoning: responsesMs.map(() => false),
    outputText: text,
    endNs: endMs * MS,
  });
}

/** Three streamed requests and one failure; the last request ends 110 ms after the first starts. */
function run(): MetricsAggregator {
  const agg = new MetricsAggregator();
  const recs = [
    stream(0, [10, 20, 30], "a b c", 31),
    stream(5, [20, 40], "a b", 45),
    stream(10, [5, 10, 15, 20, 25], "a b c d e", 100),
    record({
      startNs: S + BigInt(20 * MS),
      endNs: 30 * MS,
      error: { code: 500, type: "HTTPError", message: "boom" },
    }),
  ];
  for (const r of recs) agg.add(r, computeRecordMetrics(r, ctx));
  return agg;
}

Deno.test("MetricsAggregator: record metric distributions in display units", () => {
  const s = run().summary();
  const lat = get(s, "request_latency");
  assert.equal(lat.unit, "ms");
  assert.equal(lat.kind, "record");
  assert.equal(lat.count, 3);
  close(lat.avg, 31.666666666666668);
  close(lat.sum, 95);
  assert.equal(lat.min, 25);
  assert.equal(lat.max, 40);
  // np.percentile([30, 40, 25], p) and np.std (ddof 0)
  const expected = {
    p1: 25.1,
    p5: 25.5,
    p10: 26,
    p25: 27.5,
    p50: 30,
    p75: 35,
    p90: 38,
    p95: 39,
    p99: 39.8,
  };
  for (const [k, v] of Object.entries(expected)) close(lat[k as keyof typeof expected], v);
  close(lat.std, 6.236095644623236);

  const icl = get(s, "inter_chunk_latency");
  assert.equal(icl.count, 7); // every chunk gap of every request
  close(icl.p90, 14.000000000000004);
  close(icl.std, 5.150787536377128);

  const itl = get(s, "inter_token_latency");
  assert.deepEqual([itl.min, itl.max, itl.count], [5, 20, 3]);
  const osl = get(s, "output_sequence_length");
  assert.deepEqual([osl.unit, osl.sum, osl.avg], ["tokens", 10, 10 / 3]);
  // Failed requests feed only error metrics.
  assert.equal(get(s, "error_isl").count, 1);
  assert.equal(get(s, "input_sequence_length").count, 3);
});

Deno.test("MetricsAggregator: counts, duration and throughputs", () => {
  const agg = run();
  const s = agg.summary();
  const seconds = 0.11;
  assert.deepEqual({ ...get(s, "request_count"), flags: [] }, {
    tag: "request_count",
    header: "Request Count",
    unit: "requests",
    kind: "aggregate",
    flags: [],
    avg: 3,
  });
  assert.equal(get(s, "error_request_count").avg, 1);
  const dur = get(s, "benchmark_duration");
  assert.equal(dur.unit, "sec");
  close(dur.avg, seconds);
  close(get(s, "request_throughput").avg, 3 / seconds);
  assert.equal(get(s, "total_osl").avg, 10);
  assert.equal(get(s, "total_isl").avg, 30);
  assert.equal(get(s, "total_error_isl").avg, 10);
  close(get(s, "output_token_throughput").avg, 10 / seconds);
  close(get(s, "input_token_throughput").avg, 30 / seconds);
  close(get(s, "total_token_throughput").avg, 40 / seconds);
  assert.equal(get(s, "request_throughput").unit, "requests/sec");
  assert.equal(get(s, "min_request_timestamp").unit, "ns");
  assert.deepEqual(agg.timeRange, { startNs: S, endNs: S + BigInt(110 * MS) });
  assert.equal(agg.requestCount, 3);
  assert.equal(agg.errorCount, 1);
  assert.deepEqual(agg.errorSummary(), [
    { error_details: { code: 500, type: "HTTPError", message: "boom" }, count: 1 },
  ]);
  // No reasoning in this run: no reasoning metrics at all.
  assert.equal(s.metrics.find((m) => m.tag.includes("reasoning")), undefined);
});

Deno.test("MetricsAggregator: error-adjusted percentiles count failures as infinite", () => {
  const s = run().summary();
  const adj = get(s, "adj_request_latency");
  // [25, 30, 40, +inf] by nearest rank
  assert.equal(adj.count, 4);
  assert.equal(adj.p1, 25);
  assert.equal(adj.p25, 30);
  assert.equal(adj.p50, 40);
  assert.equal(adj.p75, 40);
  assert.equal(adj.p90, Infinity);
  assert.equal(adj.avg, undefined);
  assert.equal(adj.std, undefined);
  assert.ok(get(s, "adj_time_to_first_token"));
  // The variant follows its source in display order.
  const tags = s.metrics.map((m) => m.tag);
  assert.equal(tags.indexOf("adj_request_latency"), tags.indexOf("request_latency") + 1);
  assert.ok(tags.indexOf("time_to_first_token") < tags.indexOf("request_latency"));
});

Deno.test("MetricsAggregator: no errors, no error metrics; non-streaming has no streaming metrics", () => {
  const agg = new MetricsAggregator();
  const r = record({ responseNs: [40 * MS], responseReasoning: [false], outputText: "a b" });
  agg.add(r, computeRecordMetrics(r, { ...ctx, streaming: false }));
  const tags = agg.summary().metrics.map((m) => m.tag);
  for (
    const t of ["error_request_count", "adj_request_latency", "error_isl", "time_to_first_token"]
  ) {
    assert.ok(!tags.includes(t), `${t} should be absent`);
  }
  assert.ok(tags.includes("request_latency"));
});

Deno.test("MetricsAggregator: snapshot equals summary while values are few", () => {
  const agg = run();
  assert.deepEqual(agg.snapshot(), agg.summary());
  assert.deepEqual(new MetricsAggregator().summary().metrics.map((m) => [m.tag, m.avg]), [
    ["request_count", 0],
    ["completed_request_count", 0],
  ]);
});

Deno.test("Column: exact stats stay exact past the value cap", () => {
  const col = new Column({ cap: 100, liveSize: 50 });
  for (let i = 1; i <= 1000; i++) col.push(i);
  assert.equal(col.count, 1000);
  assert.equal(col.sum, 500500);
  assert.deepEqual([col.min, col.max], [1, 1000]);
  assert.equal(col.exact, false);
  // The kept values are given up for the histogram, which reads back every rank.
  assert.equal(col.sorted().length, 0);
  close(col.mean, 500.5);
  close(Math.sqrt(col.variance), Math.sqrt((1000 * 1000 - 1) / 12)); // std of 1..n
  // The live sample spans the range rather than keeping only the first values.
  const sample = col.sortedSample();
  assert.equal(sample.length, 50);
  assert.deepEqual([sample[0], sample[49]], [1, 1000]);
  assert.ok(Math.abs(sample[25] - 511) < 1, `${sample[25]}`);
});

/**
 * Adds 300 answers of 257 chunks (76,800 gaps) to `agg`, gap k of each `gapOf(x)` ms for the
 * k-th number x of a linear congruential generator seeded with `seed`; returns the gaps in ns.
 */
function addGapAnswers(agg: MetricsAggregator, seed: number, gapOf: (x: number) => number) {
  const gaps: number[] = [];
  let x = seed;
  for (let r = 0; r < 300; r++) {
    const t: number[] = [];
    let at = 20;
    for (let k = 0; k < 257; k++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const gap = gapOf(x);
      if (k > 0) gaps.push(gap * MS);
      at += gap;
      t.push(at);
    }
    const rec = stream(r, t, "a ".repeat(257), t[t.length - 1] + 1);
    agg.add(rec, computeRecordMetrics(rec, ctx));
  }
  return gaps;
}

Deno.test("MetricsAggregator: past the list cap, the summary's percentiles are every value's, within 2^-12", () => {
  // 300 requests of 257 chunks: 76,800 gaps, with a list cap of 1,000.
  const agg = new MetricsAggregator({ listCap: 1000 });
  // Gaps from 1 µs to 100 ms, as a skewed server gives, and some of 0.
  const gaps = addGapAnswers(
    agg,
    11,
    (x) => x % 7 === 0 ? 0 : Math.round(10 ** (-3 + (x % 10_000) / 2500) * MS) / MS,
  );
  const sorted = Float64Array.from(gaps).sort();
  const icl = get(agg.summary(), "inter_chunk_latency");
  assert.equal(icl.count, gaps.length);
  for (const p of [1, 5, 10, 25, 50, 75, 90, 95, 99] as const) {
    const want = percentileLinear(sorted, p) / MS;
    const got = icl[`p${p}`] as number;
    assert.ok(Math.abs(got - want) <= want * 2 ** -12, `p${p}: ${got} for ${want}`);
  }
  close(icl.min as number, sorted[0] / MS);
  close(icl.max as number, sorted[sorted.length - 1] / MS);
  assert.deepEqual(agg.sampledMetrics(), [
    { tag: "inter_chunk_latency", count: gaps.length, cap: 1000 },
  ]);
});

Deno.test("MetricsAggregator: a list metric too long to sort whole gets the same summary", () => {
  // 300 requests of 257 chunks: 76,800 inter-chunk gaps, past the length sorted whole.
  const agg = new MetricsAggregator();
  // Many equal gaps, as a server that sends in bursts gives.
  const gaps = addGapAnswers(agg, 7, (x) => x % 3 === 0 ? 0 : (x % 1000) / 100);
  // Two failures: the adjusted distribution reads its own ranks.
  for (let e = 0; e < 2; e++) {
    const rec = record({ startNs: S, endNs: MS, error: { code: 500, type: "E", message: "x" } });
    agg.add(rec, computeRecordMetrics(rec, ctx));
  }
  const sorted = Float64Array.from(gaps).sort();
  const icl = get(agg.summary(), "inter_chunk_latency");
  for (const p of [1, 5, 10, 25, 50, 75, 90, 95, 99] as const) {
    close(icl[`p${p}`] as number, percentileLinear(sorted, p) / MS);
  }
  close(icl.min as number, sorted[0] / MS);
  close(icl.max as number, sorted[sorted.length - 1] / MS);
});

Deno.test("MetricsAggregator: a list metric keeps LIST_CAP values (or listCap, or a smaller cap), per-request metrics their column's cap", () => {
  // One answer of n + 1 chunks: n gaps, one value of every per-request metric.
  const answer = (n: number) => {
    const times = Array.from({ length: n + 1 }, (_, k) => 10 + k / 1000);
    return stream(0, times, "w", 11 + n / 1000);
  };
  const sampled = (agg: MetricsAggregator, r: RequestRecord) => {
    agg.add(r, computeRecordMetrics(r, ctx));
    return agg.sampledMetrics();
  };
  const big = answer(LIST_CAP + 5);
  assert.deepEqual(sampled(new MetricsAggregator(), big), [
    { tag: "inter_chunk_latency", count: LIST_CAP + 5, cap: LIST_CAP },
  ]);
  assert.deepEqual(sampled(new MetricsAggregator(), answer(LIST_CAP)), []);
  // listCap sets it; a cap (of every column) lower than LIST_CAP lowers it too.
  assert.deepEqual(sampled(new MetricsAggregator({ listCap: 3 }), answer(7)), [
    { tag: "inter_chunk_latency", count: 7, cap: 3 },
  ]);
  assert.deepEqual(sampled(new MetricsAggregator({ cap: 4 }), answer(7)), [
    { tag: "inter_chunk_latency", count: 7, cap: 4 },
  ]);
  // A list cap leaves per-request metrics whole: 5 requests with listCap 3 sample only the gaps.
  const agg = new MetricsAggregator({ listCap: 3 });
  for (let i = 0; i < 4; i++) sampled(agg, answer(2));
  assert.deepEqual(sampled(agg, answer(2)), [{ tag: "inter_chunk_latency", count: 10, cap: 3 }]);
  assert.equal(get(agg.summary(), "request_latency").count, 5);
});

Deno.test("MetricsAggregator.sampledMetrics: the metrics past their column's cap, and the warning for each", () => {
  const agg = new MetricsAggregator({ cap: 20 });
  // 11 chunks a request: 10 inter-chunk gaps each, one value of every per-request metric.
  const times = Array.from({ length: 11 }, (_, k) => 10 + k);
  const text = times.map(() => "w").join(" ");
  const add = () => {
    const r = stream(0, times, text, 30);
    agg.add(r, computeRecordMetrics(r, ctx));
  };
  add();
  add();
  // 20 gaps: all kept.
  assert.deepEqual(agg.sampledMetrics(), []);
  add();
  // 30 gaps, 20 kept; per-request metrics hold 3 values each.
  assert.deepEqual(agg.sampledMetrics(), [{ tag: "inter_chunk_latency", count: 30, cap: 20 }]);
  const [w, ...rest] = samplingWarnings(agg.sampledMetrics());
  assert.deepEqual(rest, []);
  assert.match(w, /^warning: inter_chunk_latency has 30 values, more than the 20 kept/);
  assert.match(w, /percentiles come from a histogram of all of them/);
  assert.deepEqual(
    samplingWarnings([{ tag: "x", count: 12_345_678, cap: 8_388_608 }]),
    [
      "warning: x has 12,345,678 values, more than the 8,388,608 kept exactly; its percentiles " +
      "come from a histogram of all of them, within 0.025% (its count, average, min, max and " +
      "std are exact)",
    ],
  );
  // The warmup's metrics, exported too, are named as such.
  assert.match(
    samplingWarnings(agg.sampledMetrics(), "warmup")[0],
    /^warning: warmup inter_chunk_latency has 30 values, more than the 20 kept/,
  );
  // The summary still counts every value.
  assert.equal(get(agg.summary(), "inter_chunk_latency").count, 30);
});

Deno.test("MetricsAggregator: failed requests do not stretch the benchmark duration", () => {
  // Two successes over 100 ms; a failure starts before them and another ends 1 s after.
  const agg = new MetricsAggregator();
  const recs = [
    record({
      startNs: S - BigInt(50 * MS),
      endNs: 10 * MS,
      error: { code: 502, type: "HTTPError", message: "crash" },
    }),
    stream(0, [10, 20], "a b", 40),
    stream(60, [10, 20], "a b", 40),
    record({
      startNs: S + BigInt(90 * MS),
      endNs: 1000 * MS,
      error: { code: 0, type: "RequestTimeout", message: "timed out" },
    }),
  ];
  for (const r of recs) agg.add(r, computeRecordMetrics(r, ctx));
  const s = agg.summary();
  close(get(s, "benchmark_duration").avg, 0.1);
  close(get(s, "request_throughput").avg, 2 / 0.1);
  close(get(s, "output_token_throughput").avg, 4 / 0.1);
  assert.equal(get(s, "min_request_timestamp").avg, Number(S));
  // The phase's time range still spans every request, failures included.
  assert.deepEqual(agg.timeRange, { startNs: S - BigInt(50 * MS), endNs: S + BigInt(1090 * MS) });
});

Deno.test("MetricsAggregator: no duration and no rates when every request failed", () => {
  const agg = new MetricsAggregator();
  const r = record({ startNs: S, endNs: 5 * MS, error: { code: 500, type: "E", message: "x" } });
  agg.add(r, computeRecordMetrics(r, ctx));
  const s = agg.summary();
  assert.ok(!s.metrics.some((m) => m.tag === "benchmark_duration"));
  assert.ok(!s.metrics.some((m) => m.tag === "request_throughput"));
});
