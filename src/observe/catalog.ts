/**
 * The key server metrics of the common inference servers (vLLM, SGLang, TensorRT-LLM, NVIDIA
 * Dynamo, TGI, Triton, llama.cpp's server), by what they measure, and the short console section
 * they give: requests running and waiting, KV cache usage, prefix cache hit rate, the server's
 * own TTFT and queue time, and tokens per second. Every other metric is still exported.
 */

import type { ExportMetric } from "./export.ts";

/** What a key metric measures. */
export type Role =
  | "running"
  | "waiting"
  | "kv_usage"
  | "prefix_hit_rate"
  | "ttft"
  | "queue_time"
  | "tokens_per_second";

/** A ratio of two counters' increases (hits over queries). */
interface Ratio {
  hits: string;
  /** The denominator; `plus` adds the numerator to it (hits + misses). */
  of: string;
  plus?: boolean;
}

/** The metrics of each role, the first found is shown. Counter names are given without `_total`. */
export const KEY_METRICS: Record<Role, { label: string; names: (string | Ratio)[] }> = {
  running: {
    label: "Requests running",
    names: [
      "vllm:num_requests_running",
      "sglang:num_running_reqs",
      "trtllm_num_requests_running",
      "dynamo_frontend_inflight_requests",
      "tgi_batch_current_size",
      "llamacpp:requests_processing",
    ],
  },
  waiting: {
    label: "Requests waiting",
    names: [
      "vllm:num_requests_waiting",
      "sglang:num_queue_reqs",
      "trtllm_num_requests_waiting",
      "dynamo_frontend_queued_requests",
      "tgi_queue_size",
      "llamacpp:requests_deferred",
      "nv_inference_pending_request_count",
    ],
  },
  kv_usage: {
    label: "KV cache usage",
    names: [
      "vllm:kv_cache_usage_perc",
      "vllm:gpu_cache_usage_perc",
      "sglang:token_usage",
      "trtllm_kv_cache_utilization",
      "dynamo_component_gpu_cache_usage_percent",
      "dynamo_component_kvstats_gpu_cache_usage_percent",
    ],
  },
  prefix_hit_rate: {
    label: "Prefix cache hit rate",
    names: [
      { hits: "vllm:prefix_cache_hits", of: "vllm:prefix_cache_queries" },
      "sglang:cache_hit_rate",
      "trtllm_kv_cache_hit_rate",
      { hits: "llamacpp:prompt_tokens_cached", of: "llamacpp:prompt_tokens" },
      { hits: "nv_cache_num_hits_per_model", of: "nv_cache_num_misses_per_model", plus: true },
    ],
  },
  ttft: {
    label: "Server TTFT",
    names: [
      "vllm:time_to_first_token_seconds",
      "sglang:time_to_first_token_seconds",
      "trtllm_time_to_first_token_seconds",
      "dynamo_frontend_time_to_first_token_seconds",
      "nv_inference_first_response_histogram_ms",
    ],
  },
  queue_time: {
    label: "Server queue time",
    names: [
      "vllm:request_queue_time_seconds",
      "sglang:queue_time_seconds",
      "trtllm_request_queue_time_seconds",
      "tgi_request_queue_duration",
    ],
  },
  tokens_per_second: {
    label: "Generated tokens/s",
    names: [
      "vllm:generation_tokens",
      "sglang:generation_tokens",
      "trtllm_generation_tokens",
      "dynamo_frontend_output_tokens",
      "llamacpp:tokens_predicted",
      "tgi_request_generated_tokens",
      "sglang:gen_throughput",
      "llamacpp:predicted_tokens_seconds",
    ],
  },
};

/** A metric by name, with or without the `_total` a counter's samples carry. */
function find(metrics: Record<string, ExportMetric>, name: string): [string, ExportMetric] | null {
  for (const n of [name, `${name}_total`]) if (metrics[n]) return [n, metrics[n]];
  return null;
}

function fmt(v: number): string {
  if (!Number.isFinite(v)) return "-";
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 1 ? v.toFixed(2) : v.toPrecision(3);
}

function sum(m: ExportMetric, stat: string): number {
  return m.series.reduce((a, s) => a + (s.stats[stat] ?? 0), 0);
}

function maxOf(m: ExportMetric, stat: string): number {
  return Math.max(...m.series.map((s) => s.stats[stat] ?? -Infinity));
}

/** One role's line: its figures and the metric they come from; null when none was scraped. */
export function roleLine(metrics: Record<string, ExportMetric>, role: Role): string | null {
  const { label, names } = KEY_METRICS[role];
  for (const entry of names) {
    if (typeof entry !== "string") {
      const hits = find(metrics, entry.hits);
      const of = find(metrics, entry.of);
      if (!hits || !of) continue;
      const h = sum(hits[1], "total");
      const d = sum(of[1], "total") + (entry.plus ? h : 0);
      const rate = d > 0 ? `${(100 * h / d).toFixed(1)} %` : "-";
      return `${label}: ${rate} (${hits[0]} / ${of[0]})`;
    }
    const found = find(metrics, entry);
    if (!found) continue;
    const [name, m] = found;
    let figures: string;
    if (m.type === "histogram") {
      const unit = name.endsWith("_ms") ? "ms" : name.endsWith("_seconds") ? "s" : "";
      if (role === "tokens_per_second") figures = `${fmt(sum(m, "sum_rate"))}`;
      else {
        const s = m.series.find((x) => (x.stats.count ?? 0) > 0)?.stats;
        figures = s
          ? `avg ${fmt(s.avg)} ${unit}, p50 ${fmt(s.p50_estimate)} ${unit}, p99 ${
            fmt(s.p99_estimate)
          } ${unit}`
          : "no observations";
      }
    } else if (m.type === "counter") figures = fmt(sum(m, "rate"));
    else if (role === "kv_usage" || role === "prefix_hit_rate") {
      figures = `avg ${fmt(sum(m, "avg") / Math.max(1, m.series.length))}, max ${
        fmt(maxOf(m, "max"))
      }`;
    } else figures = `avg ${fmt(sum(m, "avg"))}, max ${fmt(sum(m, "max"))}`;
    return `${label}: ${figures} (${name})`;
  }
  return null;
}

/** The console section: one line per role found; empty when no key metric was scraped. */
export function keyMetricsSection(metrics: Record<string, ExportMetric>): string {
  const lines = (Object.keys(KEY_METRICS) as Role[])
    .map((r) => roleLine(metrics, r))
    .filter((l): l is string => l !== null);
  return lines.length === 0 ? "" : `Server metrics\n${lines.map((l) => `  ${l}`).join("\n")}\n`;
}
