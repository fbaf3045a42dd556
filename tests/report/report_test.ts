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
