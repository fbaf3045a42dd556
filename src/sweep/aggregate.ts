/**
 * AIPerf's multi-run aggregates from the per-run summaries: the confidence aggregate of one
 * configuration (`profile_export_aiperf_aggregate.{json,csv}`) and the sweep aggregate across
 * configurations (`profile_export_aiperf_sweep.{json,csv}`, with the best configurations and the
 * Pareto front). Everything here is computed from the runs' `profile_export_aiperf.json`, so a
 * reader can check every number against the files beside it.
 */

import { type ConfidenceStat, confidenceStat } from "./stats.ts";

/** A run's parsed `profile_export_aiperf.json`. */
export type RunSummary = Record<string, unknown>;

/** One run of a configuration: its label (`run_0001`), and its summary or why it failed. */
export interface RunRef {
  label: string;
  /** Null when the run failed before a summary was written. */
  summary: RunSummary | null;
  /** Why the run failed (its error line); absent when it succeeded. */
  error?: string;
  /** Its per-request records file (`profile_export.jsonl`), when it wrote one. */
  records?: string;
}

/** A parameter value of a sweep: a number, or the text given (`128/64`). */
export type ParamValue = number | string;

/**
 * The statistics of a summary, keyed as AIPerf's aggregates key them: `{tag}_{stat}`
 * (`request_throughput_avg`, `time_to_first_token_p99`), each with its metric's unit.
 */
export function metricValues(summary: RunSummary): Map<string, { value: number; unit: string }> {
  const out = new Map<string, { value: number; unit: string }>();
  for (const [tag, block] of Object.entries(summary)) {
    if (block === null || typeof block !== "object" || Array.isArray(block)) continue;
    const b = block as Record<string, unknown>;
    if (typeof b.unit !== "string") continue;
    for (const [stat, v] of Object.entries(b)) {
      if (stat === "unit" || typeof v !== "number" || !Number.isFinite(v)) continue;
      out.set(`${tag}_${stat}`, { value: v, unit: b.unit });
    }
  }
  return out;
}

/** A run counts when it wrote a summary and was not cancelled. */
function succeeded(r: RunRef): r is RunRef & { summary: RunSummary } {
  return r.summary !== null && r.error === undefined;
}

/**
 * Every metric statistic across the successful runs: `{tag}_{stat}` → its confidence statistic,
 * over the runs that have it. Keys in the order the first run lists them.
 */
export function aggregateMetrics(
  runs: readonly RunRef[],
  level: number,
): Record<string, ConfidenceStat> {
  const values = new Map<string, { unit: string; values: number[] }>();
  for (const r of runs) {
    if (!succeeded(r)) continue;
    for (const [key, { value, unit }] of metricValues(r.summary)) {
      const entry = values.get(key) ?? values.set(key, { unit, values: [] }).get(key)!;
      entry.values.push(value);
    }
  }
  const out: Record<string, ConfidenceStat> = {};
  for (const [key, { unit, values: v }] of values) out[key] = confidenceStat(v, level, unit);
  return out;
}

/** What the aggregate says about how the runs were decided (adaptive stopping). */
export interface ConvergenceNote {
  metric: string;
  stat: string;
  mode: string;
  threshold: number;
  converged: boolean;
}

/** AIPerf's `profile_export_aiperf_aggregate.json` of one configuration's runs. */
export function confidenceAggregate(
  runs: readonly RunRef[],
  opts: { level: number; planned: number; convergence?: ConvergenceNote },
): Record<string, unknown> {
  const ok = runs.filter(succeeded);
  const failed = runs.filter((r) => !succeeded(r)).map((r) => ({
    label: r.label,
    error: r.error ?? "no summary was written",
  }));
  return {
    metadata: {
      aggregation_type: "confidence",
      num_profile_runs: runs.length,
      num_successful_runs: ok.length,
      num_planned_runs: opts.planned,
      failed_runs: failed,
      confidence_level: opts.level,
      run_labels: ok.map((r) => r.label),
      ...(ok.length === 1 ? { single_run: true } : {}),
      ...(opts.convergence ? { convergence: opts.convergence } : {}),
    },
    metrics: aggregateMetrics(runs, opts.level),
  };
}

