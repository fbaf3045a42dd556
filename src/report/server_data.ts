/**
 * The server's side of a run in the report: its scraped metrics read back from
 * `server_metrics_export.json` (the `series` over time and the `metrics` statistics), drawn on
 * the client charts' time bins and compared across runs, chart by chart (`SERVER_CHARTS`).
 */

import { join } from "node:path";
import {
  chosenMetric,
  combine,
  SERVER_CHARTS,
  type ServerChartSpec,
} from "../observe/server_charts.ts";
import type { SeriesSection, ServerSeries } from "../observe/series.ts";
import { readTextIfExists } from "../util/files.ts";

/** A run's server metrics as the export holds them. */
export interface ServerData {
  /** The series over time; empty when the export has none (AIPerf's own, or `csv` only). */
  section: SeriesSection;
  /** Metric name → type, unit and per-series statistics. */
  metrics: Record<
    string,
    { type?: string; unit?: string | null; series?: { stats?: Record<string, number> }[] }
  >;
}

/** One server row of a comparison: a chart's statistic in both runs. */
export interface ServerStat {
  tag: string;
  unit: string;
  stat: string;
  value: number;
  largerIsBetter: boolean;
}

/**
 * Reads the run's server metrics (`server_metrics_export.json`, or `<prefix>_server_metrics.json`
 * beside a prefixed summary); null when there is none. A file that is not JSON is an error
 * naming it, through `fail`.
 */
export async function loadServerData(
  dir: string,
  summaryName: string | null,
  fail: (message: string) => Error,
): Promise<ServerData | null> {
  const name = summaryName === null || summaryName === "profile_export_aiperf"
    ? "server_metrics_export"
    : `${summaryName}_server_metrics`;
  const path = join(dir, `${name}.json`);
  const text = await readTextIfExists(path);
  if (text === null) return null;
  let doc: { series?: Partial<SeriesSection>; metrics?: ServerData["metrics"] };
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw fail(`Cannot read "${path}": not valid JSON (${(e as Error).message})`);
  }
  const series = Array.isArray(doc?.series?.series) ? doc.series.series : [];
  return {
    section: {
      start_ns: typeof doc?.series?.start_ns === "number" ? doc.series.start_ns : 0,
      series: series.filter((s) =>
        typeof s?.metric === "string" && Array.isArray(s.t) && Array.isArray(s.v)
      ),
    },
    metrics: typeof doc?.metrics === "object" && doc.metrics !== null ? doc.metrics : {},
  };
}

/**
 * A server chart's values for one run on the client charts' bins (`count` bins of `width`
 * seconds from the run's first request, `t0Ns`): each series averaged per bin, then the series
 * combined as the chart says; null where no scrape fell. Null when the run lacks the metric.
 */
export function serverChartBins(
  spec: ServerChartSpec,
  data: ServerData | null,
  t0Ns: number | null,
  width: number,
  count: number,
): (number | null)[] | null {
  if (data === null || data.section.series.length === 0) return null;
  const metric = chosenMetric(spec, new Set(data.section.series.map((s) => s.metric)));
  if (metric === null) return null;
  const shift = t0Ns === null ? 0 : (data.section.start_ns - t0Ns) / 1e9;
  const perSeries = data.section.series.filter((s) => s.metric === metric).map((s) =>
    binSeries(s, shift, width, count)
  );
  return Array.from({ length: count }, (_, i) => {
    const c = combine(perSeries.map((bins) => bins[i]), spec.combine);
    return c === null ? null : +(c * spec.scale).toPrecision(6);
  });
}

function binSeries(s: ServerSeries, shift: number, width: number, count: number) {
  const sum = new Float64Array(count);
  const n = new Uint32Array(count);
  for (let k = 0; k < s.t.length; k++) {
    const v = s.v[k];
    const at = s.t[k] + shift;
    // Scrapes bracket the phase: the first just before the first request, the last just after.
    if (v === null || at < -width || at > (count + 1) * width) continue;
    const i = Math.max(0, Math.min(count - 1, Math.floor(at / width)));
    sum[i] += v;
    n[i]++;
  }
  return Array.from(sum, (x, i) => (n[i] ? x / n[i] : null));
}

/** Statistics compared per server chart, by the metric's type. */
const COMPARED: Record<string, [string, string][]> = {
  gauge: [["avg", "avg"], ["max", "max"]],
  unknown: [["avg", "avg"], ["max", "max"]],
  counter: [["rate", "rate"]],
  histogram: [["avg", "avg"], ["p50_estimate", "p50"], ["p99_estimate", "p99"]],
};

/**
 * The run's server statistics worth comparing: per server chart, its metric's statistics over
 * the phase (from the export's `metrics`), combined over label sets as the chart combines them.
 */
export function serverStats(data: ServerData | null): ServerStat[] {
  if (data === null) return [];
  const out: ServerStat[] = [];
  for (const spec of SERVER_CHARTS) {
    const metric = chosenMetric(spec, new Set(Object.keys(data.metrics)));
    if (metric === null) continue;
    const m = data.metrics[metric];
    for (const [key, stat] of COMPARED[m.type ?? "gauge"] ?? []) {
      const values = (m.series ?? []).map((s) => s.stats?.[key] ?? null);
      // The maximum of several series is the largest of their maxima.
      const c = key === "max"
        ? (values.some((v) => v !== null) ? Math.max(...values.filter((v) => v !== null)) : null)
        : combine(values, spec.combine);
      if (c === null) continue;
      out.push({
        tag: metric,
        unit: spec.yLabel,
        stat,
        value: +(c * spec.scale).toPrecision(6),
        largerIsBetter: spec.largerIsBetter,
      });
    }
  }
  return out;
}
