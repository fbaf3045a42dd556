/**
 * `server_metrics_export.csv` in AIPerf's layout: a comment block naming the export, then one
 * section per metric type (gauge, counter, histogram; then summary and untyped, which AIPerf does
 * not export), blank lines between, each with `Endpoint,Type,Metric,Unit`, the type's statistics,
 * one column per label name and `Description` (and the buckets of a histogram); `_info` gauges in
 * a last section, one row per label.
 */

import type { ExportMetric, ExportSeries } from "./export_types.ts";

const GAUGE = [
  "avg",
  "min",
  "max",
  "std",
  "p1",
  "p5",
  "p10",
  "p25",
  "p50",
  "p75",
  "p90",
  "p95",
  "p99",
];
const COUNTER = ["total", "rate", "rate_avg", "rate_min", "rate_max", "rate_std"];
const HISTOGRAM = [
  "count",
  "count_rate",
  "sum",
  "sum_rate",
  "avg",
  ...["p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"].map((p) => `${p}_estimate`),
];

/** A cell, quoted when it holds a comma, a quote or a line break. */
function cell(v: unknown): string {
  const s = v === null || v === undefined ? "" : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** AIPerf's numbers: counts as integers, other values with 4 decimals, absent ones empty. */
function num(v: number | undefined, integer: boolean): string {
  if (v === undefined || !Number.isFinite(v)) return "";
  return integer && Number.isInteger(v) ? String(v) : v.toFixed(4);
}

/** How AIPerf shows an endpoint: no scheme, no trailing `/metrics`. */
export function endpointDisplay(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/\/metrics\/?$/, "");
}

interface Row {
  name: string;
  metric: ExportMetric;
  series: ExportSeries;
}

function section(type: string, stats: string[], rows: Row[]): string[] {
  const labelCols = [...new Set(rows.flatMap((r) => Object.keys(r.series.labels ?? {})))].sort();
  const histogram = type === "histogram";
  const header = ["Endpoint", "Type", "Metric", "Unit", ...stats, ...labelCols, "Description"];
  if (histogram) header.push("buckets");
  const lines = [header.map(cell).join(",")];
  const sorted = [...rows].sort((a, b) =>
    a.name === b.name
      ? endpointDisplay(a.series.endpoint_url).localeCompare(endpointDisplay(b.series.endpoint_url))
      : a.name < b.name
      ? -1
      : 1
  );
  for (const { name, metric, series } of sorted) {
    const row = [
      endpointDisplay(series.endpoint_url),
      type,
      name,
      metric.unit ?? "",
      ...stats.map((s) => num(series.stats[s], s === "count")),
      ...labelCols.map((c) => series.labels?.[c] ?? ""),
      metric.description,
    ];
    if (histogram) {
      row.push(
        Object.entries(series.buckets ?? {}).map(([le, v]) => `${le}=${num(v, true)}`).join(";"),
      );
    }
    lines.push(row.map(cell).join(","));
  }
  return lines;
}

/** The CSV text of the `metrics` section of the JSON export. */
export function serverMetricsCsv(
  metrics: Record<string, ExportMetric>,
  run: { version: string; benchmarkId: string | null },
): string {
  const byType = new Map<string, Row[]>();
  const info: Row[] = [];
  for (const [name, metric] of Object.entries(metrics)) {
    for (const series of metric.series) {
      const row = { name, metric, series };
      if (metric.type === "gauge" && name.endsWith("_info")) info.push(row);
      else {
        const list = byType.get(metric.type) ?? [];
        list.push(row);
        byType.set(metric.type, list);
      }
    }
  }
  const sections: string[][] = [];
  const order: [string, string[]][] = [
    ["gauge", GAUGE],
    ["counter", COUNTER],
    ["histogram", HISTOGRAM],
    ["summary", ["count", "sum"]],
    ["unknown", GAUGE],
  ];
  for (const [type, stats] of order) {
    const rows = byType.get(type);
    if (!rows) continue;
    // A summary's quantiles are columns of their own.
    const cols = type === "summary"
      ? [
        ...stats,
        ...new Set(
          rows.flatMap((r) => Object.keys(r.series.stats)).filter((k) => k.startsWith("quantile_")),
        ),
      ]
      : stats;
    sections.push(section(type, cols, rows));
  }
  if (info.length > 0) {
    const lines = [["Endpoint", "Metric", "Key", "Value", "Description"].join(",")];
    for (const { name, metric, series } of info.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      for (const key of Object.keys(series.labels ?? {}).sort()) {
        lines.push(
          [endpointDisplay(series.endpoint_url), name, key, series.labels![key], metric.description]
            .map(cell).join(","),
        );
      }
    }
    sections.push(lines);
  }
  const head = [
    "# AIPerf Server Metrics Export (CSV)",
    `# aiperf_version: ${run.version}`,
    "# schema_version: 1.0",
    `# benchmark_id: ${run.benchmarkId ?? ""}`,
    "# Note: Same benchmark_id and version appear in JSON and Parquet exports",
    "#",
  ];
  return [...head, sections.map((s) => s.join("\n")).join("\n\n")].join("\n") + "\n";
}