const AGG_FIELDS = [
  "mean",
  "std",
  "min",
  "max",
  "cv",
  "se",
  "ci_low",
  "ci_high",
  "t_critical",
] as const;

/** A CSV number: as JavaScript prints it (full precision), empty when absent. */
function num(v: number | null | undefined): string {
  return v === null || v === undefined ? "" : String(v);
}

/** `profile_export_aiperf_aggregate.csv`: one row per metric statistic, then the metadata. */
export function aggregateCsv(agg: Record<string, unknown>): string {
  const metrics = agg.metrics as Record<string, ConfidenceStat>;
  const meta = agg.metadata as Record<string, unknown>;
  const lines = [["Metric", ...AGG_FIELDS, "unit"].join(",")];
  for (const [key, s] of Object.entries(metrics)) {
    lines.push([key, ...AGG_FIELDS.map((f) => num(s[f])), csvField(s.unit)].join(","));
  }
  lines.push("", "Metadata", "Field,Value");
  lines.push(`Aggregation Type,${meta.aggregation_type}`);
  lines.push(`Number of Profile Runs,${meta.num_profile_runs}`);
  lines.push(`Number of Successful Runs,${meta.num_successful_runs}`);
  lines.push(`Confidence Level,${meta.confidence_level}`);
  return lines.join("\r\n") + "\r\n";
}

function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** One configuration of a sweep: its parameter values and its runs. */
export interface Combination {
  parameters: Record<string, ParamValue>;
  runs: RunRef[];
}

/** The statistic a sweep ranks throughput by, and the latency it trades against. */
const THROUGHPUT = "request_throughput_avg";
const LATENCY = ["time_to_first_token_p99", "request_latency_p99"];

/** The per-combination block: the confidence statistic without `se` and `t_critical`. */
function sweepStats(runs: readonly RunRef[], level: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(aggregateMetrics(runs, level))) {
    const { se: _se, t_critical: _t, ...rest } = s;
    out[key] = rest;
  }
  return out;
}

/**
 * Indices of the combinations no other one dominates on (throughput up, latency down): none has
 * both at least as high a throughput and at least as low a latency, one of them strictly.
 */
export function paretoFront(points: readonly { x: number; y: number }[]): number[] {
  const front: number[] = [];
  points.forEach((p, i) => {
    const dominated = points.some((q, j) =>
      j !== i && q.y >= p.y && q.x <= p.x && (q.y > p.y || q.x < p.x)
    );
    if (!dominated) front.push(i);
  });
  return front;
}

