/**
 * Throughput metrics: per-request token rates (per user) and the run's rates over the benchmark
 * duration (requests and tokens per second).
 */

import { perSecond } from "./metric_builders.ts";
import { AT, type MetricDef, NS_PER_S, num } from "./metric_def.ts";

/** One over the inter-token latency: a streaming user's decode rate. */
export const OUTPUT_TOKEN_THROUGHPUT_PER_USER: MetricDef = {
  tag: "output_token_throughput_per_user",
  header: "Output Token Throughput Per User",
  unit: "tokens/sec/user",
  displayUnit: "tokens/sec/user",
  kind: "record",
  flags: ["streaming_only", "produces_tokens", "larger_is_better"],
  displayOrder: 500,
  record: (_rec, m) => {
    const itl = num(m, AT.itl);
    return itl === undefined || itl <= 0 ? undefined : NS_PER_S / itl;
  },
};

/** Output sequence length over the whole request latency. */
export const E2E_OUTPUT_TOKEN_THROUGHPUT: MetricDef = {
  tag: "e2e_output_token_throughput",
  header: "E2E Output Token Throughput",
  unit: "tokens/sec/user",
  displayUnit: "tokens/sec/user",
  kind: "record",
  flags: ["produces_tokens", "larger_is_better"],
  displayOrder: 510,
  record: (_rec, m) => {
    const osl = num(m, AT.osl);
    const lat = num(m, AT.latency);
    return osl === undefined || lat === undefined || lat <= 0 ? undefined : osl / (lat / NS_PER_S);
  },
};

/** Input sequence length over the time to first token. */
export const PREFILL_THROUGHPUT_PER_USER: MetricDef = {
  tag: "prefill_throughput_per_user",
  header: "Prefill Throughput Per User",
  unit: "tokens/sec/user",
  displayUnit: "tokens/sec/user",
  kind: "record",
  flags: ["streaming_only", "produces_tokens", "larger_is_better"],
  displayOrder: 520,
  record: (_rec, m) => {
    const isl = num(m, AT.isl);
    const ttft = num(m, AT.ttft);
    return isl === undefined || ttft === undefined || ttft <= 0
      ? undefined
      : isl / (ttft / NS_PER_S);
  },
};

/** Successful requests per second. */
export const REQUEST_THROUGHPUT: MetricDef = perSecond(
  "request_throughput",
  "Request Throughput",
  "requests/sec",
  900,
  [],
  (r) => r.requestCount,
);

/** Output plus reasoning tokens per second. */
export const OUTPUT_TOKEN_THROUGHPUT: MetricDef = perSecond(
  "output_token_throughput",
  "Output Token Throughput",
  "tokens/sec",
  800,
  ["produces_tokens"],
  (r) => r.value("total_osl"),
);

/** Input tokens per second. */
export const INPUT_TOKEN_THROUGHPUT: MetricDef = perSecond(
  "input_token_throughput",
  "Input Token Throughput",
  "tokens/sec",
  820,
  [],
  (r) => r.value("total_isl"),
);

/** Input and output tokens per second. */
export const TOTAL_TOKEN_THROUGHPUT: MetricDef = perSecond(
  "total_token_throughput",
  "Total Token Throughput",
  "tokens/sec",
  810,
  ["produces_tokens"],
  (r) => {
    const osl = r.value("total_osl");
    const isl = r.value("total_isl");
    return osl === undefined && isl === undefined ? undefined : (osl ?? 0) + (isl ?? 0);
  },
);
