/**
 * The metric registry: every metric reprise reports, one definition each (defined by family in
 * `latency_metrics.ts`, `token_metrics.ts`, `throughput_metrics.ts`, `usage_metrics.ts` and
 * `request_metrics.ts`), assembled into one table. The table is in dependency order: a
 * definition reads only values computed by definitions above it, so one pass in table order
 * computes them all. Its order is also the order of every output that lists metrics.
 */

import { AT, type MetricDef, type RecordMetrics, type RecordValues } from "./metric_def.ts";
import {
  DECODE_DURATION,
  INTER_CHUNK_LATENCY,
  INTER_TOKEN_LATENCY,
  REQUEST_LATENCY,
  SCHEDULE_LAG,
  TIME_TO_FIRST_OUTPUT_TOKEN,
  TIME_TO_FIRST_TOKEN,
  TIME_TO_SECOND_TOKEN,
} from "./latency_metrics.ts";
import {
  INPUT_SEQUENCE_LENGTH,
  OSL_MISMATCH,
  OSL_MISMATCH_COUNT,
  OSL_MISMATCH_DIFF_PCT,
  OUTPUT_SEQUENCE_LENGTH,
  OUTPUT_TOKEN_COUNT,
  REASONING_TOKEN_COUNT,
  TOTAL_ISL,
  TOTAL_OSL,
  TOTAL_OUTPUT_TOKENS,
  TOTAL_REASONING_TOKENS,
} from "./token_metrics.ts";
import {
  E2E_OUTPUT_TOKEN_THROUGHPUT,
  INPUT_TOKEN_THROUGHPUT,
  OUTPUT_TOKEN_THROUGHPUT,
  OUTPUT_TOKEN_THROUGHPUT_PER_USER,
  PREFILL_THROUGHPUT_PER_USER,
  REQUEST_THROUGHPUT,
  TOTAL_TOKEN_THROUGHPUT,
} from "./throughput_metrics.ts";
import { MEDIA_METRICS } from "./media_metrics.ts";
import {
  OVERALL_USAGE_PROMPT_CACHE_READ_PCT,
  USAGE_COUNTS,
  USAGE_DIFF_TAGS,
  USAGE_DIFFS,
  USAGE_DISCREPANCY,
  USAGE_DISCREPANCY_COUNT,
  USAGE_TOTALS,
} from "./usage_metrics.ts";
import {
  BENCHMARK_DURATION,
  COMPLETED_REQUEST_COUNT,
  ERROR_ISL,
  ERROR_REQUEST_COUNT,
  GOOD_REQUEST_COUNT,
  GOOD_REQUEST_FRACTION,
  GOODPUT,
  MAX_RESPONSE_TIMESTAMP,
  MIN_REQUEST_TIMESTAMP,
  REQUEST_COUNT,
  REQUEST_ERROR_RATE,
  TOTAL_ERROR_ISL,
} from "./request_metrics.ts";
import { MEDIA_ANSWER_METRICS } from "./media_answer_metrics.ts";

import { HTTP_REQ_CONNECTING, HTTP_REQ_CONNECTION_REUSED } from "./http_trace_metrics.ts";
export type {
  MetricDef,
  MetricFlag,
  MetricKind,
  RecordContext,
  RecordMetrics,
  RecordValues,
  RunValues,
} from "./metric_def.ts";
export { oslMismatchThreshold } from "./token_metrics.ts";
export { USAGE_DIFF_THRESHOLD_PCT } from "./usage_metrics.ts";
export { displayDivisor, fromDisplay, toDisplay } from "./units.ts";

/** All metrics, in dependency order. */
export const METRICS: readonly MetricDef[] = [
  // Timing, from the chunk timestamps.
  REQUEST_LATENCY,
  SCHEDULE_LAG,
  TIME_TO_FIRST_TOKEN,
  TIME_TO_SECOND_TOKEN,
  TIME_TO_FIRST_OUTPUT_TOKEN,
  DECODE_DURATION,
  // Token counts: the server's usage when present, else the tokenizer.
  REASONING_TOKEN_COUNT,
  OUTPUT_TOKEN_COUNT,
  OUTPUT_SEQUENCE_LENGTH,
  INPUT_SEQUENCE_LENGTH,
  // Streaming rates.
  INTER_TOKEN_LATENCY,
  INTER_CHUNK_LATENCY,
  OUTPUT_TOKEN_THROUGHPUT_PER_USER,
  E2E_OUTPUT_TOKEN_THROUGHPUT,
  PREFILL_THROUGHPUT_PER_USER,
  // Server-reported usage, as reported, then against the client's tokenizer.
  ...USAGE_COUNTS,
  ...USAGE_DIFFS,
  USAGE_DISCREPANCY,
  // Images and audio the request sent, against its latency.
  ...MEDIA_METRICS,
  // The answer's length against what the request asked for.
  OSL_MISMATCH_DIFF_PCT,
  OSL_MISMATCH,
  // What the media endpoints' answers said: images, the video job.
  ...MEDIA_ANSWER_METRICS,
  // Failed requests.
  ERROR_ISL,
  // The connection's trace (--export-http-trace).
  HTTP_REQ_CONNECTING,
  HTTP_REQ_CONNECTION_REUSED,
  // Run-level counters.
  REQUEST_COUNT,
  ERROR_REQUEST_COUNT,
  COMPLETED_REQUEST_COUNT,
  REQUEST_ERROR_RATE,
  GOOD_REQUEST_COUNT,
  GOOD_REQUEST_FRACTION,
  OSL_MISMATCH_COUNT,
  USAGE_DISCREPANCY_COUNT,
  MIN_REQUEST_TIMESTAMP,
  MAX_RESPONSE_TIMESTAMP,
  BENCHMARK_DURATION,
  // Run totals and rates.
  TOTAL_ISL,
  TOTAL_OSL,
  TOTAL_OUTPUT_TOKENS,
  TOTAL_REASONING_TOKENS,
  TOTAL_ERROR_ISL,
  ...USAGE_TOTALS,
  OVERALL_USAGE_PROMPT_CACHE_READ_PCT,
  REQUEST_THROUGHPUT,
  GOODPUT,
  OUTPUT_TOKEN_THROUGHPUT,
  INPUT_TOKEN_THROUGHPUT,
  TOTAL_TOKEN_THROUGHPUT,
];

const BY_TAG = new Map(METRICS.map((d) => [d.tag, d]));

/** The record metrics, in table order: a request's values are kept by position in this list. */
export const RECORD_DEFS: readonly MetricDef[] = METRICS.filter((d) => d.kind === "record");

const RECORD_INDEX = new Map(RECORD_DEFS.map((d, i) => [d.tag, i]));

/** The position of a record metric the definitions read; throws for a tag that is none. */
function at(tag: string): number {
  const i = recordIndex(tag);
  if (i === -1) throw new Error(`${tag} is not a record metric`);
  return i;
}

// The record metrics that definitions read, by position (set once the table is built).
AT.latency = at("request_latency");
AT.ttft = at("time_to_first_token");
AT.outputCount = at("output_token_count");
AT.reasoningCount = at("reasoning_token_count");
AT.osl = at("output_sequence_length");
AT.isl = at("input_sequence_length");
AT.itl = at("inter_token_latency");
AT.usageDiffs = USAGE_DIFF_TAGS.map(at);

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
