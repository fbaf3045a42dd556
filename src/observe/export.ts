/**
 * Turns the scrapes of a run into AIPerf's `server_metrics_export.json` and `.csv`: per metric
 * and label set, gauges' distribution, counters' increase and rate, histograms' count and sum
 * increase with percentiles estimated from the bucket increases.
 */

import { join } from "node:path";
import { isoUtc } from "../record/clock.ts";
import type { Family, Series } from "./prometheus.ts";
import type { EndpointScrapes, ServerMetricsScraper, Snapshot } from "./scraper.ts";
import type { ExportMetric } from "./export_types.ts";
export type { ExportMetric, ExportSeries } from "./export_types.ts";
import { serverMetricsCsv } from "./server_csv.ts";
import { serverMetricsJsonl } from "./server_jsonl.ts";
import { jsonText, seriesSection } from "./series.ts";

const PCTS = [1, 5, 10, 25, 50, 75, 90, 95, 99];

/** Exact percentile with linear interpolation (NumPy's default). */
function percentile(sorted: number[], p: number): number {
  const pos = (sorted.length - 1) * p / 100;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** Estimated quantile `q` of bucket increases (cumulative, by upper bound), as Prometheus does. */
export function bucketQuantile(buckets: [number, number][], q: number): number {
  const total = buckets[buckets.length - 1][1];
  const rank = q * total;
  let prevBound = 0;
  let prevCount = 0;
  for (const [bound, count] of buckets) {
    if (count >= rank) {
      if (bound === Infinity) return prevBound;
      if (count === prevCount) return bound;
      return prevBound + (bound - prevBound) * (rank - prevCount) / (count - prevCount);
    }
    prevBound = bound;
    prevCount = count;
  }
  return prevBound;
}

/** AIPerf's unit inference from a metric name's suffix. */
export function unitOf(name: string): string | null {
  const rules: [RegExp, string][] = [
    [/_seconds(_total)?$/, "seconds"],
    [/_(milliseconds|ms)(_total)?$/, "milliseconds"],
    [/_(nanoseconds|ns)(_total)?$/, "nanoseconds"],
    [/_bytes(_total)?$/, "bytes"],
    [/_tokens(_total)?$/, "tokens"],
    [/(_requests(_total)?|_reqs|request_success)$/, "requests"],
    [/_(errors(_total)?|error_count(_total)?)$/, "errors"],
    [/_(blocks(_total)?|block_count)$/, "blocks"],
    [/_ratio$/, "ratio"],
    [/_(percent|perc)$/, "percent"],
    [/_(total|count)$/, "count"],
  ];
  for (const [re, unit] of rules) if (re.test(name)) return unit;
  return null;
}

function gaugeStats(values: number[]): Record<string, number> {
  const sorted = [...values].sort((a, b) => a - b);
  const n = values.length;
  const avg = values.reduce((a, b) => a + b, 0) / n;
  const std = n > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - avg) ** 2, 0) / (n - 1)) : 0;
  const stats: Record<string, number> = { avg, min: sorted[0], max: sorted[n - 1], std };
  for (const p of PCTS) stats[`p${p}`] = percentile(sorted, p);
  return stats;
}

function counterStats(points: [bigint, number][]): Record<string, number> {
  let total = 0;
  const rates: number[] = [];
  for (let i = 1; i < points.length; i++) {
    const d = Math.max(0, points[i][1] - points[i - 1][1]);
    total += d;
    const dt = Number(points[i][0] - points[i - 1][0]) / 1e9;
    if (dt > 0) rates.push(d / dt);
  }
  const span = Number(points[points.length - 1][0] - points[0][0]) / 1e9;
  const stats: Record<string, number> = { total, rate: span > 0 ? total / span : 0 };
  if (total > 0 && rates.length > 0) {
    const avg = rates.reduce((a, b) => a + b, 0) / rates.length;
    stats.rate_avg = avg;
    stats.rate_min = Math.min(...rates);
    stats.rate_max = Math.max(...rates);
    stats.rate_std = rates.length > 1
      ? Math.sqrt(rates.reduce((a, v) => a + (v - avg) ** 2, 0) / (rates.length - 1))
      : 0;
  }
  return stats;
}

