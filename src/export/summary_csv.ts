/** `profile_export_aiperf.csv`: AIPerf's two-table CSV summary. */

import {
  hasDistribution,
  type MetricResult,
  type MetricStats,
  type Summary,
} from "../metrics/summary.ts";
import { writeArtifact } from "./artifact.ts";
import { fixed2 } from "./format.ts";

/** Columns of the distribution table after `Metric` (AIPerf's `STAT_KEYS`). */
const DIST_KEYS = [
  "avg",
  "min",
  "max",
  "sum",
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
] as const satisfies readonly (keyof MetricStats)[];

/** Quotes a CSV field when it needs it (RFC 4180). */
function field(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** "Header (unit)"; counts in requests go without a unit, as in AIPerf. */
function name(m: MetricResult): string {
  const unit = m.unit.toLowerCase();
  return unit && unit !== "count" && unit !== "requests" ? `${m.header} (${m.unit})` : m.header;
}

function value(v: number | undefined): string {
  return v === undefined ? "" : fixed2(v);
}

function byTag(a: MetricResult, b: MetricResult): number {
  return a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0;
}

/**
 * The text of `profile_export_aiperf.csv`: `Metric,avg,min,max,sum,p1,…,p99,std` for metrics
 * with a distribution, a blank line, then `Metric,Value` for scalar metrics; rows sorted by tag.
 * Lines end in CRLF, as Python's csv module (and so AIPerf) writes them.
 */
export function summaryCsv(summary: Summary): string {
  const dist = summary.metrics.filter(hasDistribution).sort(byTag);
  const scalars = summary.metrics.filter((m) => !hasDistribution(m)).sort(byTag);
  const lines: string[] = [];
  if (dist.length > 0) {
    lines.push(["Metric", ...DIST_KEYS].join(","));
    for (const m of dist) {
      lines.push([field(name(m)), ...DIST_KEYS.map((k) => value(m[k]))].join(","));
    }
    if (scalars.length > 0) lines.push("");
  }
  if (scalars.length > 0) {
    lines.push("Metric,Value");
    for (const m of scalars) lines.push(`${field(name(m))},${value(m.avg)}`);
  }
  return lines.length === 0 ? "" : lines.join("\r\n") + "\r\n";
}

/** Writes `profile_export_aiperf.csv` to `path`, creating its directory. */
export async function writeSummaryCsv(path: string, summary: Summary): Promise<void> {
  await writeArtifact(path, summaryCsv(summary));
}
