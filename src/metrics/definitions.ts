/**
 * Every metric reprise reports, one definition each: AIPerf's tag, header, units and flags,
 * and how the value is computed. The table is in dependency order: a definition reads only
 * values computed by definitions above it, so one pass in table order computes them all.
 */

import type { RequestRecord } from "../record/record.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";

/** Record metrics give one value per request; aggregate and derived ones, one per run. */
export type MetricKind = "record" | "aggregate" | "derived";

/** What limits where a metric applies or is shown (AIPerf's `MetricFlags`, in words). */
export type MetricFlag =
  /** Needs a streamed answer (chunk timestamps). */
  | "streaming_only"
  /** Computed from failed requests only. */
  | "error_only"
  /** Needs an endpoint that produces tokens (not embeddings or rankings). */
  | "produces_tokens"
  /** Bigger values are better (throughputs, counts). */
  | "larger_is_better"
  /** Internal bookkeeping: kept in files, left out of the console table. */
  | "internal"
  /** Kept in files, left out of the console table (run totals, usage echoes). */
  | "no_console"
  /** Present only when the server returned reasoning. */
  | "reasoning"
  /** Comes from the server's `usage` report. */
  | "usage"
  /** A run-level value that has no per-request line in `profile_export.jsonl`. */
  | "no_individual_records"
  /** Also reported as `adj_<tag>`, counting each failed request as an infinite value. */
  | "percentile_includes_failed"
  /** Each request contributes a list of values (one per chunk gap). */
  | "list"
  /** Needs `--goodput` SLOs. */
  | "goodput"
  /**
   * A per-request 0/1 helper that a run-level count sums: computed, never exported (always
   * paired with `no_individual_records` so no per-request line carries it).
   */
  | "hidden";

/** One request's metrics, by tag, in BASE units (ns for times, tokens for counts). */
export type RecordMetrics = Record<string, number | number[]>;

/** What a record metric may read besides the record. */
export interface RecordContext {
  /** Input tokens counted by the client for the request body, or null when not counted. */
  inputTokens: number | null;
  tokenizer: Tokenizer;
  /** The run streams answers: streaming-only metrics apply. */
  streaming: boolean;
  /** The endpoint produces tokens (false for embeddings and rankings). Default true. */
  producesTokens?: boolean;
  /** Prefer the server's `usage` counts over the tokenizer when present. Default true. */
  preferUsage?: boolean;
  /** The output tokens the request asked for (`max_tokens` and kin), or null when it set none. */
  requestedOutputTokens?: number | null;
  /**
   * Tokenize the answer to compare it with the server's `usage` (`usage_completion_tokens_diff_pct`,
   * `usage_reasoning_tokens_diff_pct`, `usage_discrepancy`). Default true. False leaves those
   * metrics absent: the caller samples which records are checked when nothing else needs the
   * answer tokenized.
   */
  checkUsage?: boolean;
}

/** Run-level inputs of aggregate and derived metrics, in base units. */
export interface RunValues {
  /** Requests that succeeded. */
  requestCount: number;
  /** Requests that failed. */
  errorCount: number;
  /** Earliest request start of the phase (epoch ns), or null when no request was seen. */
  minStartNs: number | null;
  /** Latest request end of the phase (epoch ns), or null when no request was seen. */
  maxEndNs: number | null;
  /** Latest end minus earliest start, exact to the nanosecond; null when no request was seen. */
  durationNs: number | null;
  /** Requests meeting every `--goodput` SLO, or null when no SLO was given. */
  goodCount?: number | null;
  /** Sum of a record metric over the phase; undefined when no request had it. */
  sum(tag: string): number | undefined;
  /** The value of an aggregate or derived metric defined above the caller. */
  value(tag: string): number | undefined;
}

/** One metric: how it is named, shown and computed. */
export interface MetricDef {
  tag: string;
  header: string;
  /** Unit of computed values (`ns`, `tokens`, `requests`, `tokens/sec`, …). */
  unit: string;
  /** Unit of reported values (`ms`, `sec`, …). */
  displayUnit: string;
  kind: MetricKind;
  flags: readonly MetricFlag[];
  /** Position in the console table and summaries (AIPerf's display order). */
  displayOrder: number;
  /**
   * Record metrics: the value for one request; undefined when it does not apply. `m` holds the
   * values of the record metrics above this one; one without a value reads as undefined.
   */
  record?: (
    rec: RequestRecord,
    m: RecordValues,
    ctx: RecordContext,
  ) => number | number[] | undefined;
  /** Aggregate and derived metrics: the run's value; undefined when it does not apply. */
  derive?: (run: RunValues) => number | undefined;
}

