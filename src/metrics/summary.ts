/** The shape of aggregated results, shared by the aggregator, the exports and the API. */

import type { MetricFlag, MetricKind } from "./definitions.ts";

/** Statistics of one metric in display units. Record metrics have all; scalars only `avg`. */
export interface MetricStats {
  avg?: number;
  min?: number;
  max?: number;
  p1?: number;
  p5?: number;
  p10?: number;
  p25?: number;
  p50?: number;
  p75?: number;
  p90?: number;
  p95?: number;
  p99?: number;
  /** Population standard deviation. */
  std?: number;
  /** Values that contributed (record metrics only). */
  count?: number;
  /** Sum of the values (record metrics only). */
  sum?: number;
}

/** One metric's result, with what a report needs to name and place it. */
export interface MetricResult extends MetricStats {
  tag: string;
  header: string;
  /** Display unit of every statistic (`ms`, `tokens`, `requests/sec`, …). */
  unit: string;
  kind: MetricKind;
  flags: readonly MetricFlag[];
}

/** A phase's metrics, in display order. */
export interface Summary {
  metrics: MetricResult[];
}

/** The stats block keys in AIPerf's export order. */
export const STAT_KEYS = [
  "avg",
  "min",
  "max",
  "p1",
  "p5",
  "p10",
  "p25",
  "p50",
  "p75",
  "p90",
  "p95",
  "p99",
  "std",
  "count",
  "sum",
] as const satisfies readonly (keyof MetricStats)[];

/** True for a metric with a distribution (percentiles), false for a scalar. */
export function hasDistribution(m: MetricStats): boolean {
  return m.p50 !== undefined;
}
