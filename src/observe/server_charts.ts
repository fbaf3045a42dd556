/**
 * The server charts the report and the live dashboard draw under the client's: a few numbers
 * that explain latency (queue, batch, KV cache, the server's own token rates and TTFT), each
 * found under the names the common engines give it. Each chart reads series of the generic
 * shape (`series.ts`), so GPU telemetry can add charts here with its own metric names.
 */

import type { SeriesStat, ServerValue } from "./series.ts";

/** One server chart: which metrics feed it and how their label sets combine. */
export interface ServerChartSpec {
  id: string;
  title: string;
  yLabel: string;
  /** Metric names in preference order; the first one a run has is drawn. */
  metrics: string[];
  stat: SeriesStat;
  /** How several label sets or endpoints combine: counts add up, ratios and latencies average. */
  combine: "sum" | "avg";
  /** Factor from the scraped unit to the drawn one (ratio → %, seconds → ms). */
  scale: number;
  /** True when a higher value is better (throughputs), for comparisons across runs. */
  largerIsBetter: boolean;
}

/** The server charts, in display order. */
export const SERVER_CHARTS: ServerChartSpec[] = [
  {
    id: "server-kv-cache",
    title: "KV cache usage (server)",
    yLabel: "%",
    metrics: [
      "vllm:kv_cache_usage_perc",
      "vllm:gpu_cache_usage_perc",
      "sglang:token_usage",
      "trtllm_kv_cache_utilization",
      "dynamo_component_gpu_cache_usage_percent",
    ],
    stat: "value",
    combine: "avg",
    largerIsBetter: false,
    scale: 100,
  },
  {
    id: "server-waiting",
    title: "Requests waiting (server)",
    yLabel: "requests",
    metrics: [
      "vllm:num_requests_waiting",
      "sglang:num_queue_reqs",
      "trtllm_num_requests_waiting",
      "tgi_queue_size",
      "dynamo_frontend_queued_requests",
    ],
    stat: "value",
    combine: "sum",
    largerIsBetter: false,
    scale: 1,
  },
  {
    id: "server-running",
    title: "Requests running (server)",
    yLabel: "requests",
    metrics: [
      "vllm:num_requests_running",
      "sglang:num_running_reqs",
      "trtllm_num_requests_running",
      "tgi_batch_current_size",
      "dynamo_frontend_inflight_requests",
    ],
    stat: "value",
    combine: "sum",
    largerIsBetter: false,
    scale: 1,
  },
  {
    id: "server-ttft",
    title: "Time to first token (server, mean per interval)",
    yLabel: "ms",
    metrics: [
      "vllm:time_to_first_token_seconds",
      "sglang:time_to_first_token_seconds",
      "trtllm_time_to_first_token_seconds",
    ],
    stat: "avg",
    combine: "avg",
    largerIsBetter: false,
    scale: 1000,
  },
  {
    id: "server-generation-tokens",
    title: "Generation tokens/s (server)",
    yLabel: "tokens/sec",
    metrics: ["vllm:generation_tokens", "sglang:generation_tokens"],
    stat: "rate",
    combine: "sum",
    largerIsBetter: true,
    scale: 1,
  },
  {
    id: "server-prompt-tokens",
    title: "Prompt tokens/s (server)",
    yLabel: "tokens/sec",
    metrics: ["vllm:prompt_tokens", "sglang:prompt_tokens"],
    stat: "rate",
    combine: "sum",
    largerIsBetter: true,
    scale: 1,
  },
  {
    id: "server-preemptions",
    title: "Preemptions/s (server)",
    yLabel: "preemptions/sec",
    metrics: ["vllm:num_preemptions"],
    stat: "rate",
    combine: "sum",
    largerIsBetter: false,
    scale: 1,
  },
];

/** The metric a chart draws among those present (its first name found), or null. */
export function chosenMetric(spec: ServerChartSpec, present: Set<string>): string | null {
  return spec.metrics.find((m) => present.has(m)) ?? null;
}

/** Several values of one instant combined as the chart says; null when none is a number. */
export function combine(values: (number | null)[], how: "sum" | "avg"): number | null {
  let sum = 0;
  let n = 0;
  for (const v of values) {
    if (v === null || !Number.isFinite(v)) continue;
    sum += v;
    n++;
  }
  if (n === 0) return null;
  return how === "sum" ? sum : sum / n;
}

/** Each chart's current value from the latest server values (charts without a metric left out). */
export function chartValues(values: ServerValue[]): Record<string, number | null> {
  const present = new Set(values.map((v) => v.metric));
  const out: Record<string, number | null> = {};
  for (const spec of SERVER_CHARTS) {
    const metric = chosenMetric(spec, present);
    if (metric === null) continue;
    const picked = values.filter((v) => v.metric === metric).map((v) =>
      spec.stat === "rate" ? v.rate ?? null : spec.stat === "avg" ? v.avg ?? null : v.value
    );
    const c = combine(picked, spec.combine);
    out[spec.id] = c === null ? null : +(c * spec.scale).toPrecision(6);
  }
  return out;
}