const NS_PER_S = 1e9;

/** A server count differing from the tokenizer's by more than this percent is a discrepancy. */
export const USAGE_DIFF_THRESHOLD_PCT = 10;

// Positions in RECORD_DEFS of the record metrics definitions read (see `at`): the table must
// exist before they can be found, and the definitions only run after.
let AT_LATENCY = -1;
let AT_TTFT = -1;
let AT_OUTPUT_COUNT = -1;
let AT_REASONING_COUNT = -1;
let AT_OSL = -1;
let AT_ISL = -1;
let AT_ITL = -1;
let AT_USAGE_DIFFS: readonly number[] = [];

/** The value of the record metric at position `at` (one of the `AT_*` above), if a number. */
function num(m: RecordValues, at: number): number | undefined {
  const v = m[at];
  return typeof v === "number" ? v : undefined;
}

/** Reasoning tokens: the server's count when it gave one that fits the text, else the tokenizer's. */
function reasoningTokens(rec: RequestRecord, ctx: RecordContext): number {
  const u = ctx.preferUsage === false ? undefined : rec.usage?.reasoningTokens;
  // A server that reports 0 reasoning tokens while streaming reasoning text did not count it.
  if (u != null && (u > 0 || rec.reasoningText === "")) return u;
  return ctx.tokenizer.count(rec.reasoningText);
}

function inputTokens(rec: RequestRecord, ctx: RecordContext): number | undefined {
  const u = ctx.preferUsage === false ? undefined : rec.usage?.promptTokens;
  return u ?? ctx.inputTokens ?? undefined;
}

/** |server − client| / client × 100, or undefined when either is missing or the client saw 0. */
function diffPct(
  server: number | undefined | null,
  client: number | undefined,
): number | undefined {
  if (server == null || client === undefined || client <= 0) return undefined;
  return (Math.abs(server - client) / client) * 100;
}

/** The server-against-tokenizer comparisons a usage discrepancy is judged on. */
const USAGE_DIFF_TAGS = [
  "usage_prompt_tokens_diff_pct",
  "usage_completion_tokens_diff_pct",
  "usage_reasoning_tokens_diff_pct",
] as const;

/** AIPerf's tolerance: an OSL differing from the request by more than min(5 %, 50 tokens). */
export function oslMismatchThreshold(requested: number): number {
  return Math.min(requested * 0.05, 50);
}

/** A hidden 0/1 per-request flag, summed by a run-level count. */
function hiddenFlag(
  tag: string,
  flags: MetricFlag[],
  record: (rec: RequestRecord, m: RecordValues, ctx: RecordContext) => number | undefined,
): MetricDef {
  return {
    tag,
    header: tag,
    unit: "requests",
    displayUnit: "requests",
    kind: "record",
    flags: ["hidden", "no_individual_records", "no_console", ...flags],
    displayOrder: 9999,
    record,
  };
}

/** A run-level count of requests: the sum of a hidden per-request flag. */
function countOf(
  tag: string,
  header: string,
  of: string,
  displayOrder: number,
  flags: MetricFlag[],
): MetricDef {
  return {
    tag,
    header,
    unit: "requests",
    displayUnit: "requests",
    kind: "derived",
    flags: ["no_individual_records", "no_console", ...flags],
    displayOrder,
    derive: (r) => r.sum(of),
  };
}

function percentOf(
  tag: string,
  header: string,
  displayOrder: number,
  flags: MetricFlag[],
  record: (rec: RequestRecord, m: RecordValues, ctx: RecordContext) => number | undefined,
): MetricDef {
  return {
    tag,
    header,
    unit: "%",
    displayUnit: "%",
    kind: "record",
    flags: ["no_console", ...flags],
    displayOrder,
    record,
  };
}

