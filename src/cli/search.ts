/**
 * `--search-recipe`: capacity questions in one command. The SLA recipes
 * (`max-concurrency-under-sla`, `max-throughput-ttft-sla`, `max-throughput-itl-sla`,
 * `max-goodput-under-slo`) run the monotonic search over concurrency (`sweep/search.ts`), each
 * probe repeated up to `--num-profile-runs` times until its interval decides it, and write
 * `search_history.json`; the grid recipes (`concurrency-ramp`, `pareto-sweep`, and
 * `max-concurrency-under-sla --search-style grid`) run a sweep and post-process it.
 */

import { join } from "node:path";
import type { ProfileConfig, profileOptions } from "../config/options.ts";
import { ConfigError, type Parsed } from "../config/parse.ts";
import {
  aggregateCsv,
  type Combination,
  confidenceAggregate,
  type RunRef,
  sweepAggregate,
  sweepCsv,
} from "../sweep/aggregate.ts";
import { findSweep, type SweepArgs, variationArgs } from "../sweep/expand.ts";
import {
  AGGREGATE_CSV,
  AGGREGATE_JSON,
  pad4,
  SEARCH_HISTORY,
  searchRunDir,
  SWEEP_CSV,
  SWEEP_JSON,
  sweepAggregateDir,
} from "../sweep/layout.ts";
import {
  judge,
  type Judgement,
  logGrid,
  MonotonicSearch,
  type SlaFilter,
} from "../sweep/search.ts";
import { type SearchIteration, searchSummary } from "../sweep/history.ts";
import { ExitCode, signalExitCode } from "./exit_codes.ts";
import { type Io, stopSignal } from "./io.ts";
import { awaitModel } from "./run_input.ts";
import { checkUi, runSweep, sweepReport } from "./sweep.ts";
import { newBenchmarkId } from "../export/summary_json.ts";
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
import { profileOptions as table } from "../config/options.ts";

type Config = ProfileConfig;

/** What each SLA recipe maximizes (AIPerf's objectives). */
const OBJECTIVE: Record<string, { metric: string; stat: string }> = {
  "max-concurrency-under-sla": { metric: "request_throughput", stat: "avg" },
  "max-throughput-ttft-sla": { metric: "output_token_throughput", stat: "avg" },
  "max-throughput-itl-sla": { metric: "output_token_throughput", stat: "avg" },
  "max-goodput-under-slo": { metric: "goodput", stat: "avg" },
};

/** Metrics only a streamed answer has. */
const STREAMING_ONLY = new Set(["time_to_first_token", "inter_token_latency"]);

/** The SLA filters of the command's flags (p95 of TTFT, ITL and request latency; error share). */
export function slaFilters(cfg: Config): SlaFilter[] {
  if (cfg.itlSlaMs !== undefined && cfg.tpotSlaMs !== undefined) {
    throw new ConfigError("--itl-sla-ms and --tpot-sla-ms are the same SLA: give one");
  }
  const out: SlaFilter[] = [];
  const add = (metric_tag: string, stat: string, op: SlaFilter["op"], threshold?: number) => {
    if (threshold !== undefined) out.push({ metric_tag, stat, op, threshold });
  };
  add("time_to_first_token", "p95", "lt", cfg.ttftSlaMs);
  add("inter_token_latency", "p95", "lt", cfg.itlSlaMs ?? cfg.tpotSlaMs);
  add("request_latency", "p95", "lt", cfg.e2eSlaMs);
  add("request_error_rate", "avg", "le", cfg.errorRateSla);
  return out;
}

/** The `--goodput` SLOs of `max-goodput-under-slo`: every per-request threshold given. */
function goodputSlos(cfg: Config): string {
  const parts: string[] = [];
  if (cfg.ttftSlaMs !== undefined) parts.push(`time_to_first_token:${cfg.ttftSlaMs}`);
  const itl = cfg.itlSlaMs ?? cfg.tpotSlaMs;
  if (itl !== undefined) parts.push(`inter_token_latency:${itl}`);
  if (cfg.e2eSlaMs !== undefined) parts.push(`request_latency:${cfg.e2eSlaMs}`);
  return parts.join(" ");
}

