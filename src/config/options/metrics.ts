/** The Metrics options of `profile`. */

import { z } from "zod";
import { opt } from "./spec.ts";

/**
 * The Metrics options of `profile`: the tokenizer, goodput SLOs, time slices.
 * Keys are the config field names.
 */
export const metricsOptions = {
  tokenizer: opt({
    flag: "tokenizer",
    kind: "string",
    schema: z.string().min(1),
    expect: "builtin, or a path to a tokenizer.json or a folder holding one",
    default: "builtin",
    group: "Metrics",
    help:
      "Tokenizer for token counts: `builtin` (o200k) or a local Hugging Face tokenizer.json / model folder. Nothing is downloaded.",
    metavar: "PATH",
  }),
  goodput: opt({
    flag: "goodput",
    kind: "string",
    schema: z.string().min(1),
    expect: 'SLOs such as "time_to_first_token:200 inter_token_latency:20"',
    group: "Metrics",
    help:
      "Service-level objectives, `tag:value` in display units (ms, tokens/sec/user); requests meeting all of them count as goodput.",
    metavar: "SLOS",
  }),
  sliceDuration: opt({
    flag: "slice-duration",
    kind: "number",
    schema: z.number().positive(),
    expect: "a positive number of seconds",
    group: "Metrics",
    help:
      "Also report metrics per time window of this length (profile_export_aiperf_timeslices.*).",
    metavar: "S",
  }),
} as const;
