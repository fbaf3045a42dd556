/** The pure parts of sweeps and the search: statistics, list expansion, the planner, verdicts. */

import assert from "node:assert/strict";
import { profileOptions } from "../../src/config/options.ts";
import { confidenceStat, tCritical } from "../../src/sweep/stats.ts";
import { combinations, findSweep, variationArgs, variationDir } from "../../src/sweep/expand.ts";
import { judge, logGrid, MonotonicSearch, type SlaFilter } from "../../src/sweep/search.ts";
import type { RunRef } from "../../src/sweep/aggregate.ts";
import { ksTest } from "../../src/sweep/records.ts";

Deno.test("confidence statistics match AIPerf's worked example", () => {
  // AIPerf's multi-run guide: TTFT p99 of five runs, 95 %: CI ≈ [148.0, 154.4], t ≈ 2.776.
  const s = confidenceStat([150, 152, 148, 155, 151], 0.95, "ms");
  assert.equal(s.mean, 151.2);
  assert.ok(Math.abs(s.std - 2.5884) < 1e-4);
  assert.ok(Math.abs(s.t_critical! - 2.7764) < 1e-4);
  assert.equal(s.ci_low.toFixed(1), "148.0");
  assert.equal(s.ci_high.toFixed(1), "154.4");
  assert.ok(Math.abs(tCritical(0.99, 4) - 4.604) < 1e-3);
  // One run: no interval, as AIPerf's degraded single-run mode.
  const one = confidenceStat([3], 0.95, "ms");
  assert.deepEqual([one.std, one.ci_low, one.ci_high, one.t_critical], [0, 3, 3, null]);
});

Deno.test("comma lists of sweepable flags: grid, zip, inline and alias spellings", () => {
  const s = findSweep(
    ["-m", "x", "--concurrency=1,2", "--synthetic-input-tokens-mean", "8,16,32", "--osl", "4"],
    profileOptions,
  );
  assert.deepEqual(s.axes.map((a) => [a.name, a.values]), [
    ["concurrency", ["1", "2"]],
    ["isl", ["8", "16", "32"]],
  ]);
  const grid = combinations(s.axes, "grid");
  assert.equal(grid.length, 6);
  assert.deepEqual(variationArgs(s, grid[5]), [
    "-m",
    "x",
    "--concurrency=2",
    "--synthetic-input-tokens-mean",
    "32",
    "--osl",
    "4",
  ]);
  assert.throws(() => combinations(s.axes, "zip"), /zip pairs the lists/);
  assert.equal(variationDir({ concurrency: 4, isl: 128 }), "concurrency_4__isl_128");
  // A list of a flag that is not sweepable is left to the parser (which refuses it).
  assert.equal(findSweep(["--warmup-request-count", "1,2"], profileOptions).axes.length, 0);
});

Deno.test("the monotonic search finds every knee of a range exactly, in few probes", () => {
  for (const [lo, hi] of [[1, 16], [1, 1000], [4, 37]]) {
    for (let knee = lo; knee < hi; knee++) {
      const s = new MonotonicSearch(lo, hi, 200);
      let probes = 0;
      for (let v = s.next(); v !== null; v = s.next()) {
        assert.ok(v >= lo && v <= hi, `${v} outside ${lo}..${hi}`);
        s.tell(v, v <= knee);
        probes++;
      }
      assert.equal(s.feasibleMax, knee, `knee ${knee} of ${lo}..${hi}`);
      assert.equal(s.reason, "monotonic_precision_reached");
      assert.ok(probes <= 2 * Math.ceil(Math.log2(hi - lo + 2)) + 1, `${probes} probes`);
    }
  }
  const none = new MonotonicSearch(1, 8, 20);
  none.tell(none.next()!, false);
  assert.equal(none.next(), null);
  assert.equal(none.reason, "monotonic_no_pass_in_range");
  const all = new MonotonicSearch(1, 8, 20);
  for (let v = all.next(); v !== null; v = all.next()) all.tell(v, true);
  assert.equal(all.reason, "monotonic_no_failure_in_range");
  assert.equal(all.feasibleMax, 8);
  // AIPerf's 8-point log grid over 1..1000.
  assert.deepEqual(logGrid(1, 1000, 8), [1, 3, 7, 19, 52, 139, 373, 1000]);
});

Deno.test("a probe's verdict comes from its interval: clear after two runs, else more runs", () => {
  const run = (ttft: number): RunRef => ({
    label: "r",
    summary: { time_to_first_token: { unit: "ms", p95: ttft } },
  });
  const sla: SlaFilter[] = [{
    metric_tag: "time_to_first_token",
    stat: "p95",
    op: "lt",
    threshold: 50,
  }];
  assert.equal(judge([run(10), run(11)], sla, 0.95, false).verdict, "pass");
  const over = judge([run(90), run(91)], sla, 0.95, false);
  assert.equal(over.verdict, "fail");
  assert.equal(over.breach?.observed, 90.5);
  // Straddling the threshold: unsure until the last run, then the mean decides.
  assert.equal(judge([run(20), run(70)], sla, 0.95, false).verdict, "unsure");
  assert.equal(judge([run(20), run(70)], sla, 0.95, true).verdict, "pass");
  // A run without the metric is no evidence of meeting the SLA.
  assert.equal(judge([{ label: "r", summary: {} }], sla, 0.95, true).verdict, "fail");
});

Deno.test("the two-sample KS test: identical samples match, disjoint ones do not", () => {
  assert.deepEqual(ksTest([1, 2, 3, 3], [3, 1, 2, 3]), { d: 0, p: 1 });
  const apart = ksTest([1, 2, 3, 4, 5, 6, 7, 8], [11, 12, 13, 14, 15, 16, 17, 18]);
  assert.equal(apart.d, 1);
  assert.ok(apart.p < 0.01, String(apart.p));
  // Half the mass shifted: D = 0.5.
  assert.equal(ksTest([1, 2, 3, 4], [3, 4, 5, 6]).d, 0.5);
});
