/**
 * What the live HTTP API reads from a run. The run state implements `ApiSource`; the API only
 * reads, never drives the run, and every value it serves has already been redacted.
 */

import type { Phase } from "../record/record.ts";
import type { MetricStats as Stats } from "../metrics/summary.ts";
import type { ServerValue } from "../observe/series.ts";

/** Where a run is in its life. `/readyz` is 200 only while `running`; `/healthz` is 503 once `failed`. */
export type RunStatus = "starting" | "running" | "complete" | "failed" | "cancelled";

/** Statistics of one metric, as in `profile_export_aiperf.json` (display units). */
export interface MetricStats extends Stats {
  unit: string;
  /** Display name, used as the Prometheus `# HELP` text when present. */
  header?: string;
  [k: string]: unknown;
}

/** Progress of one benchmark phase (counts since the phase started). */
export interface PhaseProgress {
  sent: number;
  completed: number;
  errors: number;
  cancelled: number;
  in_flight: number;
  sessions_started: number;
  sessions_completed: number;
  /** When the phase started, epoch nanoseconds as a decimal string (too large for a JSON number). */
  start_ns?: string;
}

/** What one Worker has done so far. */
export interface WorkerStats {
  requests: number;
  errors: number;
  in_flight: number;
  /** `starting`, `running`, `stopping`, `stopped`, `failed`. */
  state: string;
}

/** Run identity, the same object as `run_info` in `profile_export_aiperf.json`. */
export interface RunInfo {
  benchmark_id: string;
  random_seed: number | null;
  /** The command line, redacted (`redactArgs`). */
  cli_command: string;
  [k: string]: unknown;
}

/** The live view of a run, refreshed on `--stats-interval`; reading it must be cheap. */
export interface LiveSnapshot {
  /** ISO time of the refresh. */
  updatedAt: string;
  info: {
    model: string;
    endpoint_type: string;
    streaming: boolean;
    concurrency: number | null;
    request_rate: number | null;
    version: string;
  };
  /** Metric tag → statistics over the profiling records so far. */
  metrics: Record<string, MetricStats>;
  progress: Record<Phase, PhaseProgress>;
  /** Worker id → its counters. */
  workers: Record<string, WorkerStats>;
  /** The latest value of each scraped server series; absent when nothing is scraped. */
  server?: ServerValue[];
}

/** One instant of the live dashboard: seconds since its history began, each chart's value. */
export interface LivePoint {
  t: number;
  phase: string;
  values: Record<string, number | null>;
}

/** The run state, as the API sees it. Implemented by the run; every method is cheap and does not throw. */
export interface ApiSource {
  status(): RunStatus;
  /** The resolved configuration, already redacted (`redactConfig`). */
  config(): Record<string, unknown>;
  runInfo(): RunInfo;
  snapshot(): LiveSnapshot;
  /** The final `profile_export_aiperf.json` object once the run is complete, else null. */
  results(): unknown | null;
  /** The run's artifact directory, or null before it exists. */
  artifactDir(): string | null;
  /** The dashboard's points so far (`live_series.ts`); absent: the dashboard stays empty. */
  history?(): readonly LivePoint[];
}
