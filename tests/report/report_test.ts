import assert from "node:assert/strict";
import { join } from "node:path";
import { compareRuns } from "../../src/report/compare.ts";
import { renderReport } from "../../src/report/html.ts";
import { loadRun, parsePoints, type RunData, RunDataError } from "../../src/report/run_data.ts";
import { buildCharts, niceWidth } from "../../src/report/series.ts";

const T0 = 1_762_551_534_000_000_000;

function line(startMs: number, endMs: number, ttft: number, error = false): string {
  return JSON.stringify({
    metadata: { request_start_ns: T0 + startMs * 1e6, request_end_ns: T0 + endMs * 1e6 },
    metrics: {
      time_to_first_token: { value: ttft, unit: "ms" },
      request_latency: { value: endMs - startMs, unit: "ms" },
      output_sequence_length: { value: 10, unit: "tokens" },
    },
    error: error ? { code: 500, type: "HTTPError", message: "x" } : null,
  });
}

function run(name: string, ttftAvg: number, tput: number): RunData {
  return {
    name,
    dir: `/runs/${name}`,
    info: {},
    metrics: {
      time_to_first_token: { unit: "ms", avg: ttftAvg, p50: ttftAvg, p90: 1, p99: 2 },
      request_throughput: { unit: "requests/sec", avg: tput },
    },
    points: parsePoints(
      [line(0, 100, ttftAvg), line(500, 900, 20), line(1000, 1100, 0, true)].join("\n"),
      "x",
    ),
  };
}

Deno.test("parsePoints: seconds from the first start, errors marked, bad lines named", () => {
  const p = parsePoints([line(1000, 1500, 30, true), line(0, 200, 10)].join("\n") + "\n", "f");
  assert.deepEqual(p.map((x) => [x.startS, x.endS, x.ttft, x.error]), [[0, 0.2, 10, false], [
    1,
    1.5,
    30,
    true,
  ]]);
  assert.throws(
    () => parsePoints(`${line(0, 1, 1)}\n{oops`, "f.jsonl"),
    /"f\.jsonl": line 2 is not valid JSON/,
  );
  assert.throws(() => parsePoints(`{"metadata":{}}`, "f.jsonl"), /line 1 has no metadata/);
});

Deno.test("compareRuns: change in percent, direction by metric", () => {
  const rows = compareRuns(run("a", 100, 10), run("b", 150, 12));
  const ttft = rows.find((r) => r.tag === "time_to_first_token" && r.stat === "avg")!;
  assert.equal(ttft.changePct, 50);
  assert.equal(ttft.largerIsBetter, false);
  const tput = rows.find((r) => r.tag === "request_throughput")!;
  assert.equal(tput.stat, "avg");
  assert.ok(Math.abs(tput.changePct! - 20) < 1e-9);
  assert.equal(tput.largerIsBetter, true);
});

Deno.test("buildCharts: shared bins, one series per run, charts without data left out", () => {
  assert.equal(niceWidth(10, 40), 0.5);
  const charts = buildCharts([run("a", 10, 1), run("b", 30, 1)]);
  const ttft = charts.find((c) => c.id === "ttft-time")!;
  assert.equal(ttft.ys.length, 2);
  assert.equal(ttft.ys[0].length, ttft.x.length);
  assert.equal(ttft.ys[1][0], 30);
  const errors = charts.find((c) => c.id === "errors-time")!;
  assert.equal(errors.ys[0].reduce((s, v) => s! + v!, 0)! * (ttft.x[1] - ttft.x[0]), 1);
  assert.ok(!charts.some((c) => c.id.startsWith("itl")), "no ITL data, no ITL chart");
});

Deno.test("renderReport: self-contained, escaped, comparison only with two runs", () => {
  const one = renderReport([run("<a>", 10, 1)]);
  assert.ok(one.includes("&#60;a&#62;"));
  assert.ok(!one.includes('id="comparison"'));
  assert.ok(!/<script[^>]+src=|<link[^>]+href=/i.test(one));
  const two = renderReport([run("a", 10, 1), run("b", 20, 2)]);
  assert.ok(two.includes('id="comparison"'));
  assert.match(two, /\+100\.0 %/);
});