/** Runs the command's search recipe; returns the exit code. */
export async function searchCommand(
  sweep: SweepArgs,
  first: Parsed<typeof profileOptions>,
  io: Io,
): Promise<number> {
  try {
    return await recipeCommand(sweep, first, io);
  } catch (e) {
    if (e instanceof Interrupted) return e.code;
    throw e;
  }
}

async function recipeCommand(
  sweep: SweepArgs,
  first: Parsed<typeof profileOptions>,
  io: Io,
): Promise<number> {
  const cfg = first.values;
  const recipe = cfg.searchRecipe!;
  checkUi(first);
  if (cfg.convergenceMetric !== undefined) {
    throw new ConfigError(
      `--search-recipe ${recipe} decides its own runs: drop --convergence-metric`,
    );
  }
  if (recipe === "pareto-sweep") return await paretoSweep(sweep, first, io);
  const owned = sweep.axes[0];
  if (owned) {
    throw new ConfigError(
      `--search-recipe ${recipe} chooses the loads itself: give --${owned.flag} one value, not a list`,
    );
  }
  if (recipe === "concurrency-ramp") return await concurrencyRamp(sweep, first, io);
  if (recipe === "max-concurrency-under-sla" && cfg.searchStyle === "grid") {
    return await slaGrid(sweep, first, io);
  }
  return await monotonicSearch(sweep, first, io, recipe);
}

/** The filters a recipe decides by, checked against what it needs. */
function recipeFilters(cfg: Config, recipe: string): SlaFilter[] {
  const filters = slaFilters(cfg);
  const need = (what: string) => new ConfigError(`--search-recipe ${recipe} needs ${what}`);
  if (recipe === "max-throughput-ttft-sla" && cfg.ttftSlaMs === undefined) {
    throw need("--ttft-sla-ms");
  }
  if (
    recipe === "max-throughput-itl-sla" && cfg.itlSlaMs === undefined && cfg.tpotSlaMs === undefined
  ) {
    throw need("--itl-sla-ms (or --tpot-sla-ms)");
  }
  if (recipe === "max-goodput-under-slo") {
    if (goodputSlos(cfg) === "") throw need("one of --ttft-sla-ms, --tpot-sla-ms, --e2e-sla-ms");
    return [
      {
        metric_tag: "goodput_fraction",
        stat: "avg",
        op: "ge",
        threshold: cfg.sloAttainmentFraction ?? 0.95,
      },
      ...filters.filter((f) => f.metric_tag === "request_error_rate"),
    ];
  }
  if (filters.length === 0) {
    throw need("an SLA: --ttft-sla-ms, --itl-sla-ms, --e2e-sla-ms or --error-rate-sla");
  }
  return filters;
}

/** Refuses streaming-only SLAs on a run that does not stream. */
function checkStreaming(
  v: Variation,
  filters: readonly SlaFilter[],
  recipe: string,
  cfg: Config,
): void {
  const streamed = filters.some((f) => STREAMING_ONLY.has(f.metric_tag)) ||
    (recipe === "max-goodput-under-slo" &&
      (cfg.ttftSlaMs !== undefined || (cfg.itlSlaMs ?? cfg.tpotSlaMs) !== undefined)) ||
    recipe.startsWith("max-throughput");
  if (streamed && !v.planned.plan.streaming) {
    throw new ConfigError(
      `--search-recipe ${recipe} needs --streaming (time to first token and inter-token latency are measured on streamed answers)`,
    );
  }
}

/** The search's concurrency range: `--concurrency-min`..`--concurrency-max` (1..1000). */
function range(cfg: Config): [number, number] {
  const lo = cfg.concurrencyMin ?? 1;
  const hi = cfg.concurrencyMax ?? 1000;
  if (lo >= hi) {
    throw new ConfigError(`--concurrency-min ${lo} must be below --concurrency-max ${hi}`);
  }
  return [lo, hi];
}

