/**
 * Statistics across repeated runs, as AIPerf's confidence aggregate computes them: mean, sample
 * standard deviation (n − 1), CV, standard error and the Student-t confidence interval.
 */

import jstat from "jstat";

/** The t distribution's two-sided critical value for `level` (0.95) with `df` degrees of freedom. */
export function tCritical(level: number, df: number): number {
  if (df < 1) return NaN;
  return (jstat as { studentt: { inv(p: number, dof: number): number } }).studentt.inv(
    1 - (1 - level) / 2,
    df,
  );
}

/** One metric statistic across runs (`request_throughput_avg`), in AIPerf's field names. */
export interface ConfidenceStat {
  mean: number;
  std: number;
  min: number;
  max: number;
  /** std / |mean|; null when the mean is 0 (AIPerf's `inf`, which JSON cannot hold). */
  cv: number | null;
  se: number;
  ci_low: number;
  ci_high: number;
  /** null with a single run: there is no interval. */
  t_critical: number | null;
  unit: string;
}

/**
 * The confidence statistic of `values` (one per successful run) at `level`. With one value the
 * interval collapses to the mean (std 0), as AIPerf's degraded single-run mode reports it.
 */
export function confidenceStat(
  values: readonly number[],
  level: number,
  unit: string,
): ConfidenceStat {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const std = n > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1)) : 0;
  const se = std / Math.sqrt(n);
  const t = n > 1 ? tCritical(level, n - 1) : null;
  const half = t === null ? 0 : t * se;
  return {
    mean,
    std,
    min: Math.min(...values),
    max: Math.max(...values),
    cv: mean === 0 ? (std === 0 ? 0 : null) : std / Math.abs(mean),
    se,
    ci_low: mean - half,
    ci_high: mean + half,
    t_critical: t,
    unit,
  };
}
