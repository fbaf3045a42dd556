/**
 * Aggregates one phase's requests into a summary. Keeps numeric columns, never records, so a
 * long run costs 1 to 8 bytes per value (whole numbers in the narrowest array that holds them);
 * a live snapshot sorts only small samples.
 */

import type { RequestRecord } from "../record/record.ts";
import { Column, type ColumnOptions, CopyBuffers, type Values } from "./column.ts";
import {
  type MetricDef,
  METRICS,
  RECORD_DEFS,
  type RecordMetrics,
  type RecordValues,
  recordValues,
  type RunValues,
  toDisplay,
} from "./definitions.ts";
import { ErrorCounter, type ErrorSummaryEntry } from "./error_summary.ts";
import { type GoodputSlo, type IndexedSlo, indexedSlos, meetsSloValues } from "./goodput.ts";
import {
  linearRanks,
  nearestRank,
  percentileLinear,
  PERCENTILES,
  selectRanks,
  stdPopulation,
} from "./stats.ts";
import type { MetricResult, MetricStats, Summary } from "./summary.ts";

/** Options of an aggregator. */
export interface AggregatorOptions extends ColumnOptions {
  /** `--goodput` SLOs: successful requests meeting all of them are counted as good. */
  goodput?: readonly GoodputSlo[];
  /** Values a list metric's column keeps before sampling (default {@link LIST_CAP}). */
  listCap?: number;
}

/**
 * Values kept of a list metric (the gaps between chunks, one per token of an answer) before its
 * percentiles come from a histogram of all its values: 2 Mi, 8 MiB of gaps in whole nanoseconds,
 * given up for the histogram's few hundred KiB once passed (about 8,200 answers of 256 tokens).
 * Per-request metrics keep 8 Mi (`Column`'s default cap), which they reach after millions of
 * requests.
 */
export const LIST_CAP = 1 << 21;

/** The record metrics: the only ones a summary reads columns of. */
const RECORD_TAGS: readonly string[] = RECORD_DEFS.map((d) => d.tag);
/** Whether each of `RECORD_TAGS` is a list metric (several values a request). */
const IS_LIST: readonly boolean[] = RECORD_DEFS.map((d) => d.flags.includes("list"));

/** A metric with more values than its column keeps: `count` pushed, more than its `cap`. */
export interface SampledMetric {
  tag: string;
  count: number;
  cap: number;
}

/** Prefix of the error-adjusted variants of latency metrics. */
export const ADJUSTED_PREFIX = "adj_";

/**
 * Collects one phase's requests (make one per phase: warmup and profiling are reported apart).
 * `add` each finished request with its record metrics; `summary()` gives exact statistics (a
 * metric with more values than its column keeps has percentiles read from a histogram:
 * `sampledMetrics()`),
 * `snapshot()` cheap ones for live display.
 */
export class MetricsAggregator {
  #opts: AggregatorOptions;
  #columns = new Map<string, Column>();
  /** The columns of `RECORD_TAGS`, by position (the same objects as in `#columns`). */
  #byIndex: (Column | undefined)[] = new Array(RECORD_TAGS.length).fill(undefined);
  #requests = 0;
  #errorCount = 0;
  #good = 0;
  #errors = new ErrorCounter();
  #minStart: bigint | null = null;
  #maxEnd: bigint | null = null;
  /**
   * Earliest start and latest end of the successful requests: AIPerf's `min_request_timestamp`
   * and `max_response_timestamp`, so its `benchmark_duration` and every rate over it. A failed
   * request (a crash answered late, a timeout) does not stretch them.
   */
  #okMinStart: bigint | null = null;
  #okMaxEnd: bigint | null = null;

  /** The `--goodput` SLOs with their metrics' positions, or null when none were given. */
  #slos: readonly IndexedSlo[] | null;

  constructor(opts: AggregatorOptions = {}) {
    this.#opts = opts;
    this.#slos = opts.goodput ? indexedSlos(opts.goodput) : null;
  }

  /** Adds one finished request and the metrics `computeRecordMetrics` gave it. */
  add(rec: RequestRecord, metrics: RecordMetrics): void {
    this.addValues(rec, recordValues(metrics));
  }

