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
const SIMPLE_TYPE_LINE = /^#\s*TYPE\s+(\S+)\s+(gauge|counter)\s*$/i;
const HELP_LINE = /^#\s*HELP\s+(\S+)\s+(.*)$/;

/**
 * Parses exposition text; null when the text holds no Prometheus sample (an HTML page, JSON, an
 * empty body). Histograms and summaries are declared untyped to the parser, which merges their
 * labelled series into one, and are put back together here from their `_bucket`, `_sum` and
 * `_count` samples.
 */
export function parseExposition(text: string): Map<string, Family> | null {
  const composite = new Map<string, "histogram" | "summary">();
  // A family's TYPE and HELP hold wherever they stand before its samples (DCGM's exporter sample
  // lists every declaration first); the parser only reads those right above the samples.
  const declared = new Map<string, MetricType>();
  const helps = new Map<string, string>();
  const lines = text.split("\n").map((line) => {
    if (line.startsWith("#")) {
      const t = SIMPLE_TYPE_LINE.exec(line.trim());
      if (t) declared.set(t[1], t[2].toLowerCase() as MetricType);
      const h = HELP_LINE.exec(line.trim());
      if (h) helps.set(h[1], h[2]);
    }
    const m = TYPE_LINE.exec(line.trim());
    if (!m) return line.startsWith("#") ? line : tidyLabels(line);
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
    // When a family was created and how long the server has run are not measurements: AIPerf
    // leaves them out.
    if (/_created$|_uptime$|_uptime_/.test(lib.name)) continue;
    for (const s of lib.metrics) {
      const value = Number(s.value);
      if (s.value === undefined || Number.isNaN(value) && s.value !== "NaN") continue;
      samples++;
      const labels = { ...(s.labels ?? {}) };
      const base = compositeBase(lib.name, composite);
      if (base === null) {
        const type = lowerType(lib.type, declared.get(lib.name));
        // A counter's family is named without its samples' `_total`, as AIPerf (and Prometheus'
        // own client) names it: `vllm:generation_tokens_total` is `vllm:generation_tokens`.
        const family = type === "counter" ? lib.name.replace(/_total$/, "") : lib.name;
        const f = familyOf(family, type, lib.help || (helps.get(lib.name) ?? ""));
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

/**
 * A sample line without blanks between its label pairs (`{gpu="0", UUID="x"}`, as DCGM's exporter
 * writes them): Prometheus accepts them, the parser does not. Label values are left as they are.
 */
export function tidyLabels(line: string): string {
  const open = line.indexOf("{");
  if (open < 0 || !/[{,]\s|\s[,}=]/.test(line)) return line;
  let out = line.slice(0, open + 1);
  let quoted = false;
  let i = open + 1;
  for (; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      out += c;
      if (c === "\\") out += line[++i] ?? "";
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    if (c === " " || c === "\t") continue;
    out += c;
    if (c === "}") break;
  }
  return out + line.slice(i + 1);
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

function lowerType(type: string, declared: MetricType | undefined): MetricType {
  const t = type.toLowerCase();
  return t === "gauge" || t === "counter" ? t : declared ?? "unknown";
}
