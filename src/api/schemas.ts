/**
 * Zod schemas of every API response: the single source of the OpenAPI document. The shapes
 * follow AIPerf's API (`/api/run` is `run_info`, `/api/progress` is `{phases}`, …) so clients
 * written for it keep working.
 */

import { z } from "zod";
import type { MetricStats, PhaseProgress, RunInfo, WorkerStats } from "./types.ts";

/** A run's status. */
export const RunStatusSchema = z
  .enum(["starting", "running", "complete", "failed", "cancelled"])
  .meta({ description: "Where the run is in its life." });

/** `/api/config`: the resolved configuration, secrets removed. */
export const ConfigResponseSchema = z
  .record(z.string(), z.unknown())
  .meta({ description: "The resolved benchmark configuration; the API key is excluded." });

/** `/api/run`. */
export const RunInfoSchema = z
  .looseObject({
    benchmark_id: z.string().meta({ description: "Unique id of this run." }),
    random_seed: z.number().nullable().meta({ description: "The seed, or null when none." }),
    cli_command: z.string().meta({ description: "The command line, secrets redacted." }),
  })
  .meta({ description: "Run identity: the `run_info` block of profile_export_aiperf.json." });

const stat = (description: string) => z.number().optional().meta({ description });

/** Statistics of one metric. */
export const MetricStatsSchema = z
  .looseObject({
    unit: z.string(),
    header: z.string().optional().meta({ description: "Display name." }),
    avg: stat("Mean."),
    min: stat("Minimum."),
    max: stat("Maximum."),
    p1: stat("1st percentile."),
    p5: stat("5th percentile."),
    p10: stat("10th percentile."),
    p25: stat("25th percentile."),
    p50: stat("Median."),
    p75: stat("75th percentile."),
    p90: stat("90th percentile."),
    p95: stat("95th percentile."),
    p99: stat("99th percentile."),
    std: stat("Standard deviation."),
    count: stat("Number of observations."),
    sum: stat("Sum of observations."),
  })
  .meta({ description: "Statistics of one metric, in its display unit." });

/** One server metric and label set as last scraped. */
export const ServerValueSchema = z
  .object({
    metric: z.string().meta({ description: "The server's metric name." }),
    source: z.string().meta({ description: "The /metrics URL it was scraped from." }),
    labels: z.record(z.string(), z.string()).nullable(),
    type: z.enum(["gauge", "counter", "histogram", "summary", "unknown"]),
    value: z.number().nullable().meta({
      description: "Gauge: its value; counter: its total; histogram, summary: the count.",
    }),
    rate: z.number().nullable().optional().meta({
      description: "Counter: increase per second between the last two scrapes.",
    }),
    avg: z.number().nullable().optional().meta({
      description: "Histogram, summary: mean observation between the last two scrapes.",
    }),
  })
  .meta({ description: "A server metric's latest value." });

/** `/api/metrics`. */
export const MetricsResponseSchema = z
  .object({
    aiperf_version: z.string().meta({
      description: "The AIPerf release whose output formats reprise follows.",
    }),
    benchmark_id: z.string(),
    model: z.string(),
    endpoint_type: z.string(),
    streaming: z.boolean(),
    concurrency: z.number().nullable(),
    request_rate: z.number().nullable(),
    metrics: z.record(z.string(), MetricStatsSchema).meta({ description: "Metric tag → stats." }),
    reprise_version: z.string().meta({ description: "reprise's version." }),
    reprise_updated_at: z.string().meta({ description: "ISO time these values were computed." }),
    reprise_server_metrics: z.array(ServerValueSchema).meta({
      description: "The server's metrics as last scraped (empty when none is scraped).",
    }),
  })
  .meta({ description: "Live metric values, refreshed on --stats-interval." });

/** Progress of one phase. */
export const PhaseProgressSchema = z
  .object({
    phase: z.string().meta({ description: "The phase name (same as its key)." }),
    sent: z.number().int(),
    completed: z.number().int(),
    errors: z.number().int(),
    cancelled: z.number().int(),
    in_flight: z.number().int(),
    sessions_started: z.number().int(),
    sessions_completed: z.number().int(),
    start_ns: z.string().optional().meta({ description: "Phase start, epoch ns as a string." }),
  })
  .meta({ description: "Request and session counts of one phase." });

/** `/api/progress`. */
export const ProgressResponseSchema = z
  .object({ phases: z.record(z.string(), PhaseProgressSchema) })
  .meta({ description: "Per-phase progress." });

/** Counters of one Worker. */
export const WorkerStatsSchema = z.object({
  requests: z.number().int(),
  errors: z.number().int(),
  in_flight: z.number().int(),
  state: z.string(),
});

/** `/api/workers`. */
export const WorkersResponseSchema = z
  .object({ workers: z.record(z.string(), WorkerStatsSchema) })
  .meta({ description: "Per-Worker counters, keyed by Worker id." });

/** `/api/results`. */
export const ResultsResponseSchema = z
  .object({
    status: RunStatusSchema,
    results: z.unknown().optional().meta({
      description: "The profile_export_aiperf.json object, once the run is complete.",
    }),
  })
  .meta({ description: "Final results, present once the run has completed." });

/** `/api/results/list`. */
export const ResultsListResponseSchema = z
  .object({
    files: z.array(
      z.object({
        name: z.string().meta({ description: "Path relative to the artifact directory." }),
        size: z.number().int().meta({ description: "Size in bytes." }),
      }),
    ),
  })
  .meta({ description: "Files in the run's artifact directory." });

/** Every error answer (404, 500). */
export const ErrorResponseSchema = z
  .object({ detail: z.string() })
  .meta({ description: "What went wrong." });

// Compile-time checks that the schemas and the source types agree.
type Agrees<Schema extends z.ZodType, T> = z.infer<Schema> extends T ? true : never;
const _agree: [
  Agrees<typeof MetricStatsSchema, MetricStats>,
  Agrees<typeof PhaseProgressSchema, PhaseProgress>,
  Agrees<typeof WorkerStatsSchema, WorkerStats>,
  Agrees<typeof RunInfoSchema, RunInfo>,
] = [true, true, true, true];
void _agree;
