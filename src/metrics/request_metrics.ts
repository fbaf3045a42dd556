/**
 * Request metrics: the run's request counts, failed requests (count, rate, their input tokens),
 * goodput (requests meeting every `--goodput` SLO), and the run's time span.
 */

import { inputTokens, perSecond, total } from "./metric_builders.ts";
import type { MetricDef } from "./metric_def.ts";

/** Input tokens of one failed request. */
export const ERROR_ISL: MetricDef = {
  tag: "error_isl",
  header: "Error Input Sequence Length",
  unit: "tokens",
  displayUnit: "tokens",
  kind: "record",
  flags: ["error_only", "no_console"],
  displayOrder: 1610,
  record: (rec, _m, ctx) => inputTokens(rec, ctx),
};

/** Requests that succeeded. */
export const REQUEST_COUNT: MetricDef = {
  tag: "request_count",
  header: "Request Count",
  unit: "requests",
  displayUnit: "requests",
  kind: "aggregate",
  flags: ["larger_is_better", "no_individual_records"],
  displayOrder: 1000,
  derive: (r) => r.requestCount,
};

/** Requests that failed; absent when none did. */
export const ERROR_REQUEST_COUNT: MetricDef = {
  tag: "error_request_count",
  header: "Error Request Count",
  unit: "requests",
  displayUnit: "requests",
  kind: "aggregate",
  flags: ["error_only", "no_individual_records"],
  displayOrder: 1010,
  derive: (r) => r.errorCount > 0 ? r.errorCount : undefined,
};

/** Requests that finished, failed or not. */
export const COMPLETED_REQUEST_COUNT: MetricDef = {
  tag: "completed_request_count",
  header: "Completed Request Count",
  unit: "requests",
  displayUnit: "requests",
  kind: "derived",
  flags: ["no_individual_records", "no_console"],
  displayOrder: 1020,
  derive: (r) => r.requestCount + r.errorCount,
};

/** The percentage of finished requests that failed. */
export const REQUEST_ERROR_RATE: MetricDef = {
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
};

/** Requests meeting every `--goodput` SLO. */
export const GOOD_REQUEST_COUNT: MetricDef = {
  tag: "good_request_count",
  header: "Good Request Count",
  unit: "requests",
  displayUnit: "requests",
  kind: "aggregate",
  flags: ["goodput", "larger_is_better", "no_individual_records"],
  displayOrder: 1040,
  derive: (r) => r.goodCount ?? undefined,
};

/** The share of finished requests meeting every `--goodput` SLO. */
export const GOOD_REQUEST_FRACTION: MetricDef = {
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
};

/** The earliest request start of the phase (epoch ns). */
export const MIN_REQUEST_TIMESTAMP: MetricDef = {
  tag: "min_request_timestamp",
  header: "Minimum Request Timestamp",
  unit: "ns",
  displayUnit: "ns",
  kind: "aggregate",
  flags: ["internal", "no_individual_records"],
  displayOrder: 1800,
  derive: (r) => r.minStartNs ?? undefined,
};

/** The latest request end of the phase (epoch ns). */
export const MAX_RESPONSE_TIMESTAMP: MetricDef = {
  tag: "max_response_timestamp",
  header: "Maximum Response Timestamp",
  unit: "ns",
  displayUnit: "ns",
  kind: "aggregate",
  flags: ["internal", "no_individual_records"],
  displayOrder: 1810,
  derive: (r) => r.maxEndNs ?? undefined,
};

/** From the earliest request start to the latest end: what every run rate divides by. */
export const BENCHMARK_DURATION: MetricDef = {
  tag: "benchmark_duration",
  header: "Benchmark Duration",
  unit: "ns",
  displayUnit: "sec",
  kind: "derived",
  flags: ["no_individual_records"],
  displayOrder: 1100,
  derive: (r) => r.durationNs ?? undefined,
};

/** Input tokens of failed requests over the run. */
export const TOTAL_ERROR_ISL: MetricDef = total(
  "total_error_isl",
  "Total Error Input Sequence Length",
  "error_isl",
  1620,
  ["error_only"],
);

/** Requests meeting every `--goodput` SLO, per second. */
export const GOODPUT: MetricDef = perSecond(
  "goodput",
  "Goodput",
  "requests/sec",
  910,
  ["goodput"],
  (r) => r.goodCount ?? undefined,
);
