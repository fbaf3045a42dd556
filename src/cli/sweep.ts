/**
 * `reprise profile` with a sweep (`--concurrency 1,2,4`), repeated runs (`--num-profile-runs
 * N`) or a search (`--search-recipe`): a list of run plans, each planned before the first run
 * starts (so a bad value in any variation stops the command before anything is sent), then run
 * one after another with AIPerf's cooldowns, seeds and warmup rules, into AIPerf's layout, with
 * the confidence and sweep aggregates and the sweep table at the end.
 */

import { join } from "node:path";
import type { profileOptions } from "../config/options.ts";
import { ConfigError, type Parsed } from "../config/parse.ts";
import {
  aggregateCsv,
  type Combination,
  confidenceAggregate,
  type ConvergenceNote,
  type RunRef,
  sweepAggregate,
  sweepCsv,
} from "../sweep/aggregate.ts";
import { converged, convergedDistribution } from "../sweep/convergence.ts";
import { collatedAggregate } from "../sweep/records.ts";
import {
  combinations,
  type SweepArgs,
  variationArgs,
  variationDir,
  variationParameters,
} from "../sweep/expand.ts";
import {
  AGGREGATE_CSV,
  AGGREGATE_JSON,
  aggregateDir,
  COLLATED_JSON,
  type Layout,
  runDir,
  runLabel,
  SWEEP_CSV,
  SWEEP_JSON,
  sweepAggregateDir,
} from "../sweep/layout.ts";
import { sweepTable, type TableRow } from "../sweep/table.ts";
import { newBenchmarkId } from "../export/summary_json.ts";
import { ExitCode, signalExitCode } from "./exit_codes.ts";
import { type Io, stopSignal } from "./io.ts";
import { awaitModel } from "./run_input.ts";
import {
  baseName,
  baseSeed,
  cooldown,
  Interrupted,
  planVariation,
  runVariation,
  trialSeed,
  type Variation,
  writeJson,
  writeText,
} from "./sweep_run.ts";

/**
 * Refuses the full-screen dashboard a sweep, repeated runs or a search would open and close at
 * every run, when it was asked for (AIPerf refuses it too); unasked, it falls back as usual.
 */
export function checkUi(first: Parsed<typeof profileOptions>): void {
  if (first.given.has("ui") && first.values.ui === "dashboard") {
    throw new ConfigError(
      "the dashboard UI is not supported with sweeps, repeated runs or searches: use --ui simple or --ui none",
    );
  }
}

/** The options of a sweep command, checked once. */
function checkOptions(config: Parsed<typeof profileOptions>["values"]): void {
  if (config.convergenceMode === "distribution" && config.exportLevel === "summary") {
    throw new ConfigError(
      "--convergence-mode distribution reads the per-request records: it needs --export-level records or raw",
    );
  }
  if (config.convergenceMetric !== undefined && config.numProfileRuns < 2) {
    throw new ConfigError("--convergence-metric needs --num-profile-runs 2 or more");
  }
}

/** Runs a sweep or repeated runs; returns the exit code. */
export async function sweepCommand(
  sweep: SweepArgs,
  first: Parsed<typeof profileOptions>,
  io: Io,
): Promise<number> {
  const base = first.values;
  checkUi(first);
  checkOptions(base);
  try {
    return (await runSweep(sweep, first, io)).code;
  } catch (e) {
    if (e instanceof Interrupted) return e.code;
    throw e;
  }
}

/**
 * Plans every variation of `picks` (value indices of `sweep.axes`), the first from `first`.
 * Seeds: the base seed, plus the variation's index unless `--parameter-sweep-same-seed`.
 */
export async function planAll(
  sweep: SweepArgs,
  picks: number[][],
  first: Parsed<typeof profileOptions>,
  io: Io,
): Promise<Variation[]> {
  const seed = baseSeed(first.values);
  const out: Variation[] = [];
  for (const [i, pick] of picks.entries()) {
    const args = variationArgs(sweep, pick);
    const parameters = variationParameters(sweep.axes, pick);
    const s = first.values.parameterSweepSameSeed ? seed : seed + i;
    out.push(
      await planVariation(
        i,
        args,
        parameters,
        variationDir(parameters),
        s,
        io,
        i === 0 ? first : undefined,
      ),
    );
  }
  return out;
}

