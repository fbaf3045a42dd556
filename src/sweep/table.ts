/** The sweep table printed after a sweep or repeated runs: one row per configuration. */

import type { ConfidenceStat } from "./stats.ts";
import type { ParamValue } from "./aggregate.ts";

/** The columns: a metric statistic, its header. */
const COLUMNS: [string, string][] = [
  ["request_throughput_avg", "req/s"],
  ["output_token_throughput_avg", "out tok/s"],
  ["time_to_first_token_p50", "TTFT p50 ms"],
  ["time_to_first_token_p99", "TTFT p99 ms"],
  ["inter_token_latency_avg", "ITL ms"],
  ["request_latency_p99", "latency p99 ms"],
];

/** `12.3 ± 0.4` (the interval's half width) or `12.3` from one run. */
function cell(s: ConfidenceStat | undefined): string {
  if (!s) return "-";
  const d = Math.abs(s.mean) >= 100 ? 1 : 2;
  const half = (s.ci_high - s.ci_low) / 2;
  return s.t_critical === null ? s.mean.toFixed(d) : `${s.mean.toFixed(d)} ± ${half.toFixed(d)}`;
}

/** One row: the configuration's parameters, its successful runs and its statistics. */
export interface TableRow {
  parameters: Record<string, ParamValue>;
  runs: number;
  metrics: Record<string, ConfidenceStat>;
}

/**
 * The table as text: parameter columns, `runs`, then each metric present in some row (mean ±
 * half the confidence interval at `level`).
 */
export function sweepTable(rows: readonly TableRow[], level: number): string {
  const names = [...new Set(rows.flatMap((r) => Object.keys(r.parameters)))];
  const cols = COLUMNS.filter(([k]) => rows.some((r) => r.metrics[k]));
  const head = [...names, "runs", ...cols.map(([, h]) => h)];
  const body = rows.map((r) => [
    ...names.map((n) => String(r.parameters[n] ?? "")),
    String(r.runs),
    ...cols.map(([k]) => cell(r.metrics[k])),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i])).join("  ");
  const out = [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)];
  const pct = Math.round(level * 100);
  return out.join("\n") + `\n(mean ± half the ${pct}% confidence interval across runs)\n`;
}
