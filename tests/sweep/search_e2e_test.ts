/**
 * The SLA search against the mock's slot model, whose knee is known from its parameters: with
 * 3 slots, a closed loop of 4 users queues one of them for a whole answer, so p95 TTFT jumps
 * from about two decode steps (~20 ms) to about an answer's length (12 steps, ~110 ms). The search must find 3 (within one
 * step) in fewer runs than the grid of the same resolution, and say both counts.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { runCli } from "../e2e/helpers.ts";

const SLOTS = 3;

Deno.test("max-concurrency-under-sla finds the slot model's knee, in fewer runs than a grid", async () => {
  const server = await startMockServer({
    slots: SLOTS,
    decodeMs: 6,
    decodeMsPerSeq: 1,
    prefillUsPerToken: 10,
    outputTokens: 12,
  });
  const dir = await Deno.makeTempDir();
  const base = [
    "profile",
    "--url",
    server.url,
    "--model",
    "mock-model",
    "--streaming",
    "--request-count",
    "6",
    "--warmup-request-count",
    "2",
    "--isl",
    "32",
    "--osl",
    "12",
    "--tokenizer",
    "builtin",
    "--ui",
    "none",
    "--no-server-metrics",
    "--artifact-dir",
    dir,
  ];
  try {
    // An SLA recipe without an SLA: refused before anything is sent.
    const bad = await runCli([...base, "--search-recipe", "max-concurrency-under-sla"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /needs an SLA/);
    assert.equal(server.stats().requests, 0);

    const r = await runCli([
      ...base,
      "--search-recipe",
      "max-concurrency-under-sla",
      "--ttft-sla-ms",
      "60",
      "--concurrency-max",
      "12",
      "--report",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const root = join(dir, "mock-model-openai-chat-search");
    const history = JSON.parse(await Deno.readTextFile(join(root, "search_history.json")));
    assert.equal(history.recipe, "max-concurrency-under-sla");
    assert.equal(history.convergence_reason, "monotonic_precision_reached");
    const found = history.boundary_summary.feasible_max.value as number;
    assert.ok(Math.abs(found - SLOTS) <= 1, `found ${found}, the knee is ${SLOTS}`);
    assert.equal(history.boundary_summary.infeasible_min.value, found + 1);
    assert.equal(
      history.boundary_summary.infeasible_min.first_breach.metric_tag,
      "time_to_first_token",
    );
    assert.equal(history.grid_equivalent.runs, 12);
    assert.ok(history.run_count < history.grid_equivalent.runs, JSON.stringify(history.run_count));
    assert.equal(history.iterations.length, history.run_count);
    // Every probe's runs are on disk, in AIPerf's adaptive layout.
    for (let i = 1; i <= history.iterations.length; i++) {
      const iter = `search_iter_${String(i).padStart(4, "0")}`;
      await Deno.stat(join(root, iter, "profile_runs", "run_0001", "profile_export_aiperf.json"));
    }
    await Deno.stat(join(root, "sweep_aggregate", "profile_export_aiperf_sweep.json"));
    // --report: the search's own report, with its path and both run counts.
    const html = await Deno.readTextFile(join(root, "report.html"));
    assert.match(html, /Search path/);
    assert.match(html, new RegExp(`<b>${history.run_count} runs</b>.*<b>12 runs</b>`));
    assert.match(r.stdout, new RegExp(`largest concurrency meeting the SLA: ${found}`));
    assert.match(
      r.stdout,
      new RegExp(`${history.run_count} runs .*a grid of the same resolution: 12 points, 12 runs`),
    );
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
