/**
 * Goodput: the requests that meet every service-level objective given with `--goodput`
 * ("time_to_first_token:200 inter_token_latency:20", values in display units).
 */

import {
  fromDisplay,
  type MetricDef,
  METRICS,
  recordIndex,
  type RecordMetrics,
  type RecordValues,
  recordValues,
} from "./definitions.ts";

/** One objective: a record metric's limit, in the metric's base unit. */
export interface GoodputSlo {
  tag: string;
  /** The limit in base units (ns for times). */
  limit: number;
  /** True when bigger values are better, so the value must reach the limit, not stay under it. */
  atLeast: boolean;
}

/** Record metrics an SLO may name: one number per successful request. */
export function goodputTags(): string[] {
  return METRICS.filter(isSloMetric).map((d) => d.tag);
}

function isSloMetric(d: MetricDef): boolean {
  return d.kind === "record" &&
    !d.flags.some((f) => f === "list" || f === "hidden" || f === "error_only");
}

/**
 * Parses `--goodput`: `tag:value` pairs separated by spaces or commas. Throws an Error naming
 * the bad pair and, for an unknown tag, listing the valid ones.
 */
export function parseGoodput(text: string): GoodputSlo[] {
  const slos: GoodputSlo[] = [];
  for (const pair of text.split(/[\s,]+/).filter((p) => p !== "")) {
    const m = /^([A-Za-z0-9_]+)[:=](.+)$/.exec(pair);
    if (!m) throw new Error(`"${pair}" is not tag:value (e.g. time_to_first_token:200)`);
    const [, tag, raw] = m;
    const def = METRICS.find((d) => d.tag === tag);
    if (!def || !isSloMetric(def)) {
      throw new Error(`unknown metric "${tag}"; valid metrics: ${goodputTags().join(", ")}`);
    }
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) {
      throw new Error(`"${pair}": the limit must be a non-negative number in ${def.displayUnit}`);
    }
    if (slos.some((s) => s.tag === tag)) throw new Error(`"${tag}" is given twice`);
    slos.push({
      tag,
      limit: fromDisplay(def, value),
      atLeast: def.flags.includes("larger_is_better"),
    });
  }
  if (slos.length === 0) throw new Error("no objective given (e.g. time_to_first_token:200)");
  return slos;
}

/** True when a request's metrics meet every SLO; a metric the request lacks fails its SLO. */
export function meetsSlos(metrics: RecordMetrics, slos: readonly GoodputSlo[]): boolean {
  return meetsSloValues(recordValues(metrics), indexedSlos(slos));
}

/** An SLO with its metric's position in a request's values (`RecordValues`). */
export interface IndexedSlo extends GoodputSlo {
  index: number;
}

/** `slos` with their metrics' positions, for {@link meetsSloValues}. */
export function indexedSlos(slos: readonly GoodputSlo[]): IndexedSlo[] {
  return slos.map((s) => ({ ...s, index: recordIndex(s.tag) }));
}

/** {@link meetsSlos} over a request's values by position. */
export function meetsSloValues(values: RecordValues, slos: readonly IndexedSlo[]): boolean {
  for (const s of slos) {
    const v = s.index === -1 ? undefined : values[s.index];
    if (typeof v !== "number") return false;
    if (s.atLeast ? v < s.limit : v > s.limit) return false;
  }
  return true;
}
