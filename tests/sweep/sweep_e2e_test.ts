/**
 * Sweeps and repeated runs end to end against the in-process mock: AIPerf's layout, every
 * aggregate value recomputed from the per-run files, zipped lists, adaptive stopping, and a bad
 * value in any variation refused before the first request.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { runCli, startCli } from "../e2e/helpers.ts";

/** Student's t, two-sided 95 %, df = 2 (tables). */
const T95_DF2 = 4.302652729911275;

type Json = Record<string, unknown>;

const readJson = async (p: string) => JSON.parse(await Deno.readTextFile(p)) as Json;

function close(actual: unknown, expected: number, what: string) {
  assert.equal(typeof actual, "number", what);
  const tol = 1e-9 * Math.max(1, Math.abs(expected));
  assert.ok(Math.abs((actual as number) - expected) <= tol, `${what}: ${actual} vs ${expected}`);
}

function base(url: string, dir: string): string[] {
  return [
    "profile",
    "--url",
    url,
    "--model",
    "mock-model",
    "--streaming",
    "--request-count",
    "4",
    "--isl",
    "16",
    "--osl",
    "4",
    "--tokenizer",
    "builtin",
    "--ui",
    "none",
    "--no-server-metrics",
    "--artifact-dir",
    dir,
  ];
}