function time(
  tag: string,
  header: string,
  displayOrder: number,
  flags: MetricFlag[],
  record: MetricDef["record"],
): MetricDef {
  return {
    tag,
    header,
    unit: "ns",
    displayUnit: "ms",
    kind: "record",
    flags,
    displayOrder,
    record,
  };
}

function total(
  tag: string,
  header: string,
  of: string,
  displayOrder: number,
  flags: MetricFlag[] = [],
): MetricDef {
  return {
    tag,
    header,
    unit: "tokens",
    displayUnit: "tokens",
    kind: "derived",
    flags: ["no_individual_records", "no_console", ...flags],
    displayOrder,
    derive: (r) => r.sum(of),
  };
}

function perSecond(
  tag: string,
  header: string,
  unit: string,
  displayOrder: number,
  flags: MetricFlag[],
  numerator: (r: RunValues) => number | undefined,
): MetricDef {
  return {
    tag,
    header,
    unit,
    displayUnit: unit,
    kind: "derived",
    flags: ["larger_is_better", "no_individual_records", ...flags],
    displayOrder,
    derive: (r) => {
      const n = numerator(r);
      const d = r.value("benchmark_duration");
      return n === undefined || d === undefined || d <= 0 ? undefined : n / (d / NS_PER_S);
    },
  };
}

function usage(
  tag: string,
  header: string,
  displayOrder: number,
  field: keyof NonNullable<RequestRecord["usage"]>,
): MetricDef {
  return {
    tag,
    header,
    unit: "tokens",
    displayUnit: "tokens",
    kind: "record",
    flags: ["usage", "larger_is_better", "no_console"],
    displayOrder,
    record: (rec) => rec.usage?.[field] ?? undefined,
  };
}

