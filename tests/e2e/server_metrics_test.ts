/**
 * The server's own metrics: reprise scrapes the mock's `/metrics` during profiling by default and
 * exports them in AIPerf's schema; `--no-server-metrics` scrapes nothing; a target without
 * `/metrics` costs one warning line and changes nothing else.
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { runCli } from "./helpers.ts";

function args(url: string, dir: string, ...more: string[]): string[] {
  return [
    "profile",
    "--url",
    url,
    "--model",
    "m",
    "--endpoint-type",
    "chat",
    "--streaming",
    "--synthetic-input-tokens-mean",
    "20",
    "--output-tokens-mean",
    "16",
    "--artifact-dir",
    dir,
    ...more,
  ];
}

/** The single run directory under `dir`. */
function runDirOf(dir: string): string {
  const entries = [...Deno.readDirSync(dir)].filter((e) => e.isDirectory);
  assert.equal(entries.length, 1, entries.map((e) => e.name).join(","));
  return join(dir, entries[0].name);
}

type Metrics = Record<
  string,
  {
    type: string;
    series: { labels: Record<string, string> | null; stats: Record<string, number> }[];
  }
>;

Deno.test("server metrics: running max equals concurrency; token counter matches throughput", async () => {
  const server = await startMockServer({ ttftMs: 300, itlMs: 5, outputTokens: 16 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(args(server.url, dir, "--concurrency", "4", "--request-count", "48"));
    assert.equal(res.code, 0, res.stderr);
    assert.ok(!res.stderr.includes("server metrics"), res.stderr);
    const runDir = runDirOf(dir);
    const doc = JSON.parse(await Deno.readTextFile(join(runDir, "server_metrics_export.json")));
    assert.equal(doc.schema_version, "1.0");
    assert.deepEqual(doc.summary.endpoints_successful, [`${server.url}/metrics`]);
    const info = doc.summary.endpoint_info[`${server.url}/metrics`];
    assert.ok(info.unique_updates >= 2 && info.first_update_ns < info.last_update_ns);
    assert.ok(info.median_update_interval_ms > 0 && info.avg_update_interval_ms > 0);
    const metrics = doc.metrics as Metrics;
    const running = metrics["vllm:num_requests_running"];
    assert.equal(running.type, "gauge");
    assert.deepEqual(running.series[0].labels, { model_name: "mock-model" });
    assert.equal(running.series[0].stats.max, 4);
    const ttft = metrics["vllm:time_to_first_token_seconds"];
    assert.equal(ttft.type, "histogram");
    assert.equal(ttft.series[0].stats.count, 48);
    const p50 = ttft.series[0].stats.p50_estimate;
    assert.ok(p50 >= 0.25 && p50 <= 0.5, `TTFT p50 estimate ${p50}`);
    const gen = metrics["vllm:generation_tokens"].series[0].stats;
    assert.equal(gen.total, 48 * 16);
    const summary = JSON.parse(
      await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")),
    );
    const duration = summary.benchmark_duration?.avg ?? summary.benchmark_duration;
    const throughput = summary.output_token_throughput.avg;
    const serverRate = gen.total / duration;
    const diff = Math.abs(serverRate - throughput) / throughput;
    assert.ok(diff < 0.02, `server ${serverRate} vs reprise ${throughput} tokens/s (${diff})`);
    // The exported rate is over the scrapes' span, which brackets the phase.
    const rateDiff = Math.abs(gen.rate - throughput) / throughput;
    assert.ok(rateDiff < 0.05, `exported rate ${gen.rate} vs reprise ${throughput} tokens/s`);
    // The values over time, for the report: the running gauge reaches the concurrency.
    const overTime = doc.series.series.find((s: { metric: string }) =>
      s.metric === "vllm:num_requests_running"
    );
    assert.equal(Math.max(...overTime.v), 4);
    assert.equal(overTime.t.length, overTime.v.length);
    const csv = await Deno.readTextFile(join(runDir, "server_metrics_export.csv"));
    assert.match(csv, /,vllm:generation_tokens,/);
    assert.equal(csv.split("\n\n").length >= 3, true, csv);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("server metrics: --no-server-metrics writes no file and scrapes nothing", async () => {
  let scrapes = 0;
  const mock = await startMockServer({});
  // A front that counts the scrapes and passes everything else to the mock.
  const front = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/metrics") scrapes++;
    return fetch(`${mock.url}${url.pathname}${url.search}`, {
      method: req.method,
      headers: req.headers,
      body: req.body,
    });
  });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(
      args(
        `http://127.0.0.1:${front.addr.port}`,
        dir,
        "--request-count",
        "4",
        "--no-server-metrics",
      ),
    );
    assert.equal(res.code, 0, res.stderr);
    assert.equal(scrapes, 0);
    assert.equal(existsSync(join(runDirOf(dir), "server_metrics_export.json")), false);
    assert.equal(existsSync(join(runDirOf(dir), "server_metrics_export.csv")), false);
  } finally {
    await front.shutdown();
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("server metrics: a target without /metrics gives exactly one warning", async () => {
  const mock = await startMockServer({});
  const front = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/metrics") return new Response("not found", { status: 404 });
    return fetch(`${mock.url}${url.pathname}${url.search}`, {
      method: req.method,
      headers: req.headers,
      body: req.body,
    });
  });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(
      args(`http://127.0.0.1:${front.addr.port}`, dir, "--request-count", "4"),
    );
    assert.equal(res.code, 0, res.stderr);
    const warnings = res.stderr.split("\n").filter((l) => l.includes("server metrics"));
    assert.equal(warnings.length, 1, res.stderr);
    assert.match(warnings[0], /HTTP 404/);
    assert.equal(existsSync(join(runDirOf(dir), "server_metrics_export.json")), false);
  } finally {
    await front.shutdown();
    await mock.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("server metrics: warmup stays out of the statistics, jsonl keeps every scrape", async () => {
  const server = await startMockServer({ ttftMs: 100, itlMs: 5, outputTokens: 16 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(
      args(
        server.url,
        dir,
        "--concurrency",
        "2",
        "--request-count",
        "12",
        "--warmup-request-count",
        "6",
        "--server-metrics-formats",
        "json",
        "jsonl",
      ),
    );
    assert.equal(res.code, 0, res.stderr);
    const runDir = runDirOf(dir);
    const doc = JSON.parse(await Deno.readTextFile(join(runDir, "server_metrics_export.json")));
    const metrics = doc.metrics as Metrics;
    // Profiling only: 12 answers of 16 tokens, none of the 6 warmup answers.
    assert.equal(metrics["vllm:generation_tokens"].series[0].stats.total, 12 * 16);
    assert.equal(metrics["vllm:time_to_first_token_seconds"].series[0].stats.count, 12);
    assert.equal(existsSync(join(runDir, "server_metrics_export.csv")), false);
    const lines = (await Deno.readTextFile(join(runDir, "server_metrics_export.jsonl")))
      .trim().split("\n").map((l) => JSON.parse(l));
    const generated = lines.map((l) => l.metrics["vllm:generation_tokens"][0].value as number);
    // The series starts before warmup and ends after profiling.
    assert.equal(generated[0], 0);
    assert.equal(generated.at(-1), 18 * 16);
    assert.deepEqual(lines[0].metrics["vllm:num_requests_running"][0].labels, {
      model_name: "mock-model",
    });
    const ttft = lines.at(-1).metrics["vllm:time_to_first_token_seconds"][0];
    assert.equal(ttft.count, 18);
    assert.equal(ttft.buckets["+Inf"], 18);
    for (const l of lines) {
      assert.equal(l.endpoint_url, `${server.url}/metrics`);
      assert.ok(l.endpoint_latency_ns >= 0 && l.request_sent_ns <= l.timestamp_ns);
    }
    // The console's section names the key metrics it found.
    assert.match(
      res.stdout,
      /Server metrics\n {2}Requests running: .*\(vllm:num_requests_running\)/,
    );
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("server metrics: the mock in SGLang's names exports SGLang's families", async () => {
  const server = await startMockServer({
    ttftMs: 100,
    itlMs: 5,
    outputTokens: 8,
    metricsFormat: "sglang",
  });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(args(server.url, dir, "--concurrency", "3", "--request-count", "12"));
    assert.equal(res.code, 0, res.stderr);
    const doc = JSON.parse(
      await Deno.readTextFile(join(runDirOf(dir), "server_metrics_export.json")),
    );
    const metrics = doc.metrics as Metrics;
    assert.equal(Object.keys(metrics).some((n) => n.startsWith("vllm:")), false);
    assert.equal(metrics["sglang:num_running_reqs"].type, "gauge");
    assert.equal(metrics["sglang:num_running_reqs"].series[0].stats.max, 3);
    assert.deepEqual(metrics["sglang:num_running_reqs"].series[0].labels, {
      model_name: "mock-model",
    });
    assert.equal(metrics["sglang:generation_tokens"].series[0].stats.total, 12 * 16);
    assert.equal(metrics["sglang:time_to_first_token_seconds"].type, "histogram");
    assert.match(res.stdout, /Requests running: avg [\d.]+, max 3\.00 \(sglang:num_running_reqs\)/);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