/** How a sweep ended: its exit code, its layout and its sweep aggregate (null without one). */
export interface SweepEnd {
  code: number;
  layout: Layout;
  sweep: Record<string, unknown> | null;
}

/**
 * The sweep or repeated runs: plan all, wait for the model, run, aggregate, print. `picks`:
 * the variations (value indices of the axes) when not the grid or zip of the lists; `name`: the
 * base directory's last word (`sweep`).
 */
export async function runSweep(
  sweep: SweepArgs,
  first: Parsed<typeof profileOptions>,
  io: Io,
  opts: { picks?: number[][]; name?: string } = {},
): Promise<SweepEnd> {
  const cfg = first.values;
  const picks = opts.picks ?? combinations(sweep.axes, cfg.sweepType);
  const variations = await planAll(sweep, picks, first, io);
  const swept = sweep.axes.length > 0;
  const trials = cfg.numProfileRuns;
  const v0 = variations[0];
  const layout: Layout = {
    base: swept
      ? join(cfg.artifactDir, baseName(v0, opts.name ?? "sweep"))
      : v0.planned.plan.runDir,
    sweep: swept,
    trials,
    mode: cfg.parameterSweepMode as Layout["mode"],
  };
  const waited = await awaitModel(v0.input);
  if (waited !== null) return { code: waited, layout, sweep: null };
  const order: [Variation, number][] = layout.mode === "independent" || !swept
    ? variations.flatMap((v) =>
      Array.from({ length: trials }, (_, t) => [v, t + 1] as [Variation, number])
    )
    : Array.from(
      { length: trials },
      (_, t) => variations.map((v) => [v, t + 1] as [Variation, number]),
    )
      .flat();
  const runs = variations.map(() => [] as RunRef[]);
  const sweepId = newBenchmarkId();
  const done = variations.map(() => false);
  let code: number = ExitCode.OK;
  let prev: [Variation, number] | null = null;
  let stopped = false;
  const total = order.length;
  let n = 0;
  for (const [v, trial] of order) {
    n++;
    if (done[v.index]) continue;
    if (prev !== null) {
      // Between two runs of one variation the repeated-run cooldown, else the sweep's.
      const pause = prev[0] === v
        ? cfg.profileRunCooldownSeconds
        : cfg.parameterSweepCooldownSeconds;
      if (!await cooldown(pause, io)) {
        stopped = true;
        break;
      }
    }
    prev = [v, trial];
    const label = runLabel(layout, trial);
    io.stderr(`run ${n}/${total}: ${swept ? `${v.dir} ` : ""}${label}\n`);
    const r = await runVariation(v, {
      dir: runDir(layout, v.dir, trial),
      label,
      seed: trialSeed(v, trial),
      warmup: trial === 1 || !cfg.profileRunDisableWarmupAfterFirst,
      sweepId,
      trial,
    }, io);
    runs[v.index].push(r.ref);
    if (r.code !== ExitCode.OK && code === ExitCode.OK) code = r.code;
    if (r.interrupted) {
      stopped = true;
      break;
    }
    if (cfg.convergenceMetric !== undefined && await converges(runs[v.index], cfg, trials)) {
      done[v.index] = true;
      io.stderr(`${swept ? `${v.dir}: ` : ""}converged after ${runs[v.index].length} runs\n`);
    }
  }
  const { rows, sweep: agg } = await writeAggregates(layout, variations, runs, cfg);
  if (cfg.sweepTable && rows.length > 0) io.stdout(sweepTable(rows, cfg.confidenceLevel));
  io.stderr(`artifacts: ${layout.base}\n`);
  await sweepReport(layout.base, cfg, io);
  return { code: stopped ? signalExitCode(stopSignal(io)) : code, layout, sweep: agg };
}

