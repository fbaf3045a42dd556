/**
 * Server series over time: a gauge's values, a counter's rates and a histogram's interval means
 * from successive scrapes; long runs thinned to a bound; the latest values and the charts' picks.
 */

import assert from "node:assert/strict";
import { parseExposition } from "../../src/observe/prometheus.ts";
import type { EndpointScrapes } from "../../src/observe/scraper.ts";
import { jsonText, latestValues, seriesSection } from "../../src/observe/series.ts";
import { chartValues, combine } from "../../src/observe/server_charts.ts";

const START = 1_000_000_000_000_000_000n;

function exposition(waiting: number[], tokens: number, ttft: [sum: number, count: number]) {
  return [
    "# TYPE vllm:num_requests_waiting gauge",
    ...waiting.map((w, i) => `vllm:num_requests_waiting{engine="${i}"} ${w}`),
    "# TYPE vllm:generation_tokens_total counter",
    `vllm:generation_tokens_total ${tokens}`,
    "# TYPE vllm:time_to_first_token_seconds histogram",
    `vllm:time_to_first_token_seconds_bucket{le="+Inf"} ${ttft[1]}`,
    `vllm:time_to_first_token_seconds_sum ${ttft[0]}`,
    `vllm:time_to_first_token_seconds_count ${ttft[1]}`,
  ].join("\n");
}

/** One endpoint scraped every 0.5 s, starting 0.1 s after START. */
function scrapes(texts: string[]): EndpointScrapes {
  return {
    url: "http://h/metrics",
    ok: true,
    fetches: texts.length,
    latencyMs: 1,
    firstFetchNs: START,
    lastFetchNs: START,
    snapshots: texts.map((t, i) => ({
      tNs: START + 100_000_000n + BigInt(i) * 500_000_000n,
      sentNs: START + 100_000_000n + BigInt(i) * 500_000_000n,
      families: parseExposition(t)!,
    })),
  };
}

const E = scrapes([
  exposition([1, 3], 0, [0, 0]),
  exposition([2, 4], 50, [0.2, 2]),
  exposition([0, 0], 150, [0.2, 2]),
]);

Deno.test("seriesSection: gauge values, counter rates, histogram means, times from the start", () => {
  const s = seriesSection([E], START);
  assert.equal(s.start_ns, Number(START));
  const waiting = s.series.filter((x) => x.metric === "vllm:num_requests_waiting");
  assert.deepEqual(waiting.map((x) => x.labels), [{ engine: "0" }, { engine: "1" }]);
  assert.deepEqual(waiting[1].t, [0.1, 0.6, 1.1]);
  assert.deepEqual(waiting[1].v, [3, 4, 0]);
  assert.equal(waiting[1].stat, "value");
  const tokens = s.series.find((x) => x.metric === "vllm:generation_tokens")!;
  assert.equal(tokens.stat, "rate");
  assert.deepEqual(tokens.t, [0.6, 1.1], "no rate at the first scrape");
  assert.deepEqual(tokens.v, [100, 200]);
  const ttft = s.series.find((x) => x.metric === "vllm:time_to_first_token_seconds")!;
  assert.equal(ttft.stat, "avg");
  assert.deepEqual(ttft.v, [0.1, null], "no observation in an interval is a gap");
});

Deno.test("seriesSection: a long run is thinned to the bound, rates over the longer intervals", () => {
  const texts = Array.from({ length: 101 }, (_, i) => exposition([i], i * 10, [0, 0]));
  const s = seriesSection([scrapes(texts)], START, 10);
  const tokens = s.series.find((x) => x.metric === "vllm:generation_tokens")!;
  assert.equal(tokens.v.length, 10);
  // 10 tokens per 0.5 s scrape, whatever the interval the thinning left.
  for (const v of tokens.v) assert.equal(v, 20);
  const waiting = s.series.find((x) => x.metric === "vllm:num_requests_waiting")!;
  assert.equal(waiting.v.length, 11);
  assert.equal(waiting.v[10], 100, "the last scrape is kept");
});

Deno.test("jsonText: arrays of numbers on one line, the same value read back", () => {
  const doc = { a: { t: [0.1, 2, -3e-7, null], s: ["x", "y"], n: [] }, b: [{ v: [1] }] };
  const text = jsonText(doc);
  assert.deepEqual(JSON.parse(text), doc);
  assert.match(text, /"t": \[0\.1, 2, -3e-7, null\]/);
  assert.match(text, /"v": \[1\]/);
  assert.match(text, /"s": \[\n\s+"x",\n/, "other arrays stay as they were");
});

Deno.test("seriesSection: a dropped endpoint has no series", () => {
  assert.deepEqual(seriesSection([{ ...E, ok: false }], START).series, []);
});

const texts2 = [exposition([1, 3], 0, [0, 0]), exposition([2, 4], 50, [0.2, 2])];

Deno.test("latestValues and chartValues: the last two scrapes, combined per chart", () => {
  const latest = latestValues([E]);
  const tokens = latest.find((v) => v.metric === "vllm:generation_tokens")!;
  assert.equal(tokens.value, 150);
  assert.equal(tokens.rate, 200);
  const charts = chartValues(latestValues([scrapes(texts2)]));
  assert.equal(charts["server-waiting"], 6, "waiting requests add up over label sets");
  assert.equal(charts["server-generation-tokens"], 100);
  assert.equal(charts["server-ttft"], 100, "seconds drawn in ms");
  assert.ok(!("server-kv-cache" in charts), "a metric the server lacks has no chart");
  assert.equal(combine([null, 2, 4], "avg"), 3);
  assert.equal(combine([null], "sum"), null);
});