/** All metrics, in dependency order. */
export const METRICS: readonly MetricDef[] = [
  // Timing, from the chunk timestamps.
  time("request_latency", "Request Latency", 300, ["percentile_includes_failed"], (rec) => {
    // The last content response ends the request; a request without one ends at its last byte.
    return rec.responseNs.length > 0 ? rec.responseNs[rec.responseNs.length - 1] : rec.endNs;
  }),
  // The client's own lag: actual send minus intended send. Large values mean the client (a full
  // concurrency cap, a busy Worker), not the server, held the load back.
  time("schedule_lag", "Schedule Lag", 290, ["no_console"], (rec) => {
    if (rec.intendedStartNs === null) return undefined;
    return Number(rec.startNs - rec.intendedStartNs);
  }),
  time("time_to_first_token", "Time to First Token", 100, [
    "streaming_only",
    "produces_tokens",
    "percentile_includes_failed",
  ], (rec) => rec.responseNs.length > 0 ? rec.responseNs[0] : undefined),
  time(
    "time_to_second_token",
    "Time to Second Token",
    200,
    ["streaming_only", "produces_tokens"],
    (rec) => rec.responseNs.length > 1 ? rec.responseNs[1] - rec.responseNs[0] : undefined,
  ),
  time(
    "time_to_first_output_token",
    "Time to First Output Token",
    210,
    ["streaming_only", "produces_tokens"],
    (rec) => {
      const reasoning = rec.responseReasoning;
      if (reasoning === null) return rec.responseNs.length > 0 ? rec.responseNs[0] : undefined;
      for (let i = 0; i < rec.responseNs.length; i++) if (!reasoning[i]) return rec.responseNs[i];
      return undefined;
    },
  ),

  time("decode_duration", "Decode Duration", 350, [
    "streaming_only",
    "produces_tokens",
    "percentile_includes_failed",
    "no_console",
  ], (_rec, m) => {
    const ttft = num(m, AT_TTFT);
    const lat = num(m, AT_LATENCY);
    return ttft === undefined || lat === undefined ? undefined : lat - ttft;
  }),

  // Token counts: the server's usage when present, else the tokenizer.
  {
    tag: "reasoning_token_count",
    header: "Reasoning Token Count",
    unit: "tokens",
    displayUnit: "tokens",
    kind: "record",
    flags: ["produces_tokens", "larger_is_better", "reasoning"],
    displayOrder: 620,
    record: (rec, _m, ctx) => {
      const n = reasoningTokens(rec, ctx);
      return n > 0 || rec.reasoningText !== "" ? n : undefined;
    },
  },
  {
    tag: "output_token_count",
    header: "Output Token Count",
    unit: "tokens",
    displayUnit: "tokens",
    kind: "record",
    flags: ["produces_tokens", "larger_is_better"],
    displayOrder: 610,
    record: (rec, m, ctx) => {
      const completion = ctx.preferUsage === false ? undefined : rec.usage?.completionTokens;
      // Servers count reasoning inside completion tokens; output is what remains.
      if (completion != null) {
        return Math.max(0, completion - (num(m, AT_REASONING_COUNT) ?? 0));
      }
      return ctx.tokenizer.count(rec.outputText);
    },
  },
  {
    tag: "output_sequence_length",
    header: "Output Sequence Length",
    unit: "tokens",
    displayUnit: "tokens",
    kind: "record",
    flags: ["produces_tokens", "larger_is_better"],
    displayOrder: 600,
    record: (_rec, m) => {
      const out = num(m, AT_OUTPUT_COUNT);
      return out === undefined ? undefined : out + (num(m, AT_REASONING_COUNT) ?? 0);
    },
  },
  {
    tag: "input_sequence_length",
    header: "Input Sequence Length",
    unit: "tokens",
    displayUnit: "tokens",
    kind: "record",
    flags: ["larger_is_better"],
    displayOrder: 700,
    record: (rec, _m, ctx) => inputTokens(rec, ctx),
  },

  // Streaming rates.
  time("inter_token_latency", "Inter Token Latency", 400, [
    "streaming_only",
    "produces_tokens",
    "percentile_includes_failed",
  ], (_rec, m) => {
    const osl = num(m, AT_OSL);
    const ttft = num(m, AT_TTFT);
    const lat = num(m, AT_LATENCY);
    if (osl === undefined || osl < 2 || ttft === undefined || lat === undefined) return undefined;
    return (lat - ttft) / (osl - 1);
  }),
  time("inter_chunk_latency", "Inter Chunk Latency", 450, [
    "streaming_only",
    "produces_tokens",
    "list",
    "no_console",
  ], (rec) => {
    const t = rec.responseNs;
    if (t.length < 2) return undefined;
    const gaps = new Array<number>(t.length - 1);
    for (let i = 1; i < t.length; i++) gaps[i - 1] = t[i] - t[i - 1];
    return gaps;
  }),
  {
    tag: "output_token_throughput_per_user",
    header: "Output Token Throughput Per User",
    unit: "tokens/sec/user",
    displayUnit: "tokens/sec/user",
    kind: "record",
    flags: ["streaming_only", "produces_tokens", "larger_is_better"],
    displayOrder: 500,
    record: (_rec, m) => {
      const itl = num(m, AT_ITL);
      return itl === undefined || itl <= 0 ? undefined : NS_PER_S / itl;
    },
  },
  {
    tag: "e2e_output_token_throughput",
    header: "E2E Output Token Throughput",
    unit: "tokens/sec/user",
    displayUnit: "tokens/sec/user",
    kind: "record",
    flags: ["produces_tokens", "larger_is_better"],
    displayOrder: 510,
    record: (_rec, m) => {
      const osl = num(m, AT_OSL);
      const lat = num(m, AT_LATENCY);
      return osl === undefined || lat === undefined || lat <= 0
        ? undefined
        : osl / (lat / NS_PER_S);
    },
  },
  {
    tag: "prefill_throughput_per_user",
    header: "Prefill Throughput Per User",
    unit: "tokens/sec/user",
    displayUnit: "tokens/sec/user",
    kind: "record",
    flags: ["streaming_only", "produces_tokens", "larger_is_better"],
    displayOrder: 520,
    record: (_rec, m) => {
      const isl = num(m, AT_ISL);
      const ttft = num(m, AT_TTFT);
      return isl === undefined || ttft === undefined || ttft <= 0
        ? undefined
        : isl / (ttft / NS_PER_S);
    },
  },

  // Server-reported usage, as reported.
  usage("usage_prompt_tokens", "Usage Prompt Tokens", 1500, "promptTokens"),
  usage("usage_completion_tokens", "Usage Completion Tokens", 1510, "completionTokens"),
  usage("usage_total_tokens", "Usage Total Tokens", 1520, "totalTokens"),
  usage("usage_reasoning_tokens", "Usage Reasoning Tokens", 1530, "reasoningTokens"),
  usage(
    "usage_prompt_cache_read_tokens",
    "Usage Prompt Cache Read Tokens",
    1540,
    "promptCacheReadTokens",
  ),
  usage(
    "usage_prompt_cache_write_tokens",
    "Usage Prompt Cache Write Tokens",
    1550,
    "promptCacheWriteTokens",
  ),
  usage(
    "usage_prompt_cache_miss_tokens",
    "Usage Prompt Cache Miss Tokens",
    1560,
    "promptCacheMissTokens",
  ),

  // Server usage against the client's tokenizer: a large gap means the counts are not comparable.
  percentOf(
    "usage_prompt_tokens_diff_pct",
    "Usage Prompt Tokens Diff",
    1570,
    ["usage"],
    (rec, _m, ctx) => diffPct(rec.usage?.promptTokens, ctx.inputTokens ?? undefined),
  ),
  percentOf(
    "usage_completion_tokens_diff_pct",
    "Usage Completion Tokens Diff",
    1571,
    ["usage", "produces_tokens"],
    (rec, _m, ctx) =>
      rec.usage?.completionTokens == null || ctx.checkUsage === false ? undefined : diffPct(
        rec.usage.completionTokens,
        ctx.tokenizer.count(rec.outputText) + ctx.tokenizer.count(rec.reasoningText),
      ),
  ),
  percentOf(
    "usage_reasoning_tokens_diff_pct",
    "Usage Reasoning Tokens Diff",
    1572,
    ["usage", "produces_tokens", "reasoning"],
    (rec, _m, ctx) =>
      rec.usage?.reasoningTokens == null || rec.reasoningText === "" || ctx.checkUsage === false
        ? undefined
        : diffPct(rec.usage.reasoningTokens, ctx.tokenizer.count(rec.reasoningText)),
  ),
  // Absent on records not checked, so the count is over checked records only.
  hiddenFlag("usage_discrepancy", ["usage"], (_rec, m, ctx) => {
    if (ctx.checkUsage === false) return undefined;
    let compared = false;
    let over = false;
    for (const at of AT_USAGE_DIFFS) {
      const d = num(m, at);
      if (d === undefined) continue;
      compared = true;
      if (d > USAGE_DIFF_THRESHOLD_PCT) over = true;
    }
    return compared ? (over ? 1 : 0) : undefined;
  }),

  // The answer's length against what the request asked for.
  percentOf(
    "osl_mismatch_diff_pct",
    "OSL Mismatch Diff",
    1700,
    ["produces_tokens"],
    (_rec, m, ctx) => {
      const req = ctx.requestedOutputTokens;
      const osl = num(m, AT_OSL);
      return req == null || req <= 0 || osl === undefined ? undefined : ((osl - req) / req) * 100;
    },
  ),
  hiddenFlag("osl_mismatch", ["produces_tokens"], (_rec, m, ctx) => {
    const req = ctx.requestedOutputTokens;
    const osl = num(m, AT_OSL);
    if (req == null || req <= 0 || osl === undefined) return undefined;
    return Math.abs(osl - req) > oslMismatchThreshold(req) ? 1 : 0;
  }),

  // Failed requests.
  {
    tag: "error_isl",
    header: "Error Input Sequence Length",
    unit: "tokens",
    displayUnit: "tokens",
    kind: "record",
    flags: ["error_only", "no_console"],
    displayOrder: 1610,
    record: (rec, _m, ctx) => inputTokens(rec, ctx),
  },

  // Run-level counters.
  {
    tag: "request_count",
    header: "Request Count",
    unit: "requests",
    displayUnit: "requests",
    kind: "aggregate",
    flags: ["larger_is_better", "no_individual_records"],
    displayOrder: 1000,
    derive: (r) => r.requestCount,
  },
  {
    tag: "error_request_count",
    header: "Error Request Count",
    unit: "requests",
    displayUnit: "requests",
    kind: "aggregate",
    flags: ["error_only", "no_individual_records"],
    displayOrder: 1010,
    derive: (r) => r.errorCount > 0 ? r.errorCount : undefined,
  },
  {
    tag: "completed_request_count",
    header: "Completed Request Count",
    unit: "requests",
    displayUnit: "requests",
    kind: "derived",
    flags: ["no_individual_records", "no_console"],
    displayOrder: 1020,
    derive: (r) => r.requestCount + r.errorCount,
  },
  {
    tag: "request_error_rate",
    header: "Request Error Rate",
    unit: "%",
    displayUnit: "%",
    kind: "derived",
    flags: ["no_individual_records", "no_console"],
    displayOrder: 1030,
    derive: (r) => {
      const n = r.requestCount + r.errorCount;
      return n === 0 ? undefined : (r.errorCount / n) * 100;
    },
  },
  {
    tag: "good_request_count",
    header: "Good Request Count",
    unit: "requests",
    displayUnit: "requests",
    kind: "aggregate",
    flags: ["goodput", "larger_is_better", "no_individual_records"],
    displayOrder: 1040,
    derive: (r) => r.goodCount ?? undefined,
  },
  {
    tag: "good_request_fraction",
    header: "Good Request Fraction",
    unit: "ratio",
    displayUnit: "ratio",
    kind: "derived",
    flags: ["goodput", "larger_is_better", "no_individual_records", "no_console"],
    displayOrder: 1050,
    derive: (r) => {
      const n = r.requestCount + r.errorCount;
      return r.goodCount == null || n === 0 ? undefined : r.goodCount / n;
    },
  },
  countOf("osl_mismatch_count", "OSL Mismatch Count", "osl_mismatch", 1710, [
    "produces_tokens",
  ]),
  countOf(
    "usage_discrepancy_count",
    "Usage Discrepancy Count",
    "usage_discrepancy",
    1580,
    ["usage"],
  ),
  {
    tag: "min_request_timestamp",
    header: "Minimum Request Timestamp",
    unit: "ns",
    displayUnit: "ns",
    kind: "aggregate",
    flags: ["internal", "no_individual_records"],
    displayOrder: 1800,
    derive: (r) => r.minStartNs ?? undefined,
  },
  {
    tag: "max_response_timestamp",
    header: "Maximum Response Timestamp",
    unit: "ns",
    displayUnit: "ns",
    kind: "aggregate",
    flags: ["internal", "no_individual_records"],
    displayOrder: 1810,
    derive: (r) => r.maxEndNs ?? undefined,
  },
  {
    tag: "benchmark_duration",
    header: "Benchmark Duration",
    unit: "ns",
    displayUnit: "sec",
    kind: "derived",
    flags: ["no_individual_records"],
    displayOrder: 1100,
    derive: (r) => r.durationNs ?? undefined,
  },
  total("total_isl", "Total Input Sequence Length", "input_sequence_length", 1200),
  total("total_osl", "Total Output Sequence Length", "output_sequence_length", 1210, [
    "produces_tokens",
  ]),
  total("total_output_tokens", "Total Output Tokens", "output_token_count", 1220, [
    "produces_tokens",
  ]),
  total("total_reasoning_tokens", "Total Reasoning Tokens", "reasoning_token_count", 1230, [
    "produces_tokens",
    "reasoning",
  ]),
  total("total_error_isl", "Total Error Input Sequence Length", "error_isl", 1620, ["error_only"]),
  ...[
    "prompt",
    "completion",
    "total",
    "reasoning",
    "prompt_cache_read",
    "prompt_cache_write",
    "prompt_cache_miss",
  ].map((k, i) =>
    total(
      `total_usage_${k}_tokens`,
      `Total Usage ${k.split("_").map((w) => w[0].toUpperCase() + w.slice(1)).join(" ")} Tokens`,
      `usage_${k}_tokens`,
      1590 + i,
      ["usage"],
    )
  ),
  {
    tag: "overall_usage_prompt_cache_read_pct",
    header: "Overall Usage Prompt Cache Read",
    unit: "%",
    displayUnit: "%",
    kind: "derived",
    flags: ["usage", "no_individual_records", "no_console"],
    displayOrder: 1599,
    derive: (r) => {
      const read = r.value("total_usage_prompt_cache_read_tokens");
      const prompt = r.value("total_usage_prompt_tokens");
      return read === undefined || !prompt ? undefined : (read / prompt) * 100;
    },
  },
  perSecond(
    "request_throughput",
    "Request Throughput",
    "requests/sec",
    900,
    [],
    (r) => r.requestCount,
  ),
  perSecond(
    "goodput",
    "Goodput",
    "requests/sec",
    910,
    ["goodput"],
    (r) => r.goodCount ?? undefined,
  ),
  perSecond("output_token_throughput", "Output Token Throughput", "tokens/sec", 800, [
    "produces_tokens",
  ], (r) => r.value("total_osl")),
  perSecond(
    "input_token_throughput",
    "Input Token Throughput",
    "tokens/sec",
    820,
    [],
    (r) => r.value("total_isl"),
  ),
  perSecond("total_token_throughput", "Total Token Throughput", "tokens/sec", 810, [
    "produces_tokens",
  ], (r) => {
    const osl = r.value("total_osl");
    const isl = r.value("total_isl");
    return osl === undefined && isl === undefined ? undefined : (osl ?? 0) + (isl ?? 0);
  }),
];

