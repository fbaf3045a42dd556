/**
 * Two confidence aggregates (repeated runs of two configurations or servers), or two sweeps at
 * each configuration both ran, side by side: each metric statistic's mean and interval, the
 * change, and whether the difference is larger than the intervals (they do not overlap) or could
 * be noise (they overlap).
 */

import { join } from "node:path";
import { AGGREGATE_JSON } from "../sweep/layout.ts";
import { COMPARED_STATS } from "./compare.ts";
import type { AggStat } from "./sweep_data.ts";

/** One statistic of both aggregates. */
export interface AggregateRow {
  key: string;
  unit: string;
  base: AggStat;
  other: AggStat;
  /** (other − base) / |base| × 100; null when base is 0. */
  changePct: number | null;
  /** The intervals do not overlap: the difference is larger than the noise of the runs. */
  beyond: boolean;
}

/** The aggregate file of `dir`: the directory's own, or its `aggregate/` one; null when none. */
export async function aggregateFile(dir: string): Promise<string | null> {
  for (const p of [join(dir, AGGREGATE_JSON), join(dir, "aggregate", AGGREGATE_JSON)]) {
    try {
      await Deno.stat(p);
      return p;
    } catch { /* not here */ }
  }
  return null;
}

const SKIP = /^(min_request_timestamp|max_response_timestamp)_/;
const STATS = new Set<string>(COMPARED_STATS);

/**
 * The rows of the statistics both aggregates have: of distributions their avg, p50, p90 and
 * p99, of scalar metrics their value (`_avg`); in `base`'s order.
 */
export function compareAggregates(
  base: Record<string, AggStat>,
  other: Record<string, AggStat>,
): AggregateRow[] {
  const rows: AggregateRow[] = [];
  for (const [key, a] of Object.entries(base)) {
    const b = other[key];
    if (!b || SKIP.test(key)) continue;
    const stat = key.slice(key.lastIndexOf("_") + 1);
    if (!STATS.has(stat)) continue;
    const lo = (s: AggStat) => s.ci_low ?? s.mean;
    const hi = (s: AggStat) => s.ci_high ?? s.mean;
    rows.push({
      key,
      unit: a.unit ?? "",
      base: a,
      other: b,
      changePct: a.mean === 0 ? null : ((b.mean - a.mean) / Math.abs(a.mean)) * 100,
      beyond: hi(a) < lo(b) || hi(b) < lo(a),
    });
  }
  return rows;
}

function n(v: number): string {
  return v.toLocaleString("en-US", { maximumFractionDigits: 2, useGrouping: false });
}

/** The rows as an aligned table: mean [interval] of each, the change, and the verdict. */
export function aggregateComparisonText(
  rows: AggregateRow[],
  baseName: string,
  otherName: string,
): string {
  const iv = (s: AggStat) =>
    s.ci_low !== undefined && s.ci_high !== undefined && s.ci_high > s.ci_low
      ? `${n(s.mean)} [${n(s.ci_low)}, ${n(s.ci_high)}]`
      : n(s.mean);
  const lines = [["Metric", baseName, otherName, "Change", "Difference"]];
  for (const r of rows) {
    lines.push([
      `${r.key} (${r.unit})`,
      iv(r.base),
      iv(r.other),
      r.changePct === null ? "-" : `${r.changePct > 0 ? "+" : ""}${r.changePct.toFixed(1)}%`,
      r.beyond ? "beyond the intervals" : "within the intervals",
    ]);
  }
  const widths = lines[0].map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  return lines.map((l) =>
    l.map((c, i) => (i === 0 || i === 4 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")
      .trimEnd()
  )
    .join("\n") + "\n";
}

/** The statistics a sweep comparison shows at each configuration. */
const SWEEP_KEYS = [
  "request_throughput_avg",
  "output_token_throughput_avg",
  "time_to_first_token_p50",
  "time_to_first_token_p99",
  "inter_token_latency_avg",
  "request_latency_p99",
];

/** One configuration both sweeps ran, compared. */
export interface SweepComparison {
  parameters: Record<string, number | string>;
  rows: AggregateRow[];
}

/**
 * Two sweeps compared at each configuration both ran (same parameters): the key statistics,
 * each with its verdict against the intervals.
 */
export function compareSweeps(
  base: { parameters: Record<string, number | string>; metrics: Record<string, AggStat> }[],
  other: { parameters: Record<string, number | string>; metrics: Record<string, AggStat> }[],
): SweepComparison[] {
  const key = (p: Record<string, number | string>) => JSON.stringify(Object.entries(p).sort());
  const out: SweepComparison[] = [];
  for (const a of base) {
    const b = other.find((o) => key(o.parameters) === key(a.parameters));
    if (!b) continue;
    const pick = (m: Record<string, AggStat>) =>
      Object.fromEntries(SWEEP_KEYS.filter((k) => m[k]).map((k) => [k, m[k]]));
    out.push({
      parameters: a.parameters,
      rows: compareAggregates(pick(a.metrics), pick(b.metrics)),
    });
  }
  return out;
}

/** The sweep comparison as text: a table per configuration. */
export function sweepComparisonText(
  cmp: SweepComparison[],
  baseName: string,
  otherName: string,
): string {
  if (cmp.length === 0) return "the two sweeps have no configuration in common\n";
  return cmp.map((c) => {
    const what = Object.entries(c.parameters).map(([k, v]) => `${k}=${v}`).join(", ");
    return `${what}\n${aggregateComparisonText(c.rows, baseName, otherName)}`;
  }).join("\n");
}
