/**
 * The expositions of vLLM, TensorRT-LLM and NVIDIA Dynamo (written after AIPerf's catalogue, see
 * fixtures/README.md), DCGM's real README sample and AIPerf's interleaved-histogram edge case
 * parse; their key metrics land in the export with their type and labels and drive the console
 * section; TensorRT-LLM's JSON `/metrics` falls back to `/prometheus/metrics`.
 */

import assert from "node:assert/strict";
import { parseExposition } from "../../src/observe/prometheus.ts";
import { aggregateMetrics } from "../../src/observe/export.ts";
import { keyMetricsSection, roleLine } from "../../src/observe/catalog.ts";
import { serverMetricsCsv } from "../../src/observe/server_csv.ts";
import type { EndpointScrapes } from "../../src/observe/scraper.ts";
import { prometheusAlternative, ServerMetricsScraper } from "../../src/observe/scraper.ts";
import { REFERENCE } from "../_reference.ts";

const fixture = (name: string) =>
  Deno.readTextFileSync(new URL(`./fixtures/${name}`, import.meta.url));

/** Two scrapes a second apart: the text as given, then with every counter and count grown. */
function scrapes(text: string, grow: number): EndpointScrapes {
  const later = text.split("\n").map((line) => {
    const m = /^(\S*(_total|_count|_bucket|_sum)(\{[^}]*\})?)\s+(\S+)$/.exec(line);
    return m ? `${m[1]} ${Number(m[4]) * grow}` : line;
  }).join("\n");
  return {
    url: "http://h/metrics",
    ok: true,
    fetches: 2,
    latencyMs: 2,
    firstFetchNs: 0n,
    lastFetchNs: 1_000_000_000n,
    snapshots: [
      { tNs: 0n, sentNs: 0n, families: parseExposition(text)! },
      { tNs: 1_000_000_000n, sentNs: 1_000_000_000n, families: parseExposition(later)! },
    ],
  };
}

Deno.test("vLLM exposition: key metrics exported with their types and labels", () => {
  const text = fixture("vllm.prom");
  const f = parseExposition(text)!;
  // A counter's `_created` line is not a measurement.
  assert.equal(f.has("vllm:generation_tokens_created"), false);
  const m = aggregateMetrics([scrapes(text, 2)]);
  const labels = { engine: "0", model_name: "Qwen/Qwen3-0.6B" };
  assert.equal(m["vllm:num_requests_running"].type, "gauge");
  assert.deepEqual(m["vllm:num_requests_running"].series[0].labels, labels);
  assert.equal(m["vllm:kv_cache_usage_perc"].series[0].stats.max, 0.72);
  assert.equal(m["vllm:generation_tokens"].type, "counter");
  assert.equal(m["vllm:generation_tokens"].series[0].stats.total, 150000);
  const success = m["vllm:request_success"].series;
  assert.deepEqual(success.map((s) => s.labels?.finished_reason).sort(), ["length", "stop"]);
  const ttft = m["vllm:time_to_first_token_seconds"];
  assert.equal(ttft.type, "histogram");
  assert.deepEqual(ttft.series[0].labels, labels);
  assert.equal(ttft.series[0].stats.count, 1520);
  assert.equal(ttft.unit, "seconds");
  // Prefix cache: 5000 of 20000 queried tokens hit, over the phase.
  assert.match(
    roleLine(m, "prefix_hit_rate")!,
    /25\.0 % \(vllm:prefix_cache_hits \/ vllm:prefix_cache_queries\)/,
  );
  assert.match(roleLine(m, "queue_time")!, /vllm:request_queue_time_seconds/);
  assert.match(roleLine(m, "tokens_per_second")!, /^Generated tokens\/s: 150000 /);
});

Deno.test("TensorRT-LLM exposition: key metrics exported with their types and labels", () => {
  const m = aggregateMetrics([scrapes(fixture("trtllm.prom"), 3)]);
  const labels = { engine_type: "pytorch", model_name: "llama" };
  assert.equal(m["trtllm_num_requests_running"].type, "gauge");
  assert.deepEqual(m["trtllm_num_requests_waiting"].series[0].labels, labels);
  assert.equal(m["trtllm_generation_tokens"].series[0].stats.total, 180000);
  assert.equal(m["trtllm_time_to_first_token_seconds"].type, "histogram");
  assert.equal(m["trtllm_time_to_first_token_seconds"].series[0].stats.count, 1400);
  const section = keyMetricsSection(m);
  for (const name of ["trtllm_num_requests_running", "trtllm_kv_cache_utilization"]) {
    assert.ok(section.includes(name), section);
  }
  assert.match(
    section,
    /Prefix cache hit rate: avg 0\.250, max 0\.250 \(trtllm_kv_cache_hit_rate\)/,
  );
});

