/** AIPerf's Multi-Run, sweep and search options of `profile`. */

import { compat, type OptionKind } from "./spec.ts";

const RUNS = "several profile runs (confidence statistics) are not built yet";
const SWEEP = "parameter sweeps are not built yet";
const SEARCH = "adaptive search is not built yet";

function sw<T>(why: string, flag: string, kind: OptionKind, def: T | undefined, help: string) {
  return compat<T>({ flag, kind, default: def, group: "Multi-Run", help, status: "not-yet", why });
}

/**
 * AIPerf's Multi-Run, sweep and search options: one run is what reprise does, so their defaults
 * (`--num-profile-runs 1`) are accepted and anything asking for more is refused before the run.
 * Keys are config field names.
 */
export const sweepOptions = {
  numProfileRuns: sw(RUNS, "num-profile-runs", "number", 1, "Profile runs (1-10)."),
  profileRunCooldownSeconds: sw(RUNS, "profile-run-cooldown-seconds", "number", 0, "Pause."),
  confidenceLevel: sw(RUNS, "confidence-level", "number", 0.95, "Confidence interval level."),
  profileRunDisableWarmupAfterFirst: sw(
    RUNS,
    "profile-run-disable-warmup-after-first",
    "boolean",
    true,
    "Warm up before the first run only.",
  ),
  setConsistentSeed: sw(RUNS, "set-consistent-seed", "boolean", true, "Same seed every run."),
  varySeedPerTrial: sw(RUNS, "vary-seed-per-trial", "boolean", false, "New seed per trial."),
  convergenceMetric: sw(RUNS, "convergence-metric", "string", undefined, "Stop-early metric."),
  convergenceStat: sw(RUNS, "convergence-stat", "string", "avg", "Statistic watched."),
  convergenceThreshold: sw(RUNS, "convergence-threshold", "number", undefined, "Stop threshold."),
  convergenceMode: compat<string>({
    flag: "convergence-mode",
    kind: "string",
    values: ["ci_width", "cv", "distribution"],
    group: "Multi-Run",
    help: "How convergence is judged.",
    status: "not-yet",
    why: RUNS,
  }),
  parameterSweepCooldownSeconds: sw(
    SWEEP,
    "parameter-sweep-cooldown-seconds",
    "number",
    0,
    "Pause between sweep values.",
  ),
  parameterSweepSameSeed: sw(SWEEP, "parameter-sweep-same-seed", "boolean", false, "Same seed."),
  parameterSweepMode: compat<string>({
    flag: "parameter-sweep-mode",
    kind: "string",
    values: ["repeated", "independent"],
    default: "repeated",
    group: "Multi-Run",
    help: "How sweep values and runs interleave.",
    status: "not-yet",
    why: SWEEP,
  }),
  sweepType: compat<string>({
    flag: "sweep-type",
    kind: "string",
    values: ["grid", "zip"],
    default: "grid",
    group: "Multi-Run",
    help: "Grid or zip of the swept lists.",
    status: "not-yet",
    why: SWEEP,
  }),
  // `--no-sweep-table` is AIPerf's spelling; the table is shown by default.
  sweepTable: sw(SWEEP, "sweep-table", "boolean", true, "Show the sweep table."),
  variant: sw(SWEEP, "variant", "list", undefined, "A named variant of the config; repeatable."),
  searchSpace: sw(SEARCH, "search-space", "string", undefined, "Parameters searched."),
  searchMetric: sw(SEARCH, "search-metric", "string", undefined, "Metric optimized."),
  searchStat: sw(SEARCH, "search-stat", "string", undefined, "Statistic optimized."),
  searchDirection: sw(SEARCH, "search-direction", "string", undefined, "maximize or minimize."),
  searchMaxIterations: sw(SEARCH, "search-max-iterations", "number", undefined, "2-200."),
  searchInitialPoints: sw(SEARCH, "search-initial-points", "number", undefined, "Seed points."),
  searchRandomSeed: sw(SEARCH, "search-random-seed", "number", undefined, "Search seed."),
  searchPlanner: compat<string>({
    flag: "search-planner",
    kind: "string",
    values: ["bayesian", "monotonic_sla", "smooth_isotonic", "optuna"],
    group: "Multi-Run",
    help: "Search strategy.",
    status: "not-yet",
    why: SEARCH,
  }),
  optunaSampler: sw(SEARCH, "optuna-sampler", "string", undefined, "Optuna sampler."),
  optunaAcquisition: sw(SEARCH, "optuna-acquisition", "string", undefined, "Acquisition."),
  optunaTerminator: sw(SEARCH, "optuna-terminator", "string", undefined, "Terminator."),
  searchPercentilePooling: sw(SEARCH, "search-percentile-pooling", "string", undefined, "Pooling."),
  boConstraintMode: sw(SEARCH, "bo-constraint-mode", "string", undefined, "Deprecated."),
  searchSla: sw(SEARCH, "search-sla", "list", undefined, "SLA filters."),
  searchSlaTier: sw(SEARCH, "search-sla-tier", "string", undefined, "SLA tier."),
  ttftSlaMs: sw(SEARCH, "ttft-sla-ms", "number", undefined, "TTFT SLA (ms)."),
  itlSlaMs: sw(SEARCH, "itl-sla-ms", "number", undefined, "ITL SLA (ms)."),
  tpotSlaMs: sw(SEARCH, "tpot-sla-ms", "number", undefined, "TPOT SLA (ms)."),
  e2eSlaMs: sw(SEARCH, "e2e-sla-ms", "number", undefined, "End-to-end SLA (ms)."),
  errorRateSla: sw(SEARCH, "error-rate-sla", "number", undefined, "Error-rate SLA."),
  sloAttainmentFraction: sw(SEARCH, "slo-attainment-fraction", "number", undefined, "Fraction."),
  searchRecipe: sw(SEARCH, "search-recipe", "string", undefined, "A search preset."),
  searchStyle: sw(SEARCH, "search-style", "string", undefined, "Preset style."),
  islOslPairs: sw(SEARCH, "isl-osl-pairs", "list", undefined, "ISL,OSL pairs searched."),
  degradationThreshold: sw(SEARCH, "degradation-threshold", "number", undefined, "Threshold."),
  degradationMetricTag: sw(SEARCH, "degradation-metric-tag", "string", undefined, "Metric."),
  degradationStat: sw(SEARCH, "degradation-stat", "string", undefined, "Statistic."),
  islMin: sw(SEARCH, "isl-min", "number", 256, "Smallest ISL searched."),
  islMax: sw(SEARCH, "isl-max", "number", 32768, "Largest ISL searched."),
  islSteps: sw(SEARCH, "isl-steps", "number", 8, "ISL steps."),
  concurrencyMin: sw(SEARCH, "concurrency-min", "number", undefined, "Smallest concurrency."),
  concurrencyMax: sw(SEARCH, "concurrency-max", "number", undefined, "Largest concurrency."),
  concurrencySteps: sw(SEARCH, "concurrency-steps", "number", undefined, "Concurrency steps."),
  oslMin: sw(SEARCH, "osl-min", "number", 64, "Smallest OSL searched."),
  oslMax: sw(SEARCH, "osl-max", "number", 1024, "Largest OSL searched."),
  oslSteps: sw(SEARCH, "osl-steps", "number", 4, "OSL steps."),
} as const;