/** The bracket-and-bisect search of an SLA recipe. */
async function monotonicSearch(
  sweep: SweepArgs,
  first: Parsed<typeof profileOptions>,
  io: Io,
  recipe: string,
): Promise<number> {
  const cfg = first.values;
  const filters = recipeFilters(cfg, recipe);
  const [lo, hi] = range(cfg);
  const seed = baseSeed(cfg);
  const overrides: Partial<Config> = recipe === "max-goodput-under-slo"
    ? { goodput: goodputSlos(cfg) }
    : {};
  const plan = (c: number, index: number) =>
    planVariation(
      index,
      sweep.args as string[],
      { concurrency: c },
      `concurrency_${c}`,
      seed,
      io,
      first,
      {
        ...overrides,
        concurrency: c,
      },
    );
  // Both ends of the range are planned before the first run: a load the plan refuses stops here.
  const ends = new Map([[lo, await plan(lo, 0)], [hi, await plan(hi, 0)]]);
  const v0 = ends.get(lo)!;
  checkStreaming(v0, filters, recipe, cfg);
  const base = join(cfg.artifactDir, baseName(v0, "search"));
  const waited = await awaitModel(v0.input);
  if (waited !== null) return waited;
  const level = cfg.confidenceLevel;
  const planner = new MonotonicSearch(lo, hi, cfg.searchMaxIterations ?? 20);
  const sweepId = newBenchmarkId();
  const objective = OBJECTIVE[recipe];
  const iterations: SearchIteration[] = [];
  const combos: Combination[] = [];
  let runCount = 0;
  let stopped = false;
  let code: number = ExitCode.OK;
  const history = () =>
    searchSummary({
      recipe,
      seed,
      lo,
      hi,
      maxIterations: planner.maxIterations,
      filters,
      objective,
      iterations,
      reason: stopped ? null : planner.reason,
      runCount,
      runsPerPoint: cfg.numProfileRuns,
    });
  for (let value = planner.next(); value !== null; value = planner.next()) {
    const iter = planner.iterations + 1;
    if (iter > 1 && !await cooldown(cfg.parameterSweepCooldownSeconds, io)) {
      stopped = true;
      break;
    }
    const v = ends.get(value) ?? await plan(value, iter - 1);
    const runs: RunRef[] = [];
    let verdict: Judgement | null = null;
    const maxRuns = cfg.numProfileRuns;
    for (let k = 1; k <= maxRuns; k++) {
      if (k > 1 && !await cooldown(cfg.profileRunCooldownSeconds, io)) {
        stopped = true;
        break;
      }
      io.stderr(`search ${iter}: concurrency ${value}, run ${k}\n`);
      const r = await runVariation({ ...v, index: iter - 1 }, {
        dir: searchRunDir(base, iter, k),
        label: `run_${pad4(k)}`,
        seed: trialSeed(v, k),
        warmup: k === 1 || !cfg.profileRunDisableWarmupAfterFirst,
        sweepId,
        trial: k,
      }, io);
      runs.push(r.ref);
      runCount++;
      if (r.code !== ExitCode.OK && code === ExitCode.OK) code = r.code;
      if (r.interrupted) {
        stopped = true;
        break;
      }
      // Two runs at least give an interval (when more are allowed); a clear verdict needs no more.
      if (k < Math.min(2, maxRuns)) continue;
      verdict = judge(runs, filters, level, k === maxRuns);
      if (verdict.verdict !== "unsure") break;
    }
    if (stopped || verdict === null) break;
    const pass = verdict.verdict === "pass";
    const odd = planner.tell(value, pass);
    const agg = confidenceAggregate(runs, { level, planned: maxRuns });
    const aggDir = join(base, `search_iter_${pad4(iter)}`, "aggregate");
    await writeJson(join(aggDir, AGGREGATE_JSON), agg);
    await writeText(join(aggDir, AGGREGATE_CSV), aggregateCsv(agg));
    const metrics = agg.metrics as Record<string, { mean: number }>;
    iterations.push({
      value,
      runs: runs.length,
      feasible: pass,
      odd,
      objective: metrics[`${objective.metric}_${objective.stat}`]?.mean ?? null,
      judgement: verdict,
    });
    combos.push({ parameters: { concurrency: value }, runs });
    await writeJson(join(base, SEARCH_HISTORY), history());
    io.stderr(
      `search ${iter}: concurrency ${value} ${
        pass ? "meets" : "breaks"
      } the SLA (${runs.length} run${runs.length === 1 ? "" : "s"})\n`,
    );
  }
  const summary = history();
  await writeJson(join(base, SEARCH_HISTORY), summary);
  if (combos.length > 0) {
    const params = [{ name: "concurrency", values: combos.map((c) => c.parameters.concurrency) }];
    const agg = sweepAggregate(combos, params, level);
    const dir = join(base, "sweep_aggregate");
    await writeJson(join(dir, SWEEP_JSON), agg);
    await writeText(join(dir, SWEEP_CSV), sweepCsv(agg));
  }
  if (cfg.sweepTable) io.stdout((await import("../sweep/history.ts")).searchTable(summary));
  io.stderr(`artifacts: ${base}\n`);
  await sweepReport(base, cfg, io);
  return stopped ? signalExitCode(stopSignal(io)) : code;
}

