/**
 * Reads a server's Prometheus text exposition into metric families with their label sets kept:
 * gauges, counters, histograms (buckets, sum, count) and summaries (quantiles, sum, count).
 */

import parsePrometheusText from "parse-prometheus-text-format";

/** The kind of a family, as AIPerf's export names it (`untyped` is `unknown`). */
export type MetricType = "gauge" | "counter" | "histogram" | "summary" | "unknown";

/** One label set of a family at one scrape. */
export interface Series {
  labels: Record<string, string>;
  /** Gauge, counter, unknown: the value. */
  value?: number;
  /** Histogram: cumulative counts by upper bound (`le`), in the order given. */
  buckets?: [string, number][];
  /** Summary: value by quantile. */
  quantiles?: Record<string, number>;
  /** Histogram and summary: the running sum and count. */
  sum?: number;
  count?: number;
}

/** A metric family: its name, type, HELP text and its series keyed by label set. */
export interface Family {
  name: string;
  type: MetricType;
  help: string;
  series: Map<string, Series>;
}

interface LibSample {
  value?: string;
  labels?: Record<string, string>;
}
interface LibFamily {
  name: string;
  help: string;
  type: string;
  metrics: LibSample[];
}

/** The key of a label set: its pairs in name order. */
export function labelKey(labels: Record<string, string>): string {
  return JSON.stringify(Object.keys(labels).sort().map((k) => [k, labels[k]]));
}

const TYPE_LINE = /^#\s*TYPE\s+(\S+)\s+(histogram|summary)\s*$/i;

/**
 * Parses exposition text; null when the text holds no Prometheus sample (an HTML page, JSON, an
 * empty body). Histograms and summaries are declared untyped to the parser, which merges their
 * labelled series into one, and are put back together here from their `_bucket`, `_sum` and
 * `_count` samples.
 */
export function parseExposition(text: string): Map<string, Family> | null {
  const composite = new Map<string, "histogram" | "summary">();
  const lines = text.split("\n").map((line) => {
    const m = TYPE_LINE.exec(line.trim());
    if (!m) return line;
    composite.set(m[1], m[2].toLowerCase() as "histogram" | "summary");
    return `# TYPE ${m[1]} untyped`;
  });
  let parsed: LibFamily[];
  try {
    // The parser drops a last sample line that no newline ends.
    parsed = parsePrometheusText(lines.join("\n") + "\n") as LibFamily[];
  } catch {
    return null;
  }
  const families = new Map<string, Family>();
  let samples = 0;
  const familyOf = (name: string, type: MetricType, help: string): Family => {
    let f = families.get(name);
    if (!f) families.set(name, f = { name, type, help, series: new Map() });
    if (help && !f.help) f.help = help;
    return f;
  };
  for (const lib of parsed) {
    for (const s of lib.metrics) {
      const value = Number(s.value);
      if (s.value === undefined || Number.isNaN(value) && s.value !== "NaN") continue;
      samples++;
      const labels = { ...(s.labels ?? {}) };
      const base = compositeBase(lib.name, composite);
      if (base === null) {
        const type = lowerType(lib.type);
        const f = familyOf(lib.name, type, lib.help);
        f.series.set(labelKey(labels), { labels, value });
        continue;
      }
      const [name, part] = base;
      const kind = composite.get(name)!;
      const f = familyOf(name, kind, part === "" ? lib.help : "");
      let boundary: string | undefined;
      if (part === "_bucket" || (part === "" && kind === "summary")) {
        boundary = labels[part === "_bucket" ? "le" : "quantile"];
        delete labels[part === "_bucket" ? "le" : "quantile"];
      }
      const key = labelKey(labels);
      let series = f.series.get(key);
      if (!series) f.series.set(key, series = { labels });
      if (part === "_sum") series.sum = value;
      else if (part === "_count") series.count = value;
      else if (part === "_bucket" && boundary !== undefined) {
        (series.buckets ??= []).push([boundary, value]);
      } else if (boundary !== undefined) (series.quantiles ??= {})[boundary] = value;
    }
  }
  return samples === 0 ? null : families;
}

/** The family a histogram or summary sample belongs to, and its suffix; null for others. */
function compositeBase(
  name: string,
  composite: Map<string, "histogram" | "summary">,
): [string, string] | null {
  if (composite.has(name)) return [name, ""];
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (name.endsWith(suffix)) {
      const base = name.slice(0, -suffix.length);
      if (composite.has(base)) return [base, suffix];
    }
  }
  return null;
}

function lowerType(type: string): MetricType {
  const t = type.toLowerCase();
  return t === "gauge" || t === "counter" ? t : "unknown";
}
