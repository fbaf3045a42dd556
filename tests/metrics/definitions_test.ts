import assert from "node:assert/strict";
import { metricDef, METRICS, toDisplay } from "../../src/metrics/definitions.ts";
import { MetricsAggregator } from "../../src/metrics/aggregator.ts";
import { computeRecordMetrics } from "../../src/metrics/record_metrics.ts";
import { record, wordTokenizer } from "./_records.ts";

Deno.test("METRICS: one definition per tag, each with a way to compute it", () => {
  const tags = METRICS.map((d) => d.tag);
  assert.equal(new Set(tags).size, tags.length);
  for (const d of METRICS) {
    assert.equal(metricDef(d.tag), d);
    assert.ok(d.kind === "record" ? d.record : d.derive, `${d.tag} computes nothing`);
    assert.doesNotThrow(() => toDisplay(d, 1), `${d.tag}: ${d.unit} → ${d.displayUnit}`);
  }
  assert.equal(metricDef("nope"), undefined);
});

Deno.test("toDisplay converts times by dividing, like AIPerf", () => {
  assert.equal(toDisplay(metricDef("request_latency")!, 31_742_934), 31.742934);
  assert.equal(toDisplay(metricDef("benchmark_duration")!, 255_560_172_701), 255.560172701);
  assert.equal(toDisplay(metricDef("output_token_count")!, 7), 7);
});

Deno.test("reasoning metrics appear when a run had reasoning", () => {
  const agg = new MetricsAggregator();
  const ctx = { inputTokens: 5, tokenizer: wordTokenizer, streaming: true };
  for (const reasoningText of ["r r r", ""]) {
    const rec = record({
      responseNs: [1e6, 2e6, 3e6],
      responseReasoning: [reasoningText !== "", false, false],
      reasoningText,
      outputText: "a b",
    });
    agg.add(rec, computeRecordMetrics(rec, ctx));
  }
  const s = agg.summary();
  const get = (tag: string) => s.metrics.find((m) => m.tag === tag);
  assert.equal(get("reasoning_token_count")?.count, 1);
  assert.equal(get("total_reasoning_tokens")?.avg, 3);
  assert.equal(get("total_osl")?.avg, 7);
  assert.equal(get("total_output_tokens")?.avg, 4);
});
