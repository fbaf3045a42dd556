import assert from "node:assert/strict";
import { MetricsAggregator } from "../../src/metrics/aggregator.ts";
import { meetsSlos, parseGoodput } from "../../src/metrics/goodput.ts";
import { computeRecordMetrics, computeRecordValues } from "../../src/metrics/record_metrics.ts";
import { record, wordTokenizer } from "./_records.ts";

const MS = 1_000_000;

Deno.test("parseGoodput: display units become base units; direction follows the metric", () => {
  const slos = parseGoodput("time_to_first_token:200 output_token_throughput_per_user:50");
  assert.deepEqual(slos, [
    { tag: "time_to_first_token", limit: 200 * MS, atLeast: false },
    { tag: "output_token_throughput_per_user", limit: 50, atLeast: true },
  ]);
  assert.equal(parseGoodput("inter_token_latency=20,request_latency:1000").length, 2);
});

Deno.test("parseGoodput: unknown tags and bad values are errors naming what is valid", () => {
  assert.throws(
    () => parseGoodput("ttft:200"),
    /unknown metric "ttft"; valid metrics: .*time_to_first_token/,
  );
  assert.throws(() => parseGoodput("request_throughput:5"), /unknown metric/);
  assert.throws(() => parseGoodput("time_to_first_token:abc"), /non-negative number in ms/);
  assert.throws(() => parseGoodput("time_to_first_token"), /not tag:value/);
  assert.throws(() => parseGoodput("  "), /no objective/);
  assert.throws(() => parseGoodput("request_latency:1 request_latency:2"), /twice/);
});

Deno.test("goodput: only successful requests meeting every SLO are good", () => {
  const slos = parseGoodput("time_to_first_token:100 inter_token_latency:20");
  assert.equal(
    meetsSlos({ time_to_first_token: 50 * MS, inter_token_latency: 10 * MS }, slos),
    true,
  );
  assert.equal(
    meetsSlos({ time_to_first_token: 150 * MS, inter_token_latency: 10 * MS }, slos),
    false,
  );
  // A request without the metric (one token: no ITL) does not meet it.
  assert.equal(meetsSlos({ time_to_first_token: 50 * MS }, slos), false);

  const agg = new MetricsAggregator({ goodput: slos });
  const ctx = { inputTokens: 3, tokenizer: wordTokenizer, streaming: true };
  const mk = (ttftMs: number, gapMs: number) =>
    record({
      responseNs: [ttftMs * MS, (ttftMs + gapMs) * MS, (ttftMs + 2 * gapMs) * MS],
      responseReasoning: [false, false, false],
      outputText: "a b c",
      endNs: (ttftMs + 2 * gapMs) * MS,
    });
  // The same requests by position, as the main thread adds them.
  const byValues = new MetricsAggregator({ goodput: slos });
  for (const r of [mk(50, 10), mk(50, 30), mk(150, 10), mk(20, 5)]) {
    agg.add(r, computeRecordMetrics(r, ctx));
    byValues.addValues(r, computeRecordValues(r, ctx));
  }
  const failed = record({ error: { code: 500, type: "HTTPError", message: "x" } });
  agg.add(failed, computeRecordMetrics(failed, ctx));
  byValues.addValues(failed, computeRecordValues(failed, ctx));
  const s = agg.summary();
  assert.deepEqual(byValues.summary(), s);
  const v = (t: string) => s.metrics.find((m) => m.tag === t)?.avg;
  assert.equal(v("good_request_count"), 2);
  assert.equal(v("good_request_fraction"), 2 / 5);
  const dur = v("benchmark_duration")!;
  assert.ok(Math.abs(v("goodput")! - 2 / dur) < 1e-9);
  assert.equal(v("completed_request_count"), 5);
  assert.equal(v("request_error_rate"), 20);
});

Deno.test("goodput metrics are absent without --goodput", () => {
  const agg = new MetricsAggregator();
  const r = record();
  agg.add(
    r,
    computeRecordMetrics(r, { inputTokens: 1, tokenizer: wordTokenizer, streaming: false }),
  );
  const tags = agg.summary().metrics.map((m) => m.tag);
  for (const t of ["goodput", "good_request_count", "good_request_fraction"]) {
    assert.ok(!tags.includes(t), t);
  }
});
