/** Two runs' summary metrics side by side, with the change from the first to the second. */

import type { RunData } from "./run_data.ts";
import { serverStats } from "./server_data.ts";

/** One metric statistic of both runs. */
export interface ComparisonRow {
  tag: string;
  unit: string;
  /** `avg`, `p50`, `p99`, … */
  stat: string;
  base: number | null;
  other: number | null;
  /** (other − base) / |base| × 100; null when either is missing or base is 0. */
  changePct: number | null;
  /** True when bigger is better for this metric, so a rise is an improvement. */
  largerIsBetter: boolean;
}

/** Statistics compared for metrics with a distribution. */
export const COMPARED_STATS = ["avg", "p50", "p90", "p99"] as const;

// Tags whose rise is good (throughputs, counts); everything else (latencies) is better lower.
const LARGER_IS_BETTER = /throughput|goodput|good_request|request_count$|^total_|_per_user$/;
// Bookkeeping values that mean nothing compared across runs.
const SKIP = new Set(["min_request_timestamp", "max_response_timestamp"]);

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/** The comparison of `other` against `base`, metric by metric in `base`'s order, then new ones. */
export function compareRuns(base: RunData, other: RunData): ComparisonRow[] {
  const tags = [...Object.keys(base.metrics)];
  for (const t of Object.keys(other.metrics)) if (!tags.includes(t)) tags.push(t);
  const rows: ComparisonRow[] = [];
  for (const tag of tags) {
    if (SKIP.has(tag)) continue;
    const a = base.metrics[tag];
    const b = other.metrics[tag];
    const block = a ?? b;
    const stats = "p50" in block ? COMPARED_STATS : (["avg"] as const);
    for (const stat of stats) {
      const x = num(a?.[stat]);
      const y = num(b?.[stat]);
      rows.push({
        tag,
        unit: block.unit,
        stat,
        base: x,
        other: y,
        changePct: x === null || y === null || x === 0 ? null : ((y - x) / Math.abs(x)) * 100,
        largerIsBetter: LARGER_IS_BETTER.test(tag),
      });
    }
  }
  // Then the server's side, per server chart: what the engine saw in each run.
  const a = serverStats(base.server ?? null);
  const b = serverStats(other.server ?? null);
  for (
    const s of [
      ...a,
      ...b.filter((y) => !a.some((x) => x.tag === y.tag && x.stat === y.stat)),
    ]
  ) {
    const x = a.find((r) => r.tag === s.tag && r.stat === s.stat)?.value ?? null;
    const y = b.find((r) => r.tag === s.tag && r.stat === s.stat)?.value ?? null;
    rows.push({
      tag: s.tag,
      unit: s.unit,
      stat: s.stat,
      base: x,
      other: y,
      changePct: x === null || y === null || x === 0 ? null : ((y - x) / Math.abs(x)) * 100,
      largerIsBetter: s.largerIsBetter,
    });
  }
  return rows;
}