  /** Adds one finished request and its record metrics by position (`computeRecordValues`). */
  addValues(rec: RequestRecord, values: RecordValues): void {
    if (rec.error) {
      this.#errorCount++;
      this.#errors.add(rec.error);
    } else {
      this.#requests++;
      const slos = this.#slos;
      if (slos !== null && meetsSloValues(values, slos)) this.#good++;
    }
    const end = rec.startNs + BigInt(Math.round(rec.endNs));
    if (this.#minStart === null || rec.startNs < this.#minStart) this.#minStart = rec.startNs;
    if (this.#maxEnd === null || end > this.#maxEnd) this.#maxEnd = end;
    if (!rec.error) {
      if (this.#okMinStart === null || rec.startNs < this.#okMinStart) {
        this.#okMinStart = rec.startNs;
      }
      if (this.#okMaxEnd === null || end > this.#okMaxEnd) this.#okMaxEnd = end;
    }
    // Each value to the column at its position, found without a map.
    const columns = this.#byIndex;
    for (let i = 0; i < RECORD_TAGS.length; i++) {
      const v = values[i];
      if (v === undefined) continue;
      let col = columns[i];
      if (col === undefined) {
        const opts = this.#opts;
        columns[i] = col = new Column(
          IS_LIST[i]
            ? { ...opts, cap: opts.listCap ?? Math.min(opts.cap ?? LIST_CAP, LIST_CAP) }
            : opts,
        );
        this.#columns.set(RECORD_TAGS[i], col);
      }
      if (typeof v === "number") col.push(v);
      else col.pushAll(v);
    }
  }

  /** Requests that succeeded. */
  get requestCount(): number {
    return this.#requests;
  }

  /** Requests that failed. */
  get errorCount(): number {
    return this.#errorCount;
  }

  /** Earliest start and latest end of the phase's requests (epoch ns), or null before any. */
  get timeRange(): { startNs: bigint; endNs: bigint } | null {
    return this.#minStart === null || this.#maxEnd === null
      ? null
      : { startNs: this.#minStart, endNs: this.#maxEnd };
  }

  /**
   * The metrics whose values outnumber what their column keeps (`ColumnOptions.cap`), in the
   * order of `METRICS`: their summary percentiles come from a histogram of all their `count`
   * values, within 0.025% (`Column`). Empty while every value is kept (the summary is then exact).
   */
  sampledMetrics(): SampledMetric[] {
    const out: SampledMetric[] = [];
    for (const def of METRICS) {
      const col = this.#columns.get(def.tag);
      if (col === undefined || col.exact || def.flags.includes("hidden")) continue;
      out.push({ tag: def.tag, count: col.count, cap: col.cap });
    }
    return out;
  }

  /** Failed requests grouped by type, code and message, most frequent first. */
  errorSummary(): ErrorSummaryEntry[] {
    return this.#errors.entries();
  }

  /**
   * Statistics of everything added so far (ranks every column: call it at the end): exact, but
   * for the percentiles of `sampledMetrics()`, which come from their columns' histograms.
   */
  summary(): Summary {
    return this.#summarize(false);
  }

  /**
   * Statistics for live display: counts, sums, averages, min, max and std are exact; percentiles
   * come from a uniform sample of a few thousand values per metric (exact while fewer), or past
   * a column's cap from its histogram at as many evenly spaced ranks.
   */
  snapshot(): Summary {
    return this.#summarize(true);
  }

  #summarize(live: boolean): Summary {
    const out: MetricResult[] = [];
    const scalars = new Map<string, number>();
    const start = this.#okMinStart;
    const end = this.#okMaxEnd;
    const run: RunValues = {
      requestCount: this.#requests,
      errorCount: this.#errorCount,
      // Epoch ns as numbers lose their last digits; the duration comes from the exact bigints.
      minStartNs: start === null ? null : Number(start),
      maxEndNs: end === null ? null : Number(end),
      durationNs: start === null || end === null ? null : Number(end - start),
      goodCount: this.#opts.goodput && this.#opts.goodput.length > 0 ? this.#good : null,
      sum: (tag) => this.#columns.get(tag)?.sum,
      value: (tag) => scalars.get(tag),
    };
    // Each column is ranked in the same lent arrays, read, and left before the next.
    const buffers = live ? null : new CopyBuffers();
    for (const def of METRICS) {
      if (def.kind === "record") {
        const col = this.#columns.get(def.tag);
        // Hidden helpers only feed run-level counts.
        if (!col || col.count === 0 || def.flags.includes("hidden")) continue;
        const sorted = buffers === null
          ? col.sortedSample()
          : ranked(col, this.#errorCount, buffers);
        out.push(result(def, def.tag, def.header, distribution(def, col, sorted, live)));
        if (this.#errorCount > 0 && def.flags.includes("percentile_includes_failed")) {
          out.push(result(
            def,
            ADJUSTED_PREFIX + def.tag,
            `Adjusted ${def.header}`,
            adjusted(def, col, this.#errorCount, sorted),
            ["no_individual_records", "no_console"],
          ));
        }
      } else if (def.derive) {
        const v = def.derive(run);
        if (v === undefined || Number.isNaN(v)) continue;
        scalars.set(def.tag, v);
        out.push(result(def, def.tag, def.header, { avg: toDisplay(def, v) }));
      }
    }
    return { metrics: out.sort((a, b) => order(a) - order(b)) };
  }
}

function order(m: MetricResult): number {
  const base = METRICS.find((d) => d.tag === m.tag.replace(ADJUSTED_PREFIX, ""))?.displayOrder ?? 0;
  // An adjusted variant sits right after its source.
  return m.tag.startsWith(ADJUSTED_PREFIX) ? base + 0.5 : base;
}

function result(
  def: MetricDef,
  tag: string,
  header: string,
  stats: MetricStats,
  extraFlags: MetricDef["flags"] = [],
): MetricResult {
  return {
    tag,
    header,
    unit: def.displayUnit,
    kind: def.kind,
    flags: [...def.flags, ...extraFlags],
    ...stats,
  };
}

/** Columns longer than this are not sorted whole: only the ranks the summary reads are placed. */
const SELECT_ABOVE = 1 << 16;

/**
 * A column's kept values as the summary reads them: ascending at every rank `distribution` and
 * `adjusted` read. Either all of them (fully sorted for short columns, where a sort costs
 * nothing), or, for a long column of whole numbers, only those ranks, read off the column
 * without copying it (`Column.wholeValuesAt`).
 */
type Ranked = Values | { length: number; [rank: number]: number };

/** `col`'s kept values, ranked for the summary (see {@link Ranked}). */
function ranked(col: Column, errors: number, buffers: CopyBuffers): Ranked {
  if (!col.exact) {
    // Every value is in the histogram: the ranks are among all of them.
    const n = col.count;
    const at = col.countedValuesAt(summaryRanks(n, col.count, errors))!;
    const view: { length: number; [rank: number]: number } = { length: n };
    for (const [rank, v] of at) view[rank] = v;
    return view;
  }
  if (col.kept <= SELECT_ABOVE) return col.sorted(buffers);
  const n = col.kept;
  const ranks = summaryRanks(n, col.count, errors);
  const at = col.wholeValuesAt(ranks, buffers);
  if (at !== null) {
    const view: { length: number; [rank: number]: number } = { length: n };
    for (const [rank, v] of at) view[rank] = v;
    return view;
  }
  const values = col.copy(buffers);
  selectRanks(values, ranks);
  return values;
}

/**
 * The ranks a summary reads of `n` ranked values (of `count` successful requests' values, with
 * `errors` failed requests): the last, both sides of each percentile, and the adjusted ones.
 */
function summaryRanks(n: number, count: number, errors: number): number[] {
  const ranks: number[] = [n - 1];
  for (const p of PERCENTILES) {
    ranks.push(...linearRanks(p, n));
    const i = adjustedIndex(p, count, errors, n);
    if (i >= 0) ranks.push(i);
  }
  return ranks;
}

/**
 * The index in `sorted` (`len` values of the `n` successful ones) of the p-th percentile with
 * each of `errors` failed requests counted as an infinite value; -1 when that is infinite.
 */
function adjustedIndex(p: number, n: number, errors: number, len: number): number {
  // Rank among all requests, as if the failures were appended at +inf.
  const rank = nearestRank(p, n + errors);
  if (rank >= n) return -1;
  return len === n ? rank : Math.round((rank * (len - 1)) / Math.max(1, n - 1));
}

function distribution(
  def: MetricDef,
  col: Column,
  sorted: Ranked,
  live: boolean,
): MetricStats {
  const d = (v: number) => toDisplay(def, v);
  const s: MetricStats = { avg: d(col.sum / col.count), min: d(col.min), max: d(col.max) };
  for (const p of PERCENTILES) s[`p${p}`] = d(percentileLinear(sorted, p));
  // Two passes over all values, as numpy does, while all are at hand; else the running variance.
  const complete = live ? col.sampleComplete : col.exact;
  const mean = col.sum / col.count;
  // Ranks read off a column: the values are in the column, not in `sorted`.
  const all = ArrayBuffer.isView(sorted);
  const std = complete
    ? (all ? stdPopulation(sorted, mean) : col.stdAbout(mean))
    : Math.sqrt(col.variance);
  // Std of a time is a difference, converted by the same divisor.
  s.std = d(std);
  s.count = col.count;
  s.sum = d(col.sum);
  return s;
}

/**
 * Percentiles with each failed request counted as an infinite value (nearest rank, as AIPerf
 * does), so failures show in the tail instead of vanishing from it. `sorted` may be a sample of
 * the `n` successful values.
 */
function adjusted(def: MetricDef, col: Column, errors: number, sorted: Ranked): MetricStats {
  const total = col.count + errors;
  const at = (p: number): number => {
    const i = adjustedIndex(p, col.count, errors, sorted.length);
    return i < 0 ? Infinity : sorted[i];
  };
  const d = (v: number) => toDisplay(def, v);
  const s: MetricStats = { min: d(col.min), max: Infinity };
  for (const p of PERCENTILES) s[`p${p}`] = d(at(p));
  s.count = total;
  return s;
}