/**
 * With `--report`, the sweep report of the whole command (`<base>/report.html`) beside each run's
 * own; the SLO lines of the command's SLA flags.
 */
export async function sweepReport(
  base: string,
  cfg: Parsed<typeof profileOptions>["values"],
  io: Io,
): Promise<void> {
  if (!cfg.report) return;
  const { isSweepReport, writeSweepReport } = await import("../report/sweep_write.ts");
  if (!await isSweepReport([base])) return;
  const out = await writeSweepReport([base], join(base, "report.html"), {
    ttftSlaMs: cfg.ttftSlaMs,
    itlSlaMs: cfg.itlSlaMs ?? cfg.tpotSlaMs,
  });
  io.stderr(`report: ${out}\n`);
}

/** The convergence criterion of the command, as the aggregate records it. */
function convergenceNote(
  cfg: Parsed<typeof profileOptions>["values"],
  ok: boolean,
): ConvergenceNote | undefined {
  if (cfg.convergenceMetric === undefined) return undefined;
  return {
    metric: cfg.convergenceMetric,
    stat: cfg.convergenceStat,
    mode: cfg.convergenceMode ?? "ci_width",
    threshold: cfg.convergenceThreshold ?? 0.1,
    converged: ok,
  };
}

/** Whether a variation's runs so far meet the convergence criterion (after min(3, N) runs). */
async function converges(
  runs: readonly RunRef[],
  cfg: Parsed<typeof profileOptions>["values"],
  trials: number,
): Promise<boolean> {
  if (runs.length < Math.min(3, trials)) return false;
  const note = convergenceNote(cfg, false)!;
  return note.mode === "distribution"
    ? await convergedDistribution(runs, note)
    : converged(runs, note, cfg.confidenceLevel);
}

/**
 * Writes each configuration's confidence aggregate (with repeated runs) and the sweep aggregate
 * (with a sweep); returns the table rows.
 */
async function writeAggregates(
  layout: Layout,
  variations: readonly Variation[],
  runs: readonly RunRef[][],
  cfg: Parsed<typeof profileOptions>["values"],
): Promise<{ rows: TableRow[]; sweep: Record<string, unknown> | null }> {
  const level = cfg.confidenceLevel;
  const rows: TableRow[] = [];
  for (const v of variations) {
    const r = runs[v.index];
    if (r.length === 0) continue;
    const agg = confidenceAggregate(r, {
      level,
      planned: layout.trials,
      convergence: convergenceNote(
        cfg,
        cfg.convergenceMetric !== undefined && await converges(r, cfg, layout.trials),
      ),
    });
    if (layout.trials > 1) {
      const dir = aggregateDir(layout, v.dir);
      await writeJson(join(dir, AGGREGATE_JSON), agg);
      await writeText(join(dir, AGGREGATE_CSV), aggregateCsv(agg));
      // With adaptive runs and per-request records, AIPerf's pooled view of every request.
      if (cfg.convergenceMetric !== undefined && cfg.exportLevel !== "summary") {
        await writeJson(join(dir, COLLATED_JSON), await collatedAggregate(r));
      }
    }
    rows.push({
      parameters: v.parameters,
      runs: (agg.metadata as { num_successful_runs: number }).num_successful_runs,
      metrics: agg.metrics as TableRow["metrics"],
    });
  }
  if (layout.sweep) {
    const combos: Combination[] = variations.map((v) => ({
      parameters: v.parameters,
      runs: runs[v.index],
    }));
    const names = Object.keys(variations[0].parameters);
    const params = names.map((name) => ({
      name,
      values: [...new Set(variations.map((v) => v.parameters[name]))],
    }));
    const agg = sweepAggregate(combos, params, level);
    const dir = sweepAggregateDir(layout);
    await writeJson(join(dir, SWEEP_JSON), agg);
    await writeText(join(dir, SWEEP_CSV), sweepCsv(agg));
    return { rows, sweep: agg };
  }
  return { rows, sweep: null };
}