/** A sweep over `--concurrency` values the recipe chose, with the command's other flags. */
function concurrencySweep(sweep: SweepArgs, values: readonly number[]): SweepArgs {
  const args = [
    ...variationArgs(sweep, sweep.axes.map(() => 0)),
    "--concurrency",
    values.join(","),
  ];
  return findSweep(args, table);
}

/** `concurrency-ramp`: a log grid, then the first load whose p99 latency degraded. */
async function concurrencyRamp(
  sweep: SweepArgs,
  first: Parsed<typeof profileOptions>,
  io: Io,
): Promise<number> {
  const cfg = first.values;
  const [lo, hi] = range(cfg);
  const grid = logGrid(lo, hi, cfg.concurrencySteps ?? 8);
  const end = await runSweep(concurrencySweep(sweep, grid), first, io, {
    name: "concurrency-ramp",
  });
  if (end.sweep === null) return end.code;
  const threshold = cfg.degradationThreshold ?? 0.2;
  const points = perCombination(end.sweep).map((p) => ({
    concurrency: p.parameters.concurrency as number,
    value: p.metrics.request_latency_p99?.mean ?? null,
  }));
  const baseline = points.find((p) => p.value !== null) ?? null;
  const knee = baseline === null
    ? null
    : points.find((p) => p.value !== null && p.value > baseline.value! * (1 + threshold)) ?? null;
  const out = {
    metric: "request_latency",
    stat: "p99",
    degradation_threshold: threshold,
    baseline_concurrency: baseline?.concurrency ?? null,
    baseline_value: baseline?.value ?? null,
    knee_concurrency: knee?.concurrency ?? null,
    points,
  };
  await writeJson(join(sweepAggregateDir(end.layout), "degradation_knee.json"), out);
  io.stdout(
    knee === null
      ? `no knee: p99 request latency stayed within ${
        threshold * 100
      }% of its value at concurrency ${baseline?.concurrency}\n`
      : `knee: p99 request latency exceeds ${
        (1 + threshold).toFixed(2)
      }× its value at concurrency ${baseline?.concurrency} first at concurrency ${knee.concurrency}\n`,
  );
  return end.code;
}

/** `max-concurrency-under-sla --search-style grid`: every log-spaced load, then the boundary. */
async function slaGrid(
  sweep: SweepArgs,
  first: Parsed<typeof profileOptions>,
  io: Io,
): Promise<number> {
  const cfg = first.values;
  const filters = recipeFilters(cfg, "max-concurrency-under-sla");
  const [lo, hi] = range(cfg);
  const grid = logGrid(lo, hi, cfg.concurrencySteps ?? 8);
  const end = await runSweep(concurrencySweep(sweep, grid), first, io, { name: "sla-grid" });
  if (end.sweep === null) return end.code;
  const points = perCombination(end.sweep).map((p) => {
    const breach = filters.find((f) => !meetsMean(f, p.metrics));
    return {
      concurrency: p.parameters.concurrency as number,
      feasible: breach === undefined,
      breach: breach ?? null,
    };
  });
  const fails = points.filter((p) => !p.feasible).map((p) => p.concurrency);
  const infeasibleMin = fails.length ? Math.min(...fails) : null;
  const passes = points.filter((p) =>
    p.feasible && (infeasibleMin === null || p.concurrency < infeasibleMin)
  );
  const feasibleMax = passes.length ? Math.max(...passes.map((p) => p.concurrency)) : null;
  await writeJson(join(sweepAggregateDir(end.layout), "sla_breach.json"), {
    sla_filters: filters,
    feasible_max: feasibleMax,
    infeasible_min: infeasibleMin,
    points,
  });
  io.stdout(`largest concurrency of the grid meeting the SLA: ${feasibleMax ?? "none"}\n`);
  return end.code;
}

