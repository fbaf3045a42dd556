/**
 * Parsing and aggregation of real `/metrics` expositions (llama.cpp, SGLang, Triton) from the
 * reference: types, label sets, histogram buckets and summary quantiles land where they belong,
 * and two scrapes turn into AIPerf's statistics.
 */

import assert from "node:assert/strict";
import { parseExposition } from "../../src/observe/prometheus.ts";
import { aggregateMetrics, bucketQuantile } from "../../src/observe/export.ts";
import type { EndpointScrapes } from "../../src/observe/scraper.ts";
import { metricsUrl, scrapeUrls } from "../../src/observe/scraper.ts";
import { REFERENCE } from "../_reference.ts";

const REF = REFERENCE;

/** The first fenced block of a Markdown file that holds `marker`, without its `$ ` lines. */
function block(path: string, marker: string): string | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch {
    return null;
  }
  for (const b of text.split("```").filter((_, i) => i % 2 === 1)) {
    if (b.includes(marker)) return b.split("\n").filter((l) => !l.startsWith("$")).join("\n");
  }
  return null;
}

function read(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return null;
  }
}

const llama = read(`${REF}/llama-server-metrics.prom`);
const sglang = block(
  `${REF}/external/server-metrics/sglang/production_metrics.md`,
  "# TYPE sglang:time_to_first_token_seconds histogram",
);
const triton = block(
  `${REF}/external/server-metrics/triton/metrics.md`,
  "# TYPE nv_inference_queue_summary_us summary",
);

Deno.test({
  name: "llama.cpp exposition: counters and gauges with their types",
  ignore: llama === null,
  fn() {
    const f = parseExposition(llama!)!;
    assert.equal(f.get("llamacpp:prompt_tokens")?.type, "counter");
    assert.equal(f.get("llamacpp:prompt_tokens")?.series.get("[]")?.value, 853);
    assert.equal([...f.values()].filter((x) => x.type === "gauge").length, 5);
    assert.equal([...f.values()].filter((x) => x.type === "counter").length, 10);
  },
});

Deno.test({
  name: "SGLang exposition: labelled histograms keep labels, buckets, sum and count",
  ignore: sglang === null,
  fn() {
    const f = parseExposition(sglang!)!;
    const ttft = f.get("sglang:time_to_first_token_seconds")!;
    assert.equal(ttft.type, "histogram");
    assert.equal(ttft.series.size, 1);
    const s = [...ttft.series.values()][0];
    assert.deepEqual(s.labels, { model_name: "meta-llama/Llama-3.1-8B-Instruct" });
    assert.equal(s.count, 11008);
    assert.ok(Math.abs(s.sum! - 2.3518979474117756e6) < 1e-3);
    assert.deepEqual(s.buckets!.find(([le]) => le === "+Inf"), ["+Inf", 11008]);
    assert.equal(f.get("sglang:token_usage")?.type, "gauge");
    assert.equal(f.get("sglang:generation_tokens")?.type, "counter");
    // No family of its own for a histogram's parts.
    assert.equal(f.has("sglang:time_to_first_token_seconds_bucket"), false);
  },
});

Deno.test({
  name: "Triton exposition: a summary keeps quantiles, sum and count per label set",
  ignore: triton === null,
  fn() {
    const f = parseExposition(triton!)!;
    const q = f.get("nv_inference_queue_summary_us")!;
    assert.equal(q.type, "summary");
    const s = [...q.series.values()][0];
    assert.deepEqual(s.labels, { model: "my_model", version: "1" });
    assert.equal(s.count, 161);
    assert.equal(s.sum, 11110);
    assert.equal(s.quantiles!["0.99"], 101);
  },
});

Deno.test("not Prometheus text parses to null", () => {
  assert.equal(parseExposition("<html><body>Not found</body></html>"), null);
  assert.equal(parseExposition(""), null);
  assert.equal(parseExposition('{"error": "no"}'), null);
});

/** Two scrapes of a vLLM-like exposition, one second apart. */
function twoScrapes(): EndpointScrapes {
  const text = (running: number, tokens: number, b: number[]) =>
    [
      "# TYPE vllm:num_requests_running gauge",
      `vllm:num_requests_running{model_name="m"} ${running}`,
      "# TYPE vllm:generation_tokens_total counter",
      `vllm:generation_tokens_total{model_name="m"} ${tokens}`,
      "# TYPE vllm:time_to_first_token_seconds histogram",
      `vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.1"} ${b[0]}`,
      `vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.5"} ${b[1]}`,
      `vllm:time_to_first_token_seconds_bucket{model_name="m",le="+Inf"} ${b[2]}`,
      `vllm:time_to_first_token_seconds_sum{model_name="m"} ${b[3]}`,
      `vllm:time_to_first_token_seconds_count{model_name="m"} ${b[2]}`,
    ].join("\n");
  return {
    url: "http://h/metrics",
    ok: true,
    fetches: 2,
    latencyMs: 2,
    firstFetchNs: 0n,
    lastFetchNs: 1_000_000_000n,
    snapshots: [
      { tNs: 0n, sentNs: 0n, families: parseExposition(text(1, 100, [5, 5, 5, 0.2]))! },
      {
        tNs: 1_000_000_000n,
        sentNs: 1_000_000_000n,
        families: parseExposition(text(3, 400, [5, 15, 15, 3.2]))!,
      },
    ],
  };
}

Deno.test("aggregation: gauge range, counter delta and rate, histogram deltas", () => {
  const m = aggregateMetrics([twoScrapes()]);
  const g = m["vllm:num_requests_running"].series[0];
  assert.deepEqual(g.labels, { model_name: "m" });
  assert.equal(g.stats.min, 1);
  assert.equal(g.stats.max, 3);
  assert.equal(g.stats.p50, 2);
  const c = m["vllm:generation_tokens"].series[0].stats;
  assert.equal(c.total, 300);
  assert.equal(c.rate, 300);
  const h = m["vllm:time_to_first_token_seconds"].series[0];
  assert.equal(h.stats.count, 10);
  assert.ok(Math.abs(h.stats.sum - 3) < 1e-9);
  assert.deepEqual(h.buckets, { "0.1": 0, "0.5": 10, "+Inf": 10 });
  // Ten observations between 0.1 and 0.5: the median is interpolated half-way.
  assert.ok(Math.abs(h.stats.p50_estimate - 0.3) < 1e-9);
  assert.equal(m["vllm:time_to_first_token_seconds"].unit, "seconds");
});

Deno.test("bucket quantile: +Inf bucket answers the highest finite bound", () => {
  assert.equal(bucketQuantile([[1, 0], [Infinity, 4]], 0.5), 1);
  assert.equal(bucketQuantile([[1, 2], [2, 4], [Infinity, 4]], 0.75), 1.5);
});

Deno.test("scrape URLs: the target's /metrics first, given ones added, none when off", () => {
  assert.deepEqual(scrapeUrls("http://127.0.0.1:8000", ["localhost:9000"], false), [
    "http://127.0.0.1:8000/metrics",
    "http://localhost:9000/metrics",
  ]);
  assert.deepEqual(scrapeUrls("http://127.0.0.1:8000", ["localhost:9000"], true), []);
  assert.equal(metricsUrl("http://h:1/custom/path"), "http://h:1/custom/path");
});