Deno.test("loadRun: a folder without a summary is a clear error", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(() => loadRun(dir), RunDataError);
    await Deno.writeTextFile(join(dir, "profile_export_aiperf.json"), "[1]");
    await assert.rejects(() => loadRun(dir), /expected a JSON object/);
    await Deno.writeTextFile(
      join(dir, "profile_export_aiperf.json"),
      JSON.stringify({ benchmark_id: "x", request_count: { unit: "requests", avg: 3 } }),
    );
    const r = await loadRun(dir);
    assert.deepEqual(Object.keys(r.metrics), ["request_count"]);
    assert.equal(r.info.benchmark_id, "x");
    assert.deepEqual(r.points, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A run whose server queued 5 requests from 0.5 s on, scraped every 0.25 s from 0.1 s before. */
function withServer(r: RunData, waiting: number): RunData {
  const t = Array.from({ length: 6 }, (_, i) => i * 0.25);
  return {
    ...r,
    startNs: T0,
    server: {
      section: {
        start_ns: T0 - 100e6,
        series: [
          {
            metric: "vllm:num_requests_waiting",
            source: "http://h/metrics",
            labels: null,
            type: "gauge",
            stat: "value",
            t,
            v: t.map((x) => (x >= 0.6 ? waiting : 0)),
          },
        ],
      },
      metrics: {
        "vllm:num_requests_waiting": {
          type: "gauge",
          unit: "requests",
          series: [{ stats: { avg: waiting / 2, max: waiting } }],
        },
      },
    },
  };
}

Deno.test("buildCharts: server series on the client's time bins, after the client's charts", () => {
  const charts = buildCharts([withServer(run("a", 10, 1), 5), run("b", 30, 1)]);
  const waiting = charts.find((c) => c.id === "server-waiting")!;
  assert.equal(waiting.section, "server");
  const ttft = charts.find((c) => c.id === "ttft-time")!;
  assert.deepEqual(waiting.x, ttft.x, "the same time axis as TTFT");
  // Scraped at -0.1, 0.15, 0.4, 0.65, 0.9, 1.15 s after the first request: 5 from 0.5 s on.
  const w = ttft.x[1] - ttft.x[0];
  const at = (s: number) => waiting.ys[0][Math.floor(s / w)];
  assert.equal(at(0.15), 0);
  assert.equal(at(0.9), 5);
  assert.ok(waiting.ys[1].every((v) => v === null), "a run without server metrics draws nothing");
  const sections = charts.map((c) => c.section);
  assert.ok(sections.indexOf("server") > sections.lastIndexOf("client"));
  assert.ok(!charts.some((c) => c.id === "server-kv-cache"), "no KV cache metric, no chart");
  // Without per-request records, the time axis is the scrapes' span.
  const alone = buildCharts([{ ...withServer(run("a", 10, 1), 5), points: [], startNs: null }]);
  const only = alone.find((c) => c.id === "server-waiting")!;
  assert.ok(only.x.length > 10 && only.x[only.x.length - 1] >= 1.2, `${only.x}`);
  assert.equal(only.ys[0][only.ys[0].length - 1], 5);
});

Deno.test("compareRuns: the server's statistics compared per server chart", () => {
  const rows = compareRuns(withServer(run("a", 10, 1), 4), withServer(run("b", 10, 1), 6));
  const max = rows.find((r) => r.tag === "vllm:num_requests_waiting" && r.stat === "max")!;
  assert.equal(max.base, 4);
  assert.equal(max.other, 6);
  assert.equal(max.changePct, 50);
  assert.equal(max.largerIsBetter, false);
  const html = renderReport([withServer(run("a", 10, 1), 4), run("b", 10, 1)]);
  assert.ok(html.includes('id="server-charts"'));
  assert.ok(!renderReport([run("a", 10, 1)]).includes('id="server-charts"'));
});

Deno.test("loadRun: reads the server's series beside the summary; a broken file is named", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      join(dir, "profile_export_aiperf.json"),
      JSON.stringify({ request_count: { unit: "requests", avg: 1 } }),
    );
    await Deno.writeTextFile(join(dir, "profile_export.jsonl"), line(0, 100, 10) + "\n");
    assert.equal((await loadRun(dir)).server, null);
    const server = withServer(run("a", 1, 1), 3).server!;
    await Deno.writeTextFile(
      join(dir, "server_metrics_export.json"),
      JSON.stringify({ metrics: server.metrics, series: server.section }),
    );
    const r = await loadRun(dir);
    assert.equal(r.startNs, T0);
    assert.equal(r.server!.section.series[0].metric, "vllm:num_requests_waiting");
    await Deno.writeTextFile(join(dir, "server_metrics_export.json"), "{");
    await assert.rejects(() => loadRun(dir), /server_metrics_export\.json": not valid JSON/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
