/**
 * AIPerf's artifact layout of sweeps and repeated runs (its "Artifact Directory Layout
 * Reference"): where each run, each configuration's aggregate and the sweep aggregate go.
 */

import { join } from "node:path";

/** How the runs of a command are arranged. */
export interface Layout {
  /** The base directory: `<artifact-dir>/<name>`. */
  base: string;
  /** Whether the command sweeps parameters. */
  sweep: boolean;
  /** Runs of each configuration (`--num-profile-runs`). */
  trials: number;
  /** `--parameter-sweep-mode`: the order of runs, and so the layout. */
  mode: "repeated" | "independent";
}

/** `0001`. */
export function pad4(n: number): string {
  return String(n).padStart(4, "0");
}

/** The label of run `trial` (from 1): `run_0001` without a sweep, `trial_0001` with one. */
export function runLabel(layout: Layout, trial: number): string {
  return `${layout.sweep ? "trial" : "run"}_${pad4(trial)}`;
}

/** The directory of one run of the variation in `dir` (ignored without a sweep). */
export function runDir(layout: Layout, dir: string, trial: number): string {
  const { base } = layout;
  if (!layout.sweep) {
    return layout.trials > 1 ? join(base, "profile_runs", runLabel(layout, trial)) : base;
  }
  if (layout.trials === 1) return join(base, dir);
  return layout.mode === "repeated"
    ? join(base, "profile_runs", runLabel(layout, trial), dir)
    : join(base, dir, "profile_runs", runLabel(layout, trial));
}

/** Where the confidence aggregate of the variation in `dir` goes. */
export function aggregateDir(layout: Layout, dir: string): string {
  if (!layout.sweep) return join(layout.base, "aggregate");
  return layout.mode === "repeated"
    ? join(layout.base, "aggregate", dir)
    : join(layout.base, dir, "aggregate");
}

/** Where the sweep aggregate goes. */
export function sweepAggregateDir(layout: Layout): string {
  return layout.trials > 1 && layout.mode === "repeated"
    ? join(layout.base, "aggregate", "sweep_aggregate")
    : join(layout.base, "sweep_aggregate");
}

/** A search's run `run` (from 1) at iteration `iteration` (from 1). */
export function searchRunDir(base: string, iteration: number, run: number): string {
  return join(base, `search_iter_${pad4(iteration)}`, "profile_runs", `run_${pad4(run)}`);
}

/** A configuration's confidence aggregate (AIPerf's file name). */
export const AGGREGATE_JSON = "profile_export_aiperf_aggregate.json";
/** The same aggregate as CSV. */
export const AGGREGATE_CSV = "profile_export_aiperf_aggregate.csv";
/** Every request of a configuration's runs pooled (with adaptive runs and records). */
export const COLLATED_JSON = "profile_export_aiperf_collated.json";
/** The sweep aggregate across configurations. */
export const SWEEP_JSON = "profile_export_aiperf_sweep.json";
/** The same sweep aggregate as CSV. */
export const SWEEP_CSV = "profile_export_aiperf_sweep.csv";
/** A search's trajectory, beside its sweep aggregate. */
export const SEARCH_HISTORY = "search_history.json";
