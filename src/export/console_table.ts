/** The end-of-run console table, laid out like AIPerf's. */

import { styleText } from "node:util";
import type { MetricResult, MetricStats, Summary } from "../metrics/summary.ts";
import { grouped2 } from "./format.ts";

/** Columns of the table after the metric name. */
const COLUMNS = [
  "avg",
  "min",
  "max",
  "p99",
  "p90",
  "p50",
  "std",
] as const satisfies readonly (keyof MetricStats)[];

/** Options of the console table. */
export interface ConsoleTableOptions {
  /** Color the text (for a terminal; false for NO_COLOR or a pipe). Default false. */
  color?: boolean;
}

/** True when a metric belongs in the console table. */
function shown(m: MetricResult): boolean {
  return !m.flags.includes("internal") && !m.flags.includes("no_console");
}

/** The metric cell: header and unit, on two lines when the header is long (as AIPerf does). */
function nameCell(m: MetricResult): string[] {
  const unit = `(${m.unit})`;
  return m.header.length > 30 ? [m.header, unit] : [`${m.header} ${unit}`];
}

function statCell(v: number | undefined): string {
  return v === undefined ? "N/A" : grouped2(v);
}

/**
 * The summary as a table: one row per metric (header with unit), columns avg, min, max, p99,
 * p90, p50, std; scalar metrics fill avg only. Ends with a newline.
 */
export function renderConsoleTable(
  summary: Summary,
  title: string,
  opts: ConsoleTableOptions = {},
): string {
  const color = opts.color === true;
  const paint = (style: Parameters<typeof styleText>[0], s: string) =>
    color ? styleText(style, s, { validateStream: false }) : s;

  const head = ["Metric", ...COLUMNS];
  const rows = summary.metrics.filter(shown).map((
    m,
  ) => [nameCell(m), ...COLUMNS.map((k) => [statCell(m[k])])]);
  const widths = head.map((h, c) =>
    Math.max(h.length, ...rows.map((r) => Math.max(...r[c].map((l) => l.length))))
  );

  const rule = (l: string, mid: string, r: string, fill: string) =>
    l + widths.map((w) => fill.repeat(w + 2)).join(mid) + r;
  const line = (cells: string[], edge: string, styleOf: (c: number, text: string) => string) =>
    edge + cells.map((t, c) => " " + styleOf(c, t.padStart(widths[c])) + " ").join(edge) + edge;

  const out: string[] = [];
  const total = widths.reduce((a, w) => a + w + 3, 1);
  const pad = Math.max(0, Math.floor((total - title.length) / 2));
  out.push(" ".repeat(pad) + paint("bold", title));
  out.push(rule("┏", "┳", "┓", "━"));
  out.push(line(head, "┃", (_c, t) => paint("bold", t)));
  out.push(rule("┡", "╇", "┩", "━"));
  for (const r of rows) {
    const height = Math.max(...r.map((cell) => cell.length));
    for (let i = 0; i < height; i++) {
      const cells = r.map((cell) => cell[i] ?? "");
      out.push(line(cells, "│", (c, t) => {
        if (t.trim() === "") return t;
        if (c === 0) return paint("cyan", t);
        return t.trim() === "N/A" ? paint("dim", t) : paint("green", t);
      }));
    }
  }
  out.push(rule("└", "┴", "┘", "─"));
  return out.join("\n") + "\n";
}