const BY_TAG = new Map(METRICS.map((d) => [d.tag, d]));

/** The record metrics, in table order: a request's values are kept by position in this list. */
export const RECORD_DEFS: readonly MetricDef[] = METRICS.filter((d) => d.kind === "record");

/**
 * One request's record metrics by their position in {@link RECORD_DEFS}, undefined where one
 * does not apply: what the main thread's hot path passes around, read by index rather than by
 * tag (a lookup by tag over many tags is a slow, megamorphic one).
 */
export type RecordValues = (number | number[] | undefined)[];

const RECORD_INDEX = new Map(RECORD_DEFS.map((d, i) => [d.tag, i]));

/** The position of a record metric the definitions read; throws for a tag that is none. */
function at(tag: string): number {
  const i = recordIndex(tag);
  if (i === -1) throw new Error(`${tag} is not a record metric`);
  return i;
}

// The record metrics that definitions read, by position (set once the table is built).
AT_LATENCY = at("request_latency");
AT_TTFT = at("time_to_first_token");
AT_OUTPUT_COUNT = at("output_token_count");
AT_REASONING_COUNT = at("reasoning_token_count");
AT_OSL = at("output_sequence_length");
AT_ISL = at("input_sequence_length");
AT_ITL = at("inter_token_latency");
AT_USAGE_DIFFS = USAGE_DIFF_TAGS.map(at);