Deno.test("Dynamo exposition: key metrics exported with their types and labels", () => {
  const m = aggregateMetrics([scrapes(fixture("dynamo.prom"), 2)]);
  assert.equal(m["dynamo_frontend_inflight_requests"].type, "gauge");
  assert.deepEqual(m["dynamo_frontend_inflight_requests"].series[0].labels, {
    model: "qwen/qwen3-0.6b",
  });
  const requests = m["dynamo_frontend_requests"].series[0];
  assert.equal(requests.labels?.status, "success");
  assert.equal(requests.labels?.error_type, "");
  assert.equal(m["dynamo_frontend_time_to_first_token_seconds"].series[0].stats.count, 880);
  assert.match(roleLine(m, "running")!, /avg 16\.00, max 16\.00 \(dynamo_frontend_inflight/);
  assert.match(roleLine(m, "kv_usage")!, /dynamo_component_gpu_cache_usage_percent/);
});

Deno.test("an unknown metric is still exported", () => {
  const text = '# TYPE acme_widgets gauge\nacme_widgets{shop="a"} 7\n';
  const m = aggregateMetrics([scrapes(text, 1)]);
  assert.equal(m.acme_widgets.type, "gauge");
  assert.equal(m.acme_widgets.series[0].stats.avg, 7);
  assert.equal(keyMetricsSection(m), "");
});

Deno.test("AIPerf's edge case: interleaved label sets of one histogram stay apart", () => {
  const text = Deno.readTextFileSync(
    `${REFERENCE}/external/aiperf-index-files/tachometer_histogram_cross_labels.prom`,
  );
  const h = parseExposition(text)!.get("vllm_request_queue_time_seconds")!;
  assert.equal(h.type, "histogram");
  const byModel = new Map([...h.series.values()].map((s) => [s.labels.model_name, s]));
  assert.deepEqual(byModel.get("model-a")!.buckets, [["0.1", 2], ["+Inf", 3]]);
  assert.deepEqual(byModel.get("model-b")!.buckets, [["0.1", 7], ["+Inf", 11]]);
  assert.equal(byModel.get("model-b")!.sum, 0.9);
});

Deno.test("DCGM's README sample: spaced labels and the unsupported-field marker parse", () => {
  const readme = Deno.readTextFileSync(`${REFERENCE}/external/dcgm-exporter/README.md`);
  const block = readme.split("```")[1].split("\n")
    .filter((l) => l.startsWith("#") || l.startsWith("DCGM_")).join("\n");
  const f = parseExposition(block)!;
  const clock = [...f.get("DCGM_FI_DEV_SM_CLOCK")!.series.values()][0];
  assert.equal(f.get("DCGM_FI_DEV_SM_CLOCK")!.type, "gauge");
  assert.deepEqual(clock.labels, { gpu: "0", UUID: "GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52" });
  assert.equal(clock.value, 139);
  const temp = [...f.get("DCGM_FI_DEV_MEMORY_TEMP")!.series.values()][0];
  assert.ok(temp.value! > 9e18);
});

Deno.test("TensorRT-LLM's path: /prometheus/metrics beside /metrics", () => {
  assert.equal(prometheusAlternative("http://h:8000/metrics"), "http://h:8000/prometheus/metrics");
  assert.equal(prometheusAlternative("http://h/v1/metrics"), "http://h/v1/prometheus/metrics");
  assert.equal(prometheusAlternative("http://h/prometheus/metrics"), null);
  assert.equal(prometheusAlternative("http://h/stats"), null);
});

/** A server answering `/metrics` with TensorRT-LLM's JSON and, when `prometheus`, Prometheus text. */
function trtServer(prometheus: boolean) {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    seen.push(path);
    if (path === "/metrics") {
      return Response.json([{ iter: 1, numActiveRequests: 2, kvCacheStats: { usedNumBlocks: 3 } }]);
    }
    if (path === "/prometheus/metrics" && prometheus) {
      return new Response(fixture("trtllm.prom"), { headers: { "content-type": "text/plain" } });
    }
    return new Response("not found", { status: 404 });
  });
  return { server, seen, url: `http://127.0.0.1:${server.addr.port}/metrics` };
}

