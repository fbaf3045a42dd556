import assert from "node:assert/strict";
import { METRICS, RECORD_DEFS, recordIndex } from "../../src/metrics/definitions.ts";

/**
 * The metric table as it stands: tag, header, unit, display unit, kind, display order, flags, in
 * table order. Every output lists metrics in this order (files, `/metrics`) or by display order
 * (console table, summaries), and a request's record values are kept by position in it, so a
 * change to either order, or to any definition's naming, shows here.
 */
const TABLE: [string, string, string, string, string, number, string[]][] = [
  ["request_latency", "Request Latency", "ns", "ms", "record", 300, ["percentile_includes_failed"]],
  ["schedule_lag", "Schedule Lag", "ns", "ms", "record", 290, ["no_console"]],
  ["time_to_first_token", "Time to First Token", "ns", "ms", "record", 100, [
    "streaming_only",
    "produces_tokens",
    "percentile_includes_failed",
  ]],
  ["time_to_second_token", "Time to Second Token", "ns", "ms", "record", 200, [
    "streaming_only",
    "produces_tokens",
  ]],
  ["time_to_first_output_token", "Time to First Output Token", "ns", "ms", "record", 210, [
    "streaming_only",
    "produces_tokens",
  ]],
  ["decode_duration", "Decode Duration", "ns", "ms", "record", 350, [
    "streaming_only",
    "produces_tokens",
    "percentile_includes_failed",
    "no_console",
  ]],
  ["reasoning_token_count", "Reasoning Token Count", "tokens", "tokens", "record", 620, [
    "produces_tokens",
    "larger_is_better",
    "reasoning",
  ]],
  ["output_token_count", "Output Token Count", "tokens", "tokens", "record", 610, [
    "produces_tokens",
    "larger_is_better",
  ]],
  ["output_sequence_length", "Output Sequence Length", "tokens", "tokens", "record", 600, [
    "produces_tokens",
    "larger_is_better",
  ]],
  ["input_sequence_length", "Input Sequence Length", "tokens", "tokens", "record", 700, [
    "larger_is_better",
  ]],
  ["inter_token_latency", "Inter Token Latency", "ns", "ms", "record", 400, [
    "streaming_only",
    "produces_tokens",
    "percentile_includes_failed",
  ]],
  ["inter_chunk_latency", "Inter Chunk Latency", "ns", "ms", "record", 450, [
    "streaming_only",
    "produces_tokens",
    "list",
    "no_console",
  ]],
  [
    "output_token_throughput_per_user",
    "Output Token Throughput Per User",
    "tokens/sec/user",
    "tokens/sec/user",
    "record",
    500,
    ["streaming_only", "produces_tokens", "larger_is_better"],
  ],
  [
    "e2e_output_token_throughput",
    "E2E Output Token Throughput",
    "tokens/sec/user",
    "tokens/sec/user",
    "record",
    510,
    ["produces_tokens", "larger_is_better"],
  ],
  [
    "prefill_throughput_per_user",
    "Prefill Throughput Per User",
    "tokens/sec/user",
    "tokens/sec/user",
    "record",
    520,
    ["streaming_only", "produces_tokens", "larger_is_better"],
  ],
  ["usage_prompt_tokens", "Usage Prompt Tokens", "tokens", "tokens", "record", 1500, [
    "usage",
    "larger_is_better",
    "no_console",
  ]],
  ["usage_completion_tokens", "Usage Completion Tokens", "tokens", "tokens", "record", 1510, [
    "usage",
    "larger_is_better",
    "no_console",
  ]],
  ["usage_total_tokens", "Usage Total Tokens", "tokens", "tokens", "record", 1520, [
    "usage",
    "larger_is_better",
    "no_console",
  ]],
  ["usage_reasoning_tokens", "Usage Reasoning Tokens", "tokens", "tokens", "record", 1530, [
    "usage",
    "larger_is_better",
    "no_console",
  ]],
  [
    "usage_prompt_cache_read_tokens",
    "Usage Prompt Cache Read Tokens",
    "tokens",
    "tokens",
    "record",
    1540,
    ["usage", "larger_is_better", "no_console"],
  ],
  [
    "usage_prompt_cache_write_tokens",
    "Usage Prompt Cache Write Tokens",
    "tokens",
    "tokens",
    "record",
    1550,
    ["usage", "larger_is_better", "no_console"],
  ],
  [
    "usage_prompt_cache_miss_tokens",
    "Usage Prompt Cache Miss Tokens",
    "tokens",
    "tokens",
    "record",
    1560,
    ["usage", "larger_is_better", "no_console"],
  ],
  ["usage_prompt_audio_tokens", "Usage Prompt Audio Tokens", "tokens", "tokens", "record", 1561, [
    "usage",
    "larger_is_better",
    "no_console",
  ]],
  [
    "usage_completion_audio_tokens",
    "Usage Completion Audio Tokens",
    "tokens",
    "tokens",
    "record",
    1562,
    ["usage", "larger_is_better", "no_console"],
  ],
  ["usage_prompt_audio_seconds", "Usage Prompt Audio Seconds", "sec", "sec", "record", 1563, [
    "usage",
    "larger_is_better",
    "no_console",
  ]],
  ["usage_prompt_tokens_diff_pct", "Usage Prompt Tokens Diff", "%", "%", "record", 1570, [
    "no_console",
    "usage",
  ]],
  ["usage_completion_tokens_diff_pct", "Usage Completion Tokens Diff", "%", "%", "record", 1571, [
    "no_console",
    "usage",
    "produces_tokens",
  ]],
  ["usage_reasoning_tokens_diff_pct", "Usage Reasoning Tokens Diff", "%", "%", "record", 1572, [
    "no_console",
    "usage",
    "produces_tokens",
    "reasoning",
  ]],
  ["usage_discrepancy", "usage_discrepancy", "requests", "requests", "record", 9999, [
    "hidden",
    "no_individual_records",
    "no_console",
    "usage",
  ]],
  ["num_images", "Number of Images", "images", "images", "record", 859, ["no_console"]],
  ["image_throughput", "Image Throughput", "images/sec", "images/sec", "record", 860, [
    "larger_is_better",
  ]],
  ["image_latency", "Image Latency", "ms/image", "ms/image", "record", 861, []],
  ["audio_duration", "Audio Duration", "sec", "sec", "record", 870, ["no_console"]],
  ["rtfx", "Inverse Real-Time Factor (RTFx)", "ratio", "ratio", "record", 850, [
    "larger_is_better",
  ]],
  ["osl_mismatch_diff_pct", "OSL Mismatch Diff", "%", "%", "record", 1700, [
    "no_console",
    "produces_tokens",
  ]],
  ["osl_mismatch", "osl_mismatch", "requests", "requests", "record", 9999, [
    "hidden",
    "no_individual_records",
    "no_console",
    "produces_tokens",
  ]],
  ["video_inference_time", "Video Inference Time", "ns", "ms", "record", 310, []],
  ["video_peak_memory", "Video Peak Memory", "MB", "MB", "record", 311, []],
  ["error_isl", "Error Input Sequence Length", "tokens", "tokens", "record", 1610, [
    "error_only",
    "no_console",
  ]],
  ["http_req_connecting", "HTTP Connecting", "ns", "ms", "record", 2100, ["no_console"]],
  ["http_req_connection_reused", "HTTP Connection Reused", "ratio", "ratio", "record", 2110, [
    "no_console",
  ]],
  ["request_count", "Request Count", "requests", "requests", "aggregate", 1000, [
    "larger_is_better",
    "no_individual_records",
  ]],
  ["error_request_count", "Error Request Count", "requests", "requests", "aggregate", 1010, [
    "error_only",
    "no_individual_records",
  ]],
  ["completed_request_count", "Completed Request Count", "requests", "requests", "derived", 1020, [
    "no_individual_records",
    "no_console",
  ]],
  ["request_error_rate", "Request Error Rate", "%", "%", "derived", 1030, [
    "no_individual_records",
    "no_console",
  ]],
  ["good_request_count", "Good Request Count", "requests", "requests", "aggregate", 1040, [
    "goodput",
    "larger_is_better",
    "no_individual_records",
  ]],
  ["good_request_fraction", "Good Request Fraction", "ratio", "ratio", "derived", 1050, [
    "goodput",
    "larger_is_better",
    "no_individual_records",
    "no_console",
  ]],
  ["osl_mismatch_count", "OSL Mismatch Count", "requests", "requests", "derived", 1710, [
    "no_individual_records",
    "no_console",
    "produces_tokens",
  ]],
  ["usage_discrepancy_count", "Usage Discrepancy Count", "requests", "requests", "derived", 1580, [
    "no_individual_records",
    "no_console",
    "usage",
  ]],
  ["min_request_timestamp", "Minimum Request Timestamp", "ns", "ns", "aggregate", 1800, [
    "internal",
    "no_individual_records",
  ]],
  ["max_response_timestamp", "Maximum Response Timestamp", "ns", "ns", "aggregate", 1810, [
    "internal",
    "no_individual_records",
  ]],
  ["benchmark_duration", "Benchmark Duration", "ns", "sec", "derived", 1100, [
    "no_individual_records",
  ]],
  ["total_isl", "Total Input Sequence Length", "tokens", "tokens", "derived", 1200, [
    "no_individual_records",
    "no_console",
  ]],
  ["total_osl", "Total Output Sequence Length", "tokens", "tokens", "derived", 1210, [
    "no_individual_records",
    "no_console",
    "produces_tokens",
  ]],
  ["total_output_tokens", "Total Output Tokens", "tokens", "tokens", "derived", 1220, [
    "no_individual_records",
    "no_console",
    "produces_tokens",
  ]],
  ["total_reasoning_tokens", "Total Reasoning Tokens", "tokens", "tokens", "derived", 1230, [
    "no_individual_records",
    "no_console",
    "produces_tokens",
    "reasoning",
  ]],
  ["total_error_isl", "Total Error Input Sequence Length", "tokens", "tokens", "derived", 1620, [
    "no_individual_records",
    "no_console",
    "error_only",
  ]],
  ["total_usage_prompt_tokens", "Total Usage Prompt Tokens", "tokens", "tokens", "derived", 1590, [
    "no_individual_records",
    "no_console",
    "usage",
  ]],
  [
    "total_usage_completion_tokens",
    "Total Usage Completion Tokens",
    "tokens",
    "tokens",
    "derived",
    1591,
    ["no_individual_records", "no_console", "usage"],
  ],
  ["total_usage_total_tokens", "Total Usage Total Tokens", "tokens", "tokens", "derived", 1592, [
    "no_individual_records",
    "no_console",
    "usage",
  ]],
  [
    "total_usage_reasoning_tokens",
    "Total Usage Reasoning Tokens",
    "tokens",
    "tokens",
    "derived",
    1593,
    ["no_individual_records", "no_console", "usage"],
  ],
  [
    "total_usage_prompt_cache_read_tokens",
    "Total Usage Prompt Cache Read Tokens",
    "tokens",
    "tokens",
    "derived",
    1594,
    ["no_individual_records", "no_console", "usage"],
  ],
  [
    "total_usage_prompt_cache_write_tokens",
    "Total Usage Prompt Cache Write Tokens",
    "tokens",
    "tokens",
    "derived",
    1595,
    ["no_individual_records", "no_console", "usage"],
  ],
  [
    "total_usage_prompt_cache_miss_tokens",
    "Total Usage Prompt Cache Miss Tokens",
    "tokens",
    "tokens",
    "derived",
    1596,
    ["no_individual_records", "no_console", "usage"],
  ],
  [
    "overall_usage_prompt_cache_read_pct",
    "Overall Usage Prompt Cache Read",
    "%",
    "%",
    "derived",
    1599,
    ["usage", "no_individual_records", "no_console"],
  ],
  ["request_throughput", "Request Throughput", "requests/sec", "requests/sec", "derived", 900, [
    "larger_is_better",
    "no_individual_records",
  ]],
  ["goodput", "Goodput", "requests/sec", "requests/sec", "derived", 910, [
    "larger_is_better",
    "no_individual_records",
    "goodput",
  ]],
  [
    "output_token_throughput",
    "Output Token Throughput",
    "tokens/sec",
    "tokens/sec",
    "derived",
    800,
    ["larger_is_better", "no_individual_records", "produces_tokens"],
  ],
  ["input_token_throughput", "Input Token Throughput", "tokens/sec", "tokens/sec", "derived", 820, [
    "larger_is_better",
    "no_individual_records",
  ]],
  ["total_token_throughput", "Total Token Throughput", "tokens/sec", "tokens/sec", "derived", 810, [
    "larger_is_better",
    "no_individual_records",
    "produces_tokens",
  ]],
];

Deno.test("METRICS: the table's order and every definition's naming, units and flags", () => {
  assert.deepEqual(
    METRICS.map((d) => [
      d.tag,
      d.header,
      d.unit,
      d.displayUnit,
      d.kind,
      d.displayOrder,
      [...d.flags],
    ]),
    TABLE,
  );
});

Deno.test("RECORD_DEFS: the record metrics in table order, found by position", () => {
  const tags = TABLE.filter((r) => r[4] === "record").map((r) => r[0]);
  assert.deepEqual(RECORD_DEFS.map((d) => d.tag), tags);
  tags.forEach((t, i) => assert.equal(recordIndex(t), i));
  assert.equal(recordIndex("request_count"), -1);
});