/** AIPerf's `profile_export_aiperf_sweep.json` over the combinations of a sweep. */
export function sweepAggregate(
  combos: readonly Combination[],
  parameters: readonly { name: string; values: ParamValue[] }[],
  level: number,
): Record<string, unknown> {
  const all = combos.flatMap((c) => c.runs);
  const ok = all.filter(succeeded);
  const per = combos.map((c) => ({
    parameters: c.parameters,
    num_successful_runs: c.runs.filter(succeeded).length,
    metrics: sweepStats(c.runs, level),
  }));
  const mean = (m: Record<string, unknown>, key: string) =>
    (m[key] as { mean?: number } | undefined)?.mean;
  const latencyKey = LATENCY.find((k) => per.some((p) => mean(p.metrics, k) !== undefined));
  const best: Record<string, unknown> = {};
  const pick = (key: string, better: (a: number, b: number) => boolean) => {
    let at = -1;
    per.forEach((p, i) => {
      const v = mean(p.metrics, key);
      if (v !== undefined && (at < 0 || better(v, mean(per[at].metrics, key)!))) at = i;
    });
    if (at < 0) return undefined;
    const unit = (per[at].metrics[key] as { unit: string }).unit;
    return { parameters: per[at].parameters, metric: mean(per[at].metrics, key), unit };
  };
  const bt = pick(THROUGHPUT, (a, b) => a > b);
  if (bt) best.best_throughput = bt;
  const bl = latencyKey ? pick(latencyKey, (a, b) => a < b) : undefined;
  if (bl) best.best_latency_p99 = bl;
  const scored = per.map((p, i) => ({
    i,
    y: mean(p.metrics, THROUGHPUT),
    x: latencyKey ? mean(p.metrics, latencyKey) : undefined,
  })).filter((p) => p.x !== undefined && p.y !== undefined) as {
    i: number;
    x: number;
    y: number;
  }[];
  const front = paretoFront(scored).map((k) => per[scored[k].i].parameters);
  return {
    aggregation_type: "sweep",
    num_profile_runs: all.length,
    num_successful_runs: ok.length,
    failed_runs: all.filter((r) => !succeeded(r)).map((r) => ({
      label: r.label,
      parameters: combos.find((c) => c.runs.includes(r))?.parameters,
      error: r.error ?? "no summary was written",
    })),
    metadata: {
      aggregation_type: "sweep",
      sweep_parameters: parameters,
      num_combinations: combos.length,
      confidence_level: level,
    },
    per_combination_metrics: per,
    best_configurations: best,
    pareto_optimal: front,
  };
}

const SWEEP_FIELDS = ["mean", "std", "min", "max", "cv"] as const;

/**
 * `profile_export_aiperf_sweep.csv`: the wide per-combination table (parameters, then
 * `{metric}_{mean,std,min,max,cv}`), the best configurations, the Pareto points and the metadata,
 * separated by blank lines.
 */
export function sweepCsv(sweep: Record<string, unknown>): string {
  const meta = sweep.metadata as { sweep_parameters: { name: string }[]; num_combinations: number };
  const names = meta.sweep_parameters.map((p) => p.name);
  const per = sweep.per_combination_metrics as {
    parameters: Record<string, ParamValue>;
    metrics: Record<string, Record<string, number | null>>;
  }[];
  const keys: string[] = [];
  for (const p of per) for (const k of Object.keys(p.metrics)) if (!keys.includes(k)) keys.push(k);
  const lines = [
    [...names, ...keys.flatMap((k) => SWEEP_FIELDS.map((f) => `${k}_${f}`))].join(","),
  ];
  for (const p of per) {
    lines.push([
      ...names.map((n) => csvField(String(p.parameters[n]))),
      ...keys.flatMap((k) => SWEEP_FIELDS.map((f) => num(p.metrics[k]?.[f]))),
    ].join(","));
  }
  const best = sweep.best_configurations as Record<
    string,
    { parameters: Record<string, ParamValue>; metric: number; unit: string }
  >;
  lines.push("", "Best Configurations", ["Configuration", ...names, "Metric", "Unit"].join(","));
  const titles: Record<string, string> = {
    best_throughput: "Best Throughput",
    best_latency_p99: "Best Latency P99",
  };
  for (const [k, b] of Object.entries(best)) {
    lines.push(
      [
        titles[k] ?? k,
        ...names.map((n) => csvField(String(b.parameters[n]))),
        num(b.metric),
        b.unit,
      ]
        .join(","),
    );
  }
  const front = sweep.pareto_optimal as Record<string, ParamValue>[];
  lines.push("", "Pareto Optimal Points");
  if (front.length === 0) lines.push("None");
  else {
    lines.push(names.join(","));
    for (const p of front) lines.push(names.map((n) => csvField(String(p[n]))).join(","));
  }
  lines.push("", "Metadata", "Field,Value", "Aggregation Type,sweep");
  lines.push(`Sweep Parameters,${csvField(names.join(","))}`);
  lines.push(`Number of Combinations,${meta.num_combinations}`);
  lines.push(`Number of Profile Runs,${sweep.num_profile_runs}`);
  lines.push(`Number of Successful Runs,${sweep.num_successful_runs}`);
  return lines.join("\r\n") + "\r\n";
}
