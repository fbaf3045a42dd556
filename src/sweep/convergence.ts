/**
 * Adaptive stopping of repeated runs (`--convergence-metric`): once the watched statistic's
 * interval across the runs so far is tight enough, more runs would not change the answer.
 */

import { metricValues, type RunRef } from "./aggregate.ts";
import { ksTest, recordValues } from "./records.ts";
import { confidenceStat } from "./stats.ts";

/** The criterion: `{metric}_{stat}` under `threshold` by `mode`. */
export interface Criterion {
  metric: string;
  stat: string;
  mode: string;
  threshold: number;
}

/**
 * Whether the successful runs meet the criterion: `ci_width`, the confidence interval's width
 * over |mean|, or `cv`, std over |mean|, below the threshold. A metric no run has never
 * converges; a mean of 0 with no spread has.
 */
export function converged(runs: readonly RunRef[], c: Criterion, level: number): boolean {
  const key = `${c.metric}_${c.stat}`;
  const values: number[] = [];
  for (const r of runs) {
    if (r.summary === null || r.error !== undefined) continue;
    const v = metricValues(r.summary).get(key);
    if (v !== undefined) values.push(v.value);
  }
  if (values.length < 2) return false;
  const s = confidenceStat(values, level, "");
  const spread = c.mode === "cv" ? s.std : s.ci_high - s.ci_low;
  if (s.mean === 0) return spread === 0;
  return spread / Math.abs(s.mean) < c.threshold;
}

/**
 * The `distribution` mode: the latest run's per-request values of the metric against those of
 * the runs before it, by a two-sample Kolmogorov–Smirnov test; converged when its p-value is
 * above the threshold (a higher threshold is stricter, as in AIPerf).
 */
export async function convergedDistribution(
  runs: readonly RunRef[],
  c: Criterion,
): Promise<boolean> {
  const ok = runs.filter((r) => r.summary !== null && r.error === undefined && r.records);
  if (ok.length < 2) return false;
  const values = await Promise.all(
    ok.map(async (r) => (await recordValues(r.records!)).get(c.metric) ?? []),
  );
  const latest = values[values.length - 1];
  const before = values.slice(0, -1).flat();
  if (latest.length === 0 || before.length === 0) return false;
  return ksTest(latest, before).p > c.threshold;
}
