/**
 * The shape of a metric definition and what its computation may read: the request, the values
 * of the record metrics above it (by position), the request's context, and run-level values.
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

/**
 * One request's record metrics by their position in `RECORD_DEFS`, undefined where one
 * does not apply: what the main thread's hot path passes around, read by index rather than by
 * tag (a lookup by tag over many tags is a slow, megamorphic one).
 */
export type RecordValues = (number | number[] | undefined)[];

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
  /**
   * The client counted the input as the server does, so `usage_prompt_tokens_diff_pct` counts
   * toward `usage_discrepancy`. False for a chat body counted without the chat template
   * (`--apply-chat-template` off): the server's count has the template's tokens besides, so the
   * difference says nothing of the tokenizer. Default true.
   */
  promptComparable?: boolean;
  /**
   * The media the request's body carried (images, seconds of input audio), or null/absent for a
   * body without any: what the image and audio metrics read.
   */
  media?: { images: number; audioSeconds: number } | null;
}

/** Run-level inputs of aggregate and derived metrics, in base units. */
export interface RunValues {
  /** Requests that succeeded. */
  requestCount: number;
  /** Requests that failed. */
  errorCount: number;
  /** Earliest start of a successful request (epoch ns), or null when none succeeded. */
  minStartNs: number | null;
  /** Latest end of a successful request (epoch ns), or null when none succeeded. */
  maxEndNs: number | null;
  /**
   * Latest end minus earliest start of the successful requests, exact to the nanosecond (AIPerf's
   * `benchmark_duration`: failed requests do not stretch it); null when none succeeded.
   */
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
  record?: RecordFn;
  /** Aggregate and derived metrics: the run's value; undefined when it does not apply. */
  derive?: (run: RunValues) => number | undefined;
}

/** How a record metric computes one request's value (see {@link MetricDef.record}). */
export type RecordFn = (
  rec: RequestRecord,
  m: RecordValues,
  ctx: RecordContext,
) => number | number[] | undefined;

/** A record metric with a single number per request (not a list). */
export type ScalarRecordFn = (
  rec: RequestRecord,
  m: RecordValues,
  ctx: RecordContext,
) => number | undefined;

/** Nanoseconds in a second: times are kept in ns, rates are per second. */
export const NS_PER_S = 1e9;

/**
 * Positions in `RECORD_DEFS` of the record metrics that other definitions read (see
 * {@link num}). The table must exist before they can be found, so the registry sets them once
 * it is built, before any definition runs; -1 until then.
 */
export const AT = {
  latency: -1,
  ttft: -1,
  outputCount: -1,
  reasoningCount: -1,
  osl: -1,
  isl: -1,
  itl: -1,
  /** The server-against-tokenizer comparisons a usage discrepancy is judged on. */
  usageDiffs: [] as readonly number[],
};

/** The value of the record metric at position `at` (one of {@link AT}), if a number. */
export function num(m: RecordValues, at: number): number | undefined {
  const v = m[at];
  return typeof v === "number" ? v : undefined;
}