/** Whether a combination's mean meets a filter (`request_error_rate` as a share). */
function meetsMean(f: SlaFilter, metrics: Record<string, { mean: number } | undefined>): boolean {
  const m = metrics[`${f.metric_tag}_${f.stat}`]?.mean;
  if (m === undefined) return false;
  const v = f.metric_tag === "request_error_rate" ? m / 100 : m;
  return f.op === "lt"
    ? v < f.threshold
    : f.op === "le"
    ? v <= f.threshold
    : f.op === "gt"
    ? v > f.threshold
    : v >= f.threshold;
}

type PerCombination = {
  parameters: Record<string, number | string>;
  metrics: Record<string, { mean: number } | undefined>;
};

function perCombination(sweep: Record<string, unknown>): PerCombination[] {
  return sweep.per_combination_metrics as PerCombination[];
}

/**
 * `pareto-sweep`: each ISL/OSL pair (`--isl-osl-pairs`, default 128/128) at each concurrency
 * (`--concurrency` list, default 1,4,16,64,256), then the front of (TTFT p95 down, output
 * token throughput up) across all cells in `pareto_sweep.json`.
 */
async function paretoSweep(
  sweep: SweepArgs,
  first: Parsed<typeof profileOptions>,
  io: Io,
): Promise<number> {
  const cfg = first.values;
  const other = sweep.axes.find((a) => a.key !== "concurrency");
  if (other) {
    throw new ConfigError(
      `--search-recipe pareto-sweep sets --${other.flag} from --isl-osl-pairs: give no list`,
    );
  }
  const conc = sweep.axes.find((a) => a.key === "concurrency")?.values ??
    ["1", "4", "16", "64", "256"];
  const pairs = (cfg.islOslPairs ?? "128/128").split(",").map((p) =>
    p.split("/").map((x) => x.trim())
  );
  const seen = new Set(pairs.map((p) => p.join("/")));
  if (seen.size < pairs.length) throw new ConfigError("--isl-osl-pairs: a pair is given twice");
  if (pairs.length < 2 && conc.length < 2) {
    throw new ConfigError(
      "--search-recipe pareto-sweep: a Pareto sweep of one point means nothing; give 2 pairs or 2 concurrencies",
    );
  }
  if (!cfg.streaming) {
    throw new ConfigError(
      "--search-recipe pareto-sweep needs --streaming (output_token_throughput and TTFT)",
    );
  }
  const args = [
    ...variationArgs(sweep, sweep.axes.map(() => 0)),
    "--isl",
    pairs.map((p) => p[0]).join(","),
    "--osl",
    pairs.map((p) => p[1]).join(","),
    "--concurrency",
    conc.join(","),
  ];
  const s2 = findSweep(args, table);
  const picks = pairs.flatMap((_, i) => conc.map((_, j) => [i, i, j]));
  const end = await runSweep(s2, first, io, { picks, name: "pareto-sweep" });
  if (end.sweep === null) return end.code;
  const cells = perCombination(end.sweep).map((p) => ({
    isl: p.parameters.isl,
    osl: p.parameters.osl,
    concurrency: p.parameters.concurrency,
    x: p.metrics.time_to_first_token_p95?.mean ?? null,
    y: p.metrics.output_token_throughput_avg?.mean ?? null,
    pareto_optimal: false,
  }));
  for (const c of cells) {
    c.pareto_optimal = c.x !== null && c.y !== null &&
      !cells.some((o) =>
        o !== c && o.x !== null && o.y !== null && o.x <= c.x! && o.y >= c.y! &&
        (o.x < c.x! || o.y > c.y!)
      );
  }
  await writeJson(join(sweepAggregateDir(end.layout), "pareto_sweep.json"), {
    x_metric: "time_to_first_token",
    x_stat: "p95",
    y_metric: "output_token_throughput",
    y_stat: "avg",
    cells,
  });
  const front = cells.filter((c) => c.pareto_optimal).map((c) =>
    `${c.isl}/${c.osl}@${c.concurrency}`
  );
  io.stdout(`Pareto front (TTFT p95 vs output tokens/s): ${front.join(", ") || "none"}\n`);
  return end.code;
}