/** The position of a record metric in {@link RECORD_DEFS}; -1 for any other tag. */
export function recordIndex(tag: string): number {
  return RECORD_INDEX.get(tag) ?? -1;
}

/** The values of a tag-keyed object of record metrics, by position; other tags are left out. */
export function recordValues(metrics: RecordMetrics): RecordValues {
  return RECORD_DEFS.map((d) => metrics[d.tag]);
}

/** The definition of a tag, or undefined for an unknown tag. */
export function metricDef(tag: string): MetricDef | undefined {
  return BY_TAG.get(tag);
}

// Divisors, not factors: dividing by an exact power of ten rounds once, as AIPerf does.
const DIVISOR: Record<string, Record<string, number>> = {
  ns: { ns: 1, us: 1e3, ms: 1e6, sec: 1e9 },
};

/** What a value in a metric's base unit is divided by to give its display unit (1: the same). */
export function displayDivisor(def: MetricDef): number {
  if (def.unit === def.displayUnit) return 1;
  const d = DIVISOR[def.unit]?.[def.displayUnit];
  if (d === undefined) throw new Error(`No conversion from ${def.unit} to ${def.displayUnit}`);
  return d;
}

/** Converts a value from a metric's base unit to its display unit. */
export function toDisplay(def: MetricDef, value: number): number {
  if (def.unit === def.displayUnit) return value;
  const d = DIVISOR[def.unit]?.[def.displayUnit];
  if (d === undefined) throw new Error(`No conversion from ${def.unit} to ${def.displayUnit}`);
  return value / d;
}

/** Converts a value from a metric's display unit back to its base unit. */
export function fromDisplay(def: MetricDef, value: number): number {
  if (def.unit === def.displayUnit) return value;
  const d = DIVISOR[def.unit]?.[def.displayUnit];
  if (d === undefined) throw new Error(`No conversion from ${def.displayUnit} to ${def.unit}`);
  return value * d;
}
