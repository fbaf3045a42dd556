/** The Output options of `profile`. */

import { z } from "zod";
import { compat, opt, type OptionKind } from "./spec.ts";

/**
 * The Output options of `profile`: where artifacts go and what the console shows.
 * Keys are the config field names.
 */
export const outputOptions = {
  report: opt({
    flag: "report",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Output",
    help: "Also write report.html into the run's artifact directory (charts; opens offline).",
  }),
  artifactDir: opt({
    flag: "artifact-dir",
    aliases: ["output-artifact-dir"],
    kind: "string",
    schema: z.string().min(1),
    expect: "a directory path",
    default: "artifacts",
    group: "Output",
    help: "Root folder of the run's artifact directory.",
    metavar: "DIR",
  }),
  ui: opt<"dashboard" | "simple" | "none">({
    flag: "ui",
    aliases: ["ui-type"],
    kind: "string",
    schema: z.enum(["dashboard", "simple", "none"]),
    expect: "one of dashboard, simple, none",
    default: "dashboard",
    // reprise's earlier name of the progress line.
    valueAliases: { progress: "simple" },
    group: "Output",
    help:
      "Live display on stderr: dashboard (a full-screen view of live TTFT, ITL, throughput, progress, errors and Workers on a terminal; `simple` elsewhere), simple (a progress line), or none.",
    metavar: "MODE",
  }),
  logLevel: opt<"TRACE" | "DEBUG" | "INFO" | "WARNING" | "ERROR" | "CRITICAL">({
    flag: "log-level",
    kind: "string",
    schema: z.enum(["TRACE", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]),
    expect: "one of TRACE, DEBUG, INFO, WARNING, ERROR, CRITICAL",
    valueAliases: {
      trace: "TRACE",
      debug: "DEBUG",
      info: "INFO",
      warning: "WARNING",
      error: "ERROR",
      critical: "CRITICAL",
    },
    group: "Output",
    help:
      "What stderr shows: TRACE (also a line per request), DEBUG (also the plan, clocks, flags without effect), INFO (notes and progress), WARNING, ERROR, CRITICAL (errors only) [default: INFO, or DEBUG with -v, TRACE with -vv].",
    metavar: "LEVEL",
  }),
  verbose: opt({
    flag: "verbose",
    short: "v",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Output",
    help: "Log level DEBUG: also the plan, the clocks and the flags without effect.",
  }),
  extraVerbose: opt({
    flag: "extra-verbose",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Output",
    help: "Log level TRACE (also `-vv`): DEBUG and a line per finished request.",
  }),
  profileExportPrefix: opt({
    flag: "profile-export-prefix",
    aliases: ["profile-export-file"],
    kind: "string",
    schema: z.string().min(1).regex(/^[^/\\]+$/),
    expect: "a file name without a directory",
    group: "Output",
    help:
      "Names every export after this prefix: PREFIX.json, PREFIX.csv, PREFIX.jsonl, PREFIX_raw.jsonl (an extension given is dropped).",
    metavar: "NAME",
  }),
  exportLevel: opt<"summary" | "records" | "raw">({
    flag: "export-level",
    kind: "string",
    schema: z.enum(["summary", "records", "raw"]),
    expect: "one of summary, records, raw",
    default: "records",
    group: "Output",
    help:
      "summary: the summary files only; records: also a line per request (profile_export.jsonl); raw: also each request's body and answer (profile_export_raw.jsonl, secrets redacted) and outputs.json.",
    metavar: "LEVEL",
  }),
  exportOutputsJson: opt({
    flag: "export-outputs-json",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Output",
    help: "Also write each request's answer text to outputs.json.",
  }),
  outputFormat: opt<"table" | "json">({
    flag: "output-format",
    env: ["REPRISE_OUTPUT_FORMAT"],
    kind: "string",
    schema: z.enum(["table", "json"]),
    expect: "one of table, json",
    default: "table",
    group: "Output",
    help:
      "What stdout carries: the metrics table, or the summary JSON (profile_export_aiperf.json's content) and nothing else.",
    metavar: "FORMAT",
  }),
  quiet: opt({
    flag: "quiet",
    short: "q",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Output",
    help: "No progress, no table, no notes: only errors (and the JSON with --output-format json).",
  }),
} as const;

const MLFLOW = "MLflow upload is not built yet";
const WANDB = "Weights & Biases upload is not built yet";
const INTERNAL = "reprise has no";

/** A not-yet Output flag. */
function outFlag<T>(why: string, flag: string, kind: OptionKind, def: T | undefined, help: string) {
  return compat<T>({ flag, kind, default: def, group: "Output", help, status: "not-yet", why });
}

/** An AIPerf service flag that cannot apply to reprise. */
function internal<T>(
  why: string,
  flag: string,
  kind: OptionKind,
  def: T | undefined,
  help: string,
) {
  return compat<T>({
    flag,
    kind,
    default: def,
    group: "Output",
    help,
    status: "no-effect",
    why: `${INTERNAL} ${why}`,
  });
}

/**
 * AIPerf's Output and Service flags that reprise parses without their feature (plots, OTel,
 * MLflow, W&B) or that cannot apply to it (ZMQ and record-processor internals).
 */
export const outputCompatOptions = {
  autoPlot: outFlag(
    "PNG plots are not built yet (--report writes reprise's HTML charts)",
    "auto-plot",
    "boolean",
    false,
    "Run the plots after the profile.",
  ),
  plotRequired: outFlag(
    "PNG plots are not built yet (--report writes reprise's HTML charts)",
    "plot-required",
    "boolean",
    false,
    "Fail when the plots fail.",
  ),
  mlflowTrackingUri: outFlag(MLFLOW, "mlflow-tracking-uri", "string", undefined, "MLflow URI."),
  mlflowExperiment: outFlag(MLFLOW, "mlflow-experiment", "string", undefined, "Experiment."),
  mlflowRunName: outFlag(MLFLOW, "mlflow-run-name", "string", undefined, "Run name."),
  mlflowTag: outFlag(MLFLOW, "mlflow-tag", "list", undefined, "k=v tags."),
  mlflowParentRunId: outFlag(MLFLOW, "mlflow-parent-run-id", "string", undefined, "Parent run."),
  mlflowArtifactGlob: outFlag(MLFLOW, "mlflow-artifact-glob", "list", undefined, "Uploads."),
  wandbProject: outFlag(WANDB, "wandb-project", "string", undefined, "W&B project."),
  wandbEntity: outFlag(WANDB, "wandb-entity", "string", undefined, "W&B entity."),
  wandbRunName: outFlag(WANDB, "wandb-run-name", "string", undefined, "W&B run name."),
  wandbTag: outFlag(WANDB, "wandb-tag", "list", undefined, "W&B tags."),
  recordProcessors: internal(
    "record-processor services: records are measured on the main thread as they arrive",
    "record-processors",
    "number",
    undefined,
    "Record processor services.",
  ),
  zmqHost: internal(
    "ZMQ message bus: Workers are threads of one process",
    "zmq-host",
    "string",
    "127.0.0.1",
    "ZMQ host.",
  ),
  zmqIpcPath: internal(
    "ZMQ message bus: Workers are threads of one process",
    "zmq-ipc-path",
    "string",
    undefined,
    "ZMQ IPC path.",
  ),
  zmqDualBind: internal(
    "ZMQ message bus: Workers are threads of one process",
    "zmq-dual-bind",
    "boolean",
    false,
    "Bind IPC and TCP.",
  ),
} as const;