Deno.test("--concurrency 1,2,4,8,16 --num-profile-runs 3: AIPerf's layout, every aggregate recomputed", async () => {
  const server = await startMockServer({ outputTokens: 4 });
  const dir = await Deno.makeTempDir();
  try {
    const r = await runCli([
      ...base(server.url, dir),
      "--concurrency",
      "1,2,4,8,16",
      "--num-profile-runs",
      "3",
      "--random-seed",
      "7",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const root = join(dir, "mock-model-openai-chat-sweep");
    const levels = [1, 2, 4, 8, 16];
    // The sweep table: one row per concurrency, with the runs behind it.
    for (const c of levels) assert.match(r.stdout, new RegExp(`^\\s+${c}\\s+3\\s`, "m"));
    const sweep = await readJson(
      join(root, "aggregate", "sweep_aggregate", "profile_export_aiperf_sweep.json"),
    );
    assert.equal(sweep.aggregation_type, "sweep");
    assert.equal(sweep.num_profile_runs, 15);
    assert.equal(sweep.num_successful_runs, 15);
    assert.deepEqual((sweep.metadata as Json).sweep_parameters, [{
      name: "concurrency",
      values: levels,
    }]);
    const per = sweep.per_combination_metrics as {
      parameters: Json;
      metrics: Record<string, Json>;
    }[];
    const seeds = new Set<number>();
    const sweepIds = new Set<string>();
    for (const [i, c] of levels.entries()) {
      const runs = await Promise.all(
        [1, 2, 3].map((t) =>
          readJson(
            join(
              root,
              "profile_runs",
              `trial_000${t}`,
              `concurrency_${c}`,
              "profile_export_aiperf.json",
            ),
          )
        ),
      );
      for (const [t, run] of runs.entries()) {
        const info = run.run_info as Json;
        seeds.add(info.random_seed as number);
        sweepIds.add(info.sweep_id as string);
        // Each run says where it sits in the sweep (AIPerf's run_info).
        assert.deepEqual(
          [
            info.trial,
            info.run_label,
            info.variation_label,
            info.variation_index,
            info.variation_values,
          ],
          [t, `trial_000${t + 1}`, `concurrency_${c}`, i, { concurrency: c }],
        );
      }
      const agg = await readJson(
        join(root, "aggregate", `concurrency_${c}`, "profile_export_aiperf_aggregate.json"),
      );
      const meta = agg.metadata as Json;
      assert.equal(meta.aggregation_type, "confidence");
      assert.deepEqual(meta.run_labels, ["trial_0001", "trial_0002", "trial_0003"]);
      const metrics = agg.metrics as Record<string, Json>;
      let checked = 0;
      for (const [tag, block] of Object.entries(runs[0])) {
        if (typeof block !== "object" || block === null || !("unit" in block)) continue;
        for (const stat of Object.keys(block)) {
          if (stat === "unit") continue;
          const xs = runs.map((run) => (run[tag] as Json)[stat] as number);
          const key = `${tag}_${stat}`;
          const m = metrics[key];
          assert.ok(m, `${key} missing from concurrency_${c}`);
          const mean = (xs[0] + xs[1] + xs[2]) / 3;
          const std = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / 2);
          const se = std / Math.sqrt(3);
          close(m.mean, mean, `${key} mean`);
          close(m.std, std, `${key} std`);
          close(m.min, Math.min(...xs), `${key} min`);
          close(m.max, Math.max(...xs), `${key} max`);
          close(m.se, se, `${key} se`);
          assert.ok(Math.abs((m.t_critical as number) - T95_DF2) < 1e-6, `${key} t`);
          close(m.ci_low, mean - (m.t_critical as number) * se, `${key} ci_low`);
          close(m.ci_high, mean + (m.t_critical as number) * se, `${key} ci_high`);
          if (mean !== 0) close(m.cv, std / Math.abs(mean), `${key} cv`);
          assert.equal(m.unit, (block as Json).unit);
          // The sweep aggregate's block is the same statistic, without se and t.
          const s = per[i].metrics[key];
          for (const f of ["mean", "std", "min", "max", "ci_low", "ci_high"]) {
            close(s[f], m[f] as number, `sweep ${key} ${f}`);
          }
          assert.equal(s.cv, m.cv);
          assert.equal("se" in s, false);
          checked++;
        }
      }
      assert.ok(checked > 50, `only ${checked} statistics`);
      assert.deepEqual(per[i].parameters, { concurrency: c });
    }
    // The same seed in every run of a variation, another per variation (base + index).
    assert.deepEqual([...seeds].sort((a, b) => a - b), [7, 8, 9, 10, 11]);
    assert.equal(sweepIds.size, 1);
    assert.match([...sweepIds][0], /^[0-9a-f]{32}$/);
    const best = sweep.best_configurations as Record<string, Json>;
    const tput = per.map((p) => p.metrics.request_throughput_avg.mean as number);
    assert.deepEqual(
      best.best_throughput.parameters,
      per[tput.indexOf(Math.max(...tput))].parameters,
    );
    const p99 = per.map((p) => p.metrics.time_to_first_token_p99.mean as number);
    assert.deepEqual(
      best.best_latency_p99.parameters,
      per[p99.indexOf(Math.min(...p99))].parameters,
    );
    assert.ok((sweep.pareto_optimal as Json[]).length >= 1);
    const csv = await Deno.readTextFile(
      join(root, "aggregate", "sweep_aggregate", "profile_export_aiperf_sweep.csv"),
    );
    assert.match(csv, /^concurrency,/);
    assert.match(csv, /\r\nPareto Optimal Points\r\n/);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sweeps: zipped lists, repeated runs without a sweep, adaptive stopping, errors first", async (t) => {
  const server = await startMockServer({ outputTokens: 4 });
  const dir = await Deno.makeTempDir();
  try {
    await t.step(
      "--sweep-type zip pairs the lists; a single run per cell sits in <base>/<cell>",
      async () => {
        const out = join(dir, "zip");
        const r = await runCli([
          ...base(server.url, out),
          "--sweep-type",
          "zip",
          "--concurrency",
          "1,2",
          "--isl",
          "8,32",
        ]);
        assert.equal(r.code, 0, r.stderr);
        const root = join(out, "mock-model-openai-chat-sweep");
        for (const cell of ["concurrency_1__isl_8", "concurrency_2__isl_32"]) {
          await Deno.stat(join(root, cell, "profile_export_aiperf.json"));
        }
        const sweep = await readJson(
          join(root, "sweep_aggregate", "profile_export_aiperf_sweep.json"),
        );
        assert.equal((sweep.per_combination_metrics as unknown[]).length, 2);
      },
    );

    await t.step(
      "repeated runs alone: profile_runs/run_NNNN and aggregate/; convergence stops early",
      async () => {
        const out = join(dir, "runs");
        const r = await runCli([
          ...base(server.url, out),
          "--num-profile-runs",
          "5",
          "--convergence-metric",
          "input_sequence_length",
          "--convergence-threshold",
          "0.5",
        ]);
        assert.equal(r.code, 0, r.stderr);
        const root = join(out, "mock-model-openai-chat-concurrency1");
        const agg = await readJson(join(root, "aggregate", "profile_export_aiperf_aggregate.json"));
        const meta = agg.metadata as Json;
        // Every run has the same prompts (one seed): the interval is 0 after the minimum of 3.
        assert.deepEqual(meta.run_labels, ["run_0001", "run_0002", "run_0003"]);
        assert.equal((meta.convergence as Json).converged, true);
        await assert.rejects(Deno.stat(join(root, "profile_runs", "run_0004")));
        await Deno.stat(join(root, "aggregate", "profile_export_aiperf_aggregate.csv"));
        // Adaptive runs with records: every request of the three runs pooled.
        const collated = await readJson(
          join(root, "aggregate", "profile_export_aiperf_collated.json"),
        );
        const isl = (collated.metrics as Record<string, { combined: Json; per_run: Json[] }>)
          .input_sequence_length;
        assert.equal(isl.combined.count, 12);
        assert.deepEqual(isl.per_run.map((r) => r.count), [4, 4, 4]);
      },
    );

    await t.step(
      "--convergence-mode distribution: a KS test of the latest run's requests",
      async () => {
        const out = join(dir, "ks");
        const r = await runCli([
          ...base(server.url, out),
          "--num-profile-runs",
          "4",
          "--convergence-metric",
          "input_sequence_length",
          "--convergence-mode",
          "distribution",
        ]);
        assert.equal(r.code, 0, r.stderr);
        const agg = await readJson(
          join(
            out,
            "mock-model-openai-chat-concurrency1",
            "aggregate",
            "profile_export_aiperf_aggregate.json",
          ),
        );
        // One seed: the same prompt lengths every run, so the distributions match after three.
        assert.equal((agg.metadata as Json).num_profile_runs, 3);
        const refused = await runCli([
          ...base(server.url, join(dir, "ks2")),
          "--num-profile-runs",
          "4",
          "--convergence-metric",
          "input_sequence_length",
          "--convergence-mode",
          "distribution",
          "--export-level",
          "summary",
        ]);
        assert.equal(refused.code, 2);
        assert.match(refused.stderr, /needs --export-level records or raw/);
      },
    );

    await t.step("Ctrl+C stops the sweep; the aggregates keep the runs that finished", async () => {
      const out = join(dir, "stopped");
      const run = startCli([
        ...base(server.url, out),
        "--concurrency",
        "1,2,4",
        "--num-profile-runs",
        "2",
        "--parameter-sweep-cooldown-seconds",
        "30",
      ]);
      // The first run ends, then the 30 s cooldown: a signal then ends the sweep at once.
      for (let i = 0; i < 3000 && !run.stderr().includes("cooldown"); i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      run.interrupt();
      const r = await run.done();
      assert.equal(r.code, 130, r.stderr);
      const root = join(out, "mock-model-openai-chat-sweep");
      const agg = await readJson(
        join(root, "aggregate", "concurrency_1", "profile_export_aiperf_aggregate.json"),
      );
      assert.deepEqual((agg.metadata as Json).run_labels, ["trial_0001"]);
      await assert.rejects(Deno.stat(join(root, "profile_runs", "trial_0001", "concurrency_2")));
    });

    await t.step("a bad value in a later variation: exit 2 before any request", async () => {
      const before = server.stats().requests;
      const out = join(dir, "bad");
      const r = await runCli([...base(server.url, out), "--concurrency", "1,0"]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /--concurrency/);
      assert.equal(server.stats().requests, before);
      await assert.rejects(Deno.stat(out));
      const zip = await runCli([
        ...base(server.url, out),
        "--sweep-type",
        "zip",
        "--concurrency",
        "1,2",
        "--isl",
        "8,16,32",
      ]);
      assert.equal(zip.code, 2);
      assert.match(zip.stderr, /zip pairs the lists/);
      const ui = await runCli([
        ...base(server.url, out),
        "--concurrency",
        "1,2",
        "--ui",
        "dashboard",
      ]);
      assert.equal(ui.code, 2);
      assert.match(ui.stderr, /dashboard UI is not supported with sweeps/);
      assert.equal(server.stats().requests, before);
    });
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
