/** The Output options of `profile`. */

import { z } from "zod";
import { opt } from "./spec.ts";

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
  ui: opt<"progress" | "simple" | "none">({
    flag: "ui",
    aliases: ["ui-type"],
    kind: "string",
    schema: z.enum(["progress", "simple", "none"]),
    expect: "one of progress, simple, none",
    default: "progress",
    group: "Output",
    help: "Progress display on stderr: a live line on a terminal, plain lines, or nothing.",
    metavar: "MODE",
  }),
  verbose: opt({
    flag: "verbose",
    short: "v",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Output",
    help: "Log more detail to stderr.",
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
