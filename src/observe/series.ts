/**
 * Server metrics over time, in one generic shape that any scraped source (a server's
 * `/metrics`, later GPU telemetry) fills: per metric and label set, a list of (time, value)
 * points of the one number worth drawing — a gauge's value, a counter's rate per second, a
 * histogram's mean observation between two scrapes. The export keeps these series beside its
 * statistics, the live API serves their latest values, and the report and the dashboard draw
 * them on the client's time axis.
 */

import type { Family, MetricType, Series } from "./prometheus.ts";
import type { EndpointScrapes, Snapshot } from "./scraper.ts";

/** What a series' points hold: a gauge's value, a counter's rate, a histogram's interval mean. */
export type SeriesStat = "value" | "rate" | "avg";

/** One metric and label set of one source over time; `t` in seconds after `start_ns`. */
export interface ServerSeries {
  metric: string;
  /** Where it was scraped (a `/metrics` URL; a GPU's id for telemetry). */
  source: string;
  labels: Record<string, string> | null;
  type: MetricType;
  stat: SeriesStat;
  t: number[];
  v: (number | null)[];
}

/**
 * The `series` section of the export: every series, times relative to `start_ns` (units are in
 * the `metrics` section, by metric name).
 */
export interface SeriesSection {
  /** Epoch nanoseconds the `t` values count from. */
  start_ns: number;
  series: ServerSeries[];
}

/** The latest value of one series, for the live API. */
export interface ServerValue {
  metric: string;
  source: string;
  labels: Record<string, string> | null;
  type: MetricType;
  /** Gauge: its value; counter: its total; histogram and summary: the observation count. */
  value: number | null;
  /** Counter: increase per second between the last two scrapes. */
  rate?: number | null;
  /** Histogram and summary: mean observation between the last two scrapes. */
  avg?: number | null;
}

/** Points kept per series in the export; longer runs are averaged down to this many. */
export const MAX_POINTS = 600;

/** The stat drawn for a metric type. */
export function statOf(type: MetricType): SeriesStat {
  return type === "counter" ? "rate" : type === "histogram" || type === "summary" ? "avg" : "value";
}

/** A number rounded to 6 significant digits, so that the export stays small. */
function round(v: number | null): number | null {
  if (v === null || !Number.isFinite(v)) return null;
  return v === 0 ? 0 : +v.toPrecision(6);
}

/** The value a series point holds, from the series at `cur` and at the scrape before (`prev`). */
function pointValue(
  type: MetricType,
  cur: Series,
  prev: Series | undefined,
  dtS: number,
): number | null {
  if (type === "counter") {
    if (!prev || dtS <= 0) return null;
    return Math.max(0, (cur.value ?? 0) - (prev.value ?? 0)) / dtS;
  }
  if (type === "histogram" || type === "summary") {
    if (!prev) return null;
    const n = (cur.count ?? 0) - (prev.count ?? 0);
    return n > 0 ? ((cur.sum ?? 0) - (prev.sum ?? 0)) / n : null;
  }
  return cur.value ?? null;
}

/** The snapshots picked to cover the run in at most `max` points (first and last kept). */
function pick(snaps: Snapshot[], max: number): Snapshot[] {
  if (snaps.length <= max + 1) return snaps;
  const out: Snapshot[] = [];
  const step = (snaps.length - 1) / max;
  for (let i = 0; i <= max; i++) out.push(snaps[Math.round(i * step)]);
  return out;
}

/**
 * Every series of every endpoint, one point per scrape (counters and histograms from the second
 * scrape on, as a difference with the one before). Beyond `max` points, scrapes are skipped
 * evenly: counters' rates and histograms' means then cover the longer intervals exactly, and
 * gauges are sampled.
 */
export function seriesSection(
  endpoints: EndpointScrapes[],
  startNs: bigint,
  max = MAX_POINTS,
): SeriesSection {
  const out: ServerSeries[] = [];
  for (const e of endpoints) {
    if (!e.ok || e.snapshots.length === 0) continue;
    const snaps = pick(e.snapshots, max);
    const names = new Set<string>();
    for (const s of snaps) for (const n of s.families.keys()) names.add(n);
    for (const name of [...names].sort()) {
      let family: Family | undefined;
      for (const s of snaps) family ??= s.families.get(name);
      const type = family!.type;
      const byKey = new Map<string, ServerSeries>();
      for (let i = 0; i < snaps.length; i++) {
        const fam = snaps[i].families.get(name);
        if (!fam) continue;
        const prev = i > 0 ? snaps[i - 1].families.get(name) : undefined;
        const dtS = i > 0 ? Number(snaps[i].tNs - snaps[i - 1].tNs) / 1e9 : 0;
        for (const [key, cur] of fam.series) {
          let s = byKey.get(key);
          if (!s) {
            byKey.set(
              key,
              s = {
                metric: name,
                source: e.url,
                labels: Object.keys(cur.labels).length === 0 ? null : cur.labels,
                type,
                stat: statOf(type),
                t: [],
                v: [],
              },
            );
          }
          const v = pointValue(type, cur, prev?.series.get(key), dtS);
          // A counter or histogram has no value at its first scrape: no point there.
          if (v === null && (type !== "gauge" && type !== "unknown") && i === 0) continue;
          s.t.push(+(Number(snaps[i].tNs - startNs) / 1e9).toFixed(3));
          s.v.push(round(v));
        }
      }
      out.push(...byKey.values());
    }
  }
  return { start_ns: Number(startNs), series: out };
}

/**
 * JSON text indented as usual but with each array of numbers on one line: a series' points
 * would otherwise take a line each, more than doubling the file.
 */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /\[\s*\n\s*((?:[\d.eE+-]+|null)(?:,\s*\n\s*(?:[\d.eE+-]+|null))*)\s*\n\s*\]/g,
    (_, items: string) => `[${items.replace(/,\s*\n\s*/g, ", ")}]`,
  );
}

/** The latest value of every series of every endpoint still scraped (the last two scrapes). */
export function latestValues(endpoints: EndpointScrapes[]): ServerValue[] {
  const out: ServerValue[] = [];
  for (const e of endpoints) {
    if (!e.ok || e.snapshots.length === 0) continue;
    const cur = e.snapshots[e.snapshots.length - 1];
    const prev = e.snapshots.length > 1 ? e.snapshots[e.snapshots.length - 2] : undefined;
    const dtS = prev ? Number(cur.tNs - prev.tNs) / 1e9 : 0;
    for (const [name, fam] of cur.families) {
      for (const [key, s] of fam.series) {
        const before = prev?.families.get(name)?.series.get(key);
        const v: ServerValue = {
          metric: name,
          source: e.url,
          labels: Object.keys(s.labels).length === 0 ? null : s.labels,
          type: fam.type,
          value: fam.type === "histogram" || fam.type === "summary"
            ? s.count ?? null
            : s.value ?? null,
        };
        if (fam.type === "counter") v.rate = round(pointValue("counter", s, before, dtS));
        if (fam.type === "histogram" || fam.type === "summary") {
          v.avg = round(pointValue(fam.type, s, before, dtS));
        }
        out.push(v);
      }
    }
  }
  return out;
}
