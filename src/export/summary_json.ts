/** `profile_export_aiperf.json`: the run summary in AIPerf's JSON export schema. */

import type { ErrorSummaryEntry } from "../metrics/error_summary.ts";
import { isoUtc } from "../record/clock.ts";
import { type MetricResult, STAT_KEYS, type Summary } from "../metrics/summary.ts";
import { writeArtifact } from "./artifact.ts";
import { aiperfInputConfig } from "./input_config.ts";

/** The AIPerf JSON export schema version this file follows (1.5: count/sum, run_info, warmup_metrics). */
export const SCHEMA_VERSION = "1.5";

/**
 * The AIPerf release whose file formats reprise follows, written as `aiperf_version` so that
 * tools which read AIPerf artifacts (and check its version) read reprise's too.
 */
export const AIPERF_COMPAT_VERSION = "0.12.0";

/** What the summary says about the run besides its metrics. */
export interface RunInfo {
  benchmarkId: string;
  /** The command line, secrets already redacted. */
  cliCommand: string | null;
  randomSeed: number | null;
  /** Start of the profiling phase (epoch ns). */
  startNs: bigint;
  /** End of the profiling phase (epoch ns). */
  endNs: bigint;
  /** The run was stopped early (Ctrl+C, failure threshold). */
  wasCancelled: boolean;
  /** The resolved options, secrets already redacted. */
  inputConfig: Record<string, unknown>;
  /** reprise's version. */
  version: string;
  /** The run's place in a sweep or in repeated runs; absent for a single run. */
  variation?: RunVariation;
}

/** Where a run sits in a sweep, repeated runs or a search (AIPerf's `run_info` fields). */
export interface RunVariation {
  /** One id shared by every run of the sweep. */
  sweepId: string;
  /** The repetition, from 0. */
  trial: number;
  /** `run_0001`, `trial_0001`. */
  runLabel: string;
  /** `concurrency_4`, or `base` without a sweep. */
  variationLabel: string;
  variationIndex: number;
  variationValues: Record<string, unknown>;
}

/** Optional parts of the summary. */
export interface SummaryExtras {
  errorSummary: ErrorSummaryEntry[];
  /** Metrics of the warmup phase, when there was one. */
  warmupMetrics?: Summary;
  /** Top-level sections from outside the records (`telemetry_data`). */
  sections?: Record<string, unknown>;
}

/** A new benchmark id as AIPerf makes one: a random UUID4 as 32 hex digits, no dashes. */
export function newBenchmarkId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/**
 * The `run_info` block (AIPerf's schema 1.3 fields). A single run is no part of a sweep: no
 * sweep id, trial 0, the `base` variation; a run of a sweep says where it sits.
 */
export function runInfoBlock(
  run: Pick<RunInfo, "benchmarkId" | "randomSeed" | "cliCommand" | "variation">,
): Record<string, unknown> {
  const v = run.variation;
  return {
    benchmark_id: run.benchmarkId,
    sweep_id: v?.sweepId ?? null,
    random_seed: run.randomSeed,
    trial: v?.trial ?? 0,
    run_label: v?.runLabel ?? "run_0001",
    variation_label: v?.variationLabel ?? "base",
    variation_index: v?.variationIndex ?? 0,
    variation_values: v?.variationValues ?? {},
    cli_command: run.cliCommand,
  };
}

/** One metric's stats block: `{unit, avg, …}` with only the statistics it has. */
export function metricBlock(m: MetricResult): Record<string, unknown> {
  const block: Record<string, unknown> = { unit: m.unit };
  for (const k of STAT_KEYS) {
    const v = m[k];
    // Non-finite values (an adjusted tail made of failures) become null, as AIPerf writes them.
    if (v !== undefined) block[k] = Number.isFinite(v) ? v : null;
  }
  return block;
}

function metricBlocks(summary: Summary): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const m of summary.metrics) out[m.tag] = metricBlock(m);
  return out;
}

/** The text of `profile_export_aiperf.json`, pretty-printed with 2-space indent. */
export function summaryJson(summary: Summary, run: RunInfo, extras?: SummaryExtras): string {
  const doc: Record<string, unknown> = {
    schema_version: SCHEMA_VERSION,
    aiperf_version: AIPERF_COMPAT_VERSION,
    reprise_version: run.version,
    benchmark_id: run.benchmarkId,
    ...metricBlocks(summary),
    input_config: aiperfInputConfig(run.inputConfig),
    was_cancelled: run.wasCancelled,
    error_summary: extras?.errorSummary ?? [],
    start_time: isoUtc(run.startNs),
    end_time: isoUtc(run.endNs),
    run_info: runInfoBlock(run),
    // reprise's resolved options in its own flat form: every option, also those AIPerf's
    // shape has no place for.
    reprise_input_config: run.inputConfig,
  };
  if (extras?.warmupMetrics) doc.warmup_metrics = metricBlocks(extras.warmupMetrics);
  Object.assign(doc, extras?.sections);
  return JSON.stringify(doc, null, 2) + "\n";
}

/** Writes `profile_export_aiperf.json` to `path`, creating its directory; returns its text. */
export async function writeSummaryJson(
  path: string,
  summary: Summary,
  run: RunInfo,
  extras?: SummaryExtras,
): Promise<string> {
  const text = summaryJson(summary, run, extras);
  await writeArtifact(path, text);
  return text;
}