Deno.test("a JSON /metrics falls back to /prometheus/metrics, in silence", async () => {
  const { server, seen, url } = trtServer(true);
  const warnings: string[] = [];
  const s = new ServerMetricsScraper([url], (l) => warnings.push(l), 50);
  try {
    await s.start();
    await s.stop();
    assert.deepEqual(warnings, []);
    assert.equal(s.active.length, 1);
    assert.equal(s.active[0].url, url.replace("/metrics", "/prometheus/metrics"));
    assert.ok(s.active[0].snapshots[0].families.has("trtllm_num_requests_running"));
    // The JSON path is asked once; the scrapes go to the Prometheus path.
    assert.equal(seen.filter((p) => p === "/metrics").length, 1);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a JSON /metrics without the Prometheus path: one warning, then nothing", async () => {
  const { server, seen, url } = trtServer(false);
  const warnings: string[] = [];
  const s = new ServerMetricsScraper([url], (l) => warnings.push(l), 20);
  try {
    await s.start();
    await new Promise((r) => setTimeout(r, 100));
    await s.stop();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /no server metrics from .*\/metrics \(JSON, not Prometheus text\)/);
    assert.equal(s.active.length, 0);
    assert.equal(seen.length, 2);
  } finally {
    await server.shutdown();
  }
});

Deno.test("credentials in a scrape URL become a Basic header and leave the URL", async () => {
  let auth: string | null = null;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    auth = req.headers.get("authorization");
    return new Response("# TYPE up gauge\nup 1\n");
  });
  const s = new ServerMetricsScraper(
    [`http://user:s3cret@127.0.0.1:${server.addr.port}/metrics`],
    () => {},
    50,
  );
  try {
    await s.start();
    await s.stop();
    assert.equal(auth, `Basic ${btoa("user:s3cret")}`);
    assert.equal(s.endpoints[0].url.includes("s3cret"), false);
  } finally {
    await server.shutdown();
  }
});

Deno.test("CSV export: AIPerf's header block, sections by type, labels as columns", () => {
  const m = aggregateMetrics([scrapes(fixture("vllm.prom"), 2)]);
  const csv = serverMetricsCsv(m, { version: "9.9", benchmarkId: "abc" });
  const [head, ...sections] = csv.split("\n\n");
  const lines = head.split("\n");
  assert.deepEqual(lines.slice(0, 4), [
    "# AIPerf Server Metrics Export (CSV)",
    "# aiperf_version: 9.9",
    "# schema_version: 1.0",
    "# benchmark_id: abc",
  ]);
  assert.equal(
    lines[6],
    "Endpoint,Type,Metric,Unit,avg,min,max,std,p1,p5,p10,p25,p50,p75,p90,p95,p99,engine,model_name,Description",
  );
  const kv = lines.find((l) => l.includes("vllm:kv_cache_usage_perc"))!.split(",");
  assert.deepEqual(kv.slice(0, 5), ["h", "gauge", "vllm:kv_cache_usage_perc", "percent", "0.7200"]);
  assert.deepEqual(kv.slice(-3, -1), ["0", "Qwen/Qwen3-0.6B"]);
  const counters = sections[0].split("\n");
  assert.match(counters[0], /^Endpoint,Type,Metric,Unit,total,rate,rate_avg,.*,finished_reason,/);
  assert.ok(counters.some((l) => l.startsWith("h,counter,vllm:request_success,")));
  const histograms = sections[1].split("\n");
  assert.match(histograms[0], /,Description,buckets$/);
  const ttft = histograms.find((l) => l.includes("vllm:time_to_first_token_seconds"))!;
  assert.match(ttft, /^h,histogram,vllm:time_to_first_token_seconds,seconds,1520,/);
  assert.match(ttft, /,0\.01=145;0\.1=1498;\+Inf=1520$/);
});