function histogramStats(
  first: Series,
  last: Series,
  spanS: number,
): { stats: Record<string, number>; buckets: Record<string, number> } {
  const before = new Map(first.buckets ?? []);
  const buckets: Record<string, number> = {};
  const cumulative: [number, number][] = [];
  for (const [le, v] of last.buckets ?? []) {
    const d = Math.max(0, v - (before.get(le) ?? 0));
    buckets[le] = d;
    cumulative.push([le === "+Inf" ? Infinity : Number(le), d]);
  }
  cumulative.sort((a, b) => a[0] - b[0]);
  const count = Math.max(0, (last.count ?? 0) - (first.count ?? 0));
  if (count === 0) return { stats: { count: 0 }, buckets };
  const sum = (last.sum ?? 0) - (first.sum ?? 0);
  const stats: Record<string, number> = {
    count,
    sum,
    avg: sum / count,
    count_rate: spanS > 0 ? count / spanS : 0,
    sum_rate: spanS > 0 ? sum / spanS : 0,
  };
  if (cumulative.length > 0 && cumulative[cumulative.length - 1][1] > 0) {
    for (const p of PCTS) stats[`p${p}_estimate`] = bucketQuantile(cumulative, p / 100);
  }
  return { stats, buckets };
}

/**
 * The scrapes of the profiling phase: from its reference (the last scrape at or before its start,
 * else its first) to its last scrape; all of them when the phase was never marked.
 */
export function profileWindow(
  snapshots: Snapshot[],
  startNs: bigint | null,
  endNs: bigint | null,
): Snapshot[] {
  if (startNs === null) return snapshots;
  let from = 0;
  for (let i = 0; i < snapshots.length; i++) if (snapshots[i].tNs <= startNs) from = i;
  const end = endNs ?? BigInt(Number.MAX_SAFE_INTEGER) * 1_000_000n;
  return snapshots.slice(from).filter((s, i) => i === 0 || s.tNs <= end);
}

/**
 * The `metrics` section: every family of every endpoint, by name, over the profiling window
 * (`window` picks it; all scrapes when absent).
 */
export function aggregateMetrics(
  endpoints: EndpointScrapes[],
  window: (snapshots: Snapshot[]) => Snapshot[] = (s) => s,
): Record<string, ExportMetric> {
  const out: Record<string, ExportMetric> = {};
  for (const e of endpoints) {
    if (!e.ok || e.snapshots.length === 0) continue;
    const snaps = window(e.snapshots);
    const spanS = Number(snaps[snaps.length - 1].tNs - snaps[0].tNs) / 1e9;
    const names = new Set<string>();
    for (const s of snaps) for (const n of s.families.keys()) names.add(n);
    for (const name of [...names].sort()) {
      let family: Family | undefined;
      for (const s of snaps) family ??= s.families.get(name);
      const metric = out[name] ??= {
        type: family!.type,
        description: family!.help,
        unit: unitOf(name),
        series: [],
      };
      const keys = new Set<string>();
      for (const s of snaps) for (const k of s.families.get(name)?.series.keys() ?? []) keys.add(k);
      for (const key of keys) {
        const points: [bigint, Series][] = [];
        for (const s of snaps) {
          const series = s.families.get(name)?.series.get(key);
          if (series) points.push([s.tNs, series]);
        }
        const labels = points[0][1].labels;
        const head = {
          endpoint_url: e.url,
          labels: Object.keys(labels).length === 0 ? null : labels,
        };
        const type = metric.type;
        if (type === "counter") {
          metric.series.push({
            ...head,
            stats: counterStats(points.map(([t, s]) => [t, s.value ?? 0])),
          });
        } else if (type === "histogram") {
          metric.series.push({
            ...head,
            ...histogramStats(points[0][1], points[points.length - 1][1], spanS),
          });
        } else if (type === "summary") {
          const first = points[0][1];
          const last = points[points.length - 1][1];
          const stats: Record<string, number> = {
            count: (last.count ?? 0) - (first.count ?? 0),
            sum: (last.sum ?? 0) - (first.sum ?? 0),
          };
          for (const [q, v] of Object.entries(last.quantiles ?? {})) stats[`quantile_${q}`] = v;
          metric.series.push({ ...head, stats });
        } else {
          metric.series.push({ ...head, stats: gaugeStats(points.map(([, s]) => s.value ?? 0)) });
        }
      }
    }
  }
  return out;
}

