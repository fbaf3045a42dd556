/**
 * `search_history.json` (AIPerf's schema: config, iterations, best_trials, boundary_summary,
 * recipe, convergence_reason) of a monotonic SLA search, with what reprise adds: each probe's
 * runs and SLA readings, the runs the search took, and the runs a grid of the same resolution
 * would have taken. And the search's table, as printed.
 */

import type { Judgement, SlaFilter } from "./search.ts";

/** The axis searched, as AIPerf names it. */
export const SEARCH_PATH = "phases.profiling.concurrency";

/** One probe of the search. */
export interface SearchIteration {
  value: number;
  runs: number;
  feasible: boolean;
  /** The verdict broke monotonicity. */
  odd: boolean;
  /** The recipe's objective (mean across the probe's runs); null when no run had it. */
  objective: number | null;
  judgement: Judgement;
}

/** What the history is built from. */
export interface SearchInput {
  recipe: string;
  seed: number;
  lo: number;
  hi: number;
  maxIterations: number;
  filters: SlaFilter[];
  objective: { metric: string; stat: string };
  iterations: readonly SearchIteration[];
  /** Why the search stopped; null while it runs, or when it was interrupted. */
  reason: string | null;
  runCount: number;
  runsPerPoint: number;
}

/** The highest load that met the SLA below the lowest that did not, and that lowest. */
export function boundary(iterations: readonly SearchIteration[]): {
  feasibleMax: number | null;
  infeasibleMin: number | null;
} {
  const fails = iterations.filter((i) => !i.feasible).map((i) => i.value);
  const infeasibleMin = fails.length > 0 ? Math.min(...fails) : null;
  const passes = iterations.filter((i) =>
    i.feasible && (infeasibleMin === null || i.value < infeasibleMin)
  );
  return {
    feasibleMax: passes.length > 0 ? Math.max(...passes.map((i) => i.value)) : null,
    infeasibleMin,
  };
}

/** The `search_history.json` object. */
export function searchSummary(s: SearchInput): Record<string, unknown> {
  const { feasibleMax, infeasibleMin } = boundary(s.iterations);
  const idx = (v: number | null) => s.iterations.findIndex((i) => i.value === v);
  const scored = s.iterations.map((it, i) => ({ it, i })).filter((x) => x.it.objective !== null);
  const feasible = scored.filter((x) => x.it.feasible);
  let best: { it: SearchIteration; i: number } | undefined;
  if (s.recipe === "max-concurrency-under-sla") {
    best = feasibleMax === null
      ? undefined
      : { it: s.iterations[idx(feasibleMax)], i: idx(feasibleMax) };
  } else {
    const pool = feasible.length > 0 ? feasible : scored;
    best = pool.reduce<typeof best>(
      (a, x) => (a === undefined || x.it.objective! > a.it.objective! ? x : a),
      undefined,
    );
  }
  const breachAt = infeasibleMin === null
    ? null
    : s.iterations[idx(infeasibleMin)].judgement.breach;
  const gridPoints = s.hi - s.lo + 1;
  return {
    config: {
      planner: "monotonic_sla",
      objectives: [{ ...s.objective, direction: "MAXIMIZE", threshold: null }],
      outcome_constraints: [],
      max_iterations: s.maxIterations,
      n_initial_points: 0,
      random_seed: s.seed,
      improvement_patience: 0,
      plateau_window: 0,
      plateau_threshold: 0,
      search_space: [{ path: SEARCH_PATH, lo: s.lo, hi: s.hi, kind: "int" }],
      sla_filters: s.filters,
    },
    iterations: s.iterations.map((it, i) => ({
      iteration_idx: i,
      variation_values: { [SEARCH_PATH]: it.value },
      objective_values: it.objective === null ? null : [it.objective],
      feasible: it.feasible,
      non_monotonic_warning: it.odd,
      runs: it.runs,
      sla_readings: it.judgement.readings.map((r) => ({
        metric_tag: r.filter.metric_tag,
        stat: r.filter.stat,
        threshold: r.filter.threshold,
        mean: r.stat?.mean ?? null,
        ci_low: r.stat?.ci_low ?? null,
        ci_high: r.stat?.ci_high ?? null,
        verdict: r.verdict,
      })),
    })),
    best_trials: best === undefined ? null : [{
      iteration_idx: best.i,
      objective_values: best.it.objective === null ? null : [best.it.objective],
      variation_values: { [SEARCH_PATH]: best.it.value },
      feasible: best.it.feasible,
      feasible_count: feasible.length,
      pareto_rank: 0,
    }],
    boundary_summary: s.iterations.length === 0 ? null : {
      swept_dim_path: SEARCH_PATH,
      feasible_max: feasibleMax === null ? null : {
        value: feasibleMax,
        iteration_idx: idx(feasibleMax),
        objective_value: s.iterations[idx(feasibleMax)].objective,
      },
      infeasible_min: infeasibleMin === null ? null : {
        value: infeasibleMin,
        iteration_idx: idx(infeasibleMin),
        first_breach: breachAt,
      },
    },
    recipe: s.recipe,
    convergence_reason: s.reason,
    run_count: s.runCount,
    grid_equivalent: {
      description: `a grid of every concurrency from ${s.lo} to ${s.hi} (the search's resolution)`,
      points: gridPoints,
      runs: gridPoints * s.runsPerPoint,
    },
  };
}

/** The search's table and answer, as printed after it. */
export function searchTable(history: Record<string, unknown>): string {
  type It = {
    variation_values: Record<string, number>;
    runs: number;
    feasible: boolean;
    objective_values: number[] | null;
    sla_readings: {
      metric_tag: string;
      stat: string;
      threshold: number;
      mean: number | null;
      ci_low: number | null;
      ci_high: number | null;
    }[];
  };
  const its = history.iterations as It[];
  const filters = its[0]?.sla_readings.map((r) => `${r.metric_tag} ${r.stat} (< ${r.threshold})`) ??
    [];
  const head = ["probe", "concurrency", "runs", "SLA", ...filters, "objective"];
  const fmt = (v: number | null) =>
    v === null ? "-" : Math.abs(v) >= 100 ? v.toFixed(1) : v.toFixed(2);
  const body = its.map((it, i) => [
    String(i + 1),
    String(it.variation_values[SEARCH_PATH]),
    String(it.runs),
    it.feasible ? "meets" : "breaks",
    ...it.sla_readings.map((r) =>
      r.mean === null
        ? "-"
        : it.runs > 1 && r.ci_low !== null && r.ci_high !== null
        ? `${fmt(r.mean)} ± ${fmt((r.ci_high - r.ci_low) / 2)}`
        : fmt(r.mean)
    ),
    fmt(it.objective_values?.[0] ?? null),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i])).join("  ");
  const out = [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)];
  const b = history.boundary_summary as {
    feasible_max: { value: number } | null;
    infeasible_min: { value: number } | null;
  } | null;
  const grid = history.grid_equivalent as { points: number; runs: number };
  const answer = b?.feasible_max
    ? `largest concurrency meeting the SLA: ${b.feasible_max.value}` +
      (b.infeasible_min
        ? ` (${b.infeasible_min.value} breaks it)`
        : " (no load in the range breaks it)")
    : "no concurrency in the range meets the SLA";
  out.push(
    "",
    answer,
    `${its.length} probes, ${history.run_count} runs (${
      history.convergence_reason ?? "stopped"
    }); ` +
      `a grid of the same resolution: ${grid.points} points, ${grid.runs} runs`,
  );
  return out.join("\n") + "\n";
}