/** The whole export document, in AIPerf's schema. */
export function serverMetricsJson(
  scraper: ServerMetricsScraper,
  run: { version: string; benchmarkId: string | null; inputConfig?: unknown },
): Record<string, unknown> {
  const endpointInfo: Record<string, unknown> = {};
  for (const e of scraper.endpoints) {
    if (!e.ok) continue;
    const s = e.snapshots;
    const first = s[0]?.tNs ?? 0n;
    const last = s[s.length - 1]?.tNs ?? 0n;
    const gaps: number[] = [];
    for (let i = 1; i < s.length; i++) gaps.push(Number(s[i].tNs - s[i - 1].tNs) / 1e6);
    gaps.sort((a, b) => a - b);
    const mid = gaps.length >> 1;
    endpointInfo[e.url] = {
      total_fetches: e.fetches,
      first_fetch_ns: Number(e.firstFetchNs ?? 0n),
      last_fetch_ns: Number(e.lastFetchNs ?? 0n),
      avg_fetch_latency_ms: e.fetches > 0 ? e.latencyMs / e.fetches : 0,
      unique_updates: s.length,
      first_update_ns: Number(first),
      last_update_ns: Number(last),
      duration_seconds: Number(last - first) / 1e9,
      avg_update_interval_ms: gaps.length > 0 ? gaps.reduce((a, b) => a + b, 0) / gaps.length : 0,
      median_update_interval_ms: gaps.length === 0
        ? 0
        : gaps.length % 2 === 1
        ? gaps[mid]
        : (gaps[mid - 1] + gaps[mid]) / 2,
    };
  }
  return {
    schema_version: "1.0",
    aiperf_version: run.version,
    benchmark_id: run.benchmarkId,
    summary: {
      endpoints_configured: scraper.endpoints.map((e) => e.url),
      endpoints_successful: scraper.active.map((e) => e.url),
      start_time: isoUtc(scraper.profileStartNs ?? scraper.startNs),
      end_time: isoUtc(scraper.profileEndNs ?? scraper.endNs),
      endpoint_info: endpointInfo,
    },
    metrics: aggregateMetrics(
      scraper.endpoints,
      (s) => profileWindow(s, scraper.profileStartNs, scraper.profileEndNs),
    ),
    // reprise's addition: the values over time that the report draws (series.ts).
    series: seriesSection(scraper.endpoints, scraper.startNs),
    ...(run.inputConfig !== undefined ? { input_config: run.inputConfig } : {}),
  };
}

/**
 * The files' base name: `server_metrics_export`, or `<prefix>_server_metrics` under
 * `--profile-export-prefix` (its extension stripped), as AIPerf names them.
 */
export function serverMetricsName(prefix?: string): string {
  return prefix === undefined
    ? "server_metrics_export"
    : `${prefix.replace(/\.(jsonl|json|csv)$/i, "")}_server_metrics`;
}

/**
 * Writes the formats asked for (json, csv, jsonl) into the run directory; returns the paths written.
 * Nothing is written when no endpoint answered.
 */
export async function writeServerMetrics(
  dir: string,
  scraper: ServerMetricsScraper,
  formats: readonly string[],
  run: { version: string; benchmarkId: string | null; inputConfig?: unknown; prefix?: string },
): Promise<string[]> {
  if (scraper.active.length === 0) return [];
  const name = serverMetricsName(run.prefix);
  const doc = serverMetricsJson(scraper, run);
  const written: string[] = [];
  if (formats.includes("json")) {
    const path = join(dir, `${name}.json`);
    await Deno.writeTextFile(path, jsonText(doc) + "\n");
    written.push(path);
  }
  if (formats.includes("csv")) {
    const path = join(dir, `${name}.csv`);
    await Deno.writeTextFile(
      path,
      serverMetricsCsv(doc.metrics as Record<string, ExportMetric>, run),
    );
    written.push(path);
  }
  if (formats.includes("jsonl")) {
    const path = join(dir, `${name}.jsonl`);
    await Deno.writeTextFile(path, serverMetricsJsonl(scraper.endpoints));
    written.push(path);
  }
  return written;
}
