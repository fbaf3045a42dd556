/** The Metrics options of `profile`. */

import { z } from "zod";
import { opt } from "./spec.ts";

/**
 * The Metrics options of `profile`: the tokenizer (name, revision, chat template), goodput SLOs, time slices.
 * Keys are the config field names.
 */
export const metricsOptions = {
  tokenizer: opt({
    flag: "tokenizer",
    kind: "string",
    schema: z.string().min(1),
    expect:
      "builtin, a Hugging Face model name, or a path to a tokenizer.json or a folder holding one",
    group: "Metrics",
    help:
      "Tokenizer for token counts: a Hugging Face model name (found in the Hub cache, downloaded into it when absent), a local tokenizer.json / model folder, or `builtin` (o200k). Default: the model name (placeholder names such as mock-model use builtin).",
    metavar: "NAME",
  }),
  tokenizerRevision: opt({
    flag: "tokenizer-revision",
    kind: "string",
    schema: z.string().min(1),
    expect: "a branch, tag or commit hash",
    default: "main",
    group: "Metrics",
    help: "Revision of a Hugging Face tokenizer: a branch, tag or commit hash.",
    metavar: "REV",
  }),
  tokenizerTrustRemoteCode: opt({
    flag: "tokenizer-trust-remote-code",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Metrics",
    help:
      "Accepted for AIPerf compatibility; reprise reads only tokenizer.json and tokenizer_config.json (data) and never runs a model's code.",
  }),
  applyChatTemplate: opt({
    flag: "apply-chat-template",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Metrics",
    help:
      "Count a chat request's input tokens as the server does: its messages rendered through the tokenizer's chat template (tokenizer_config.json), template tokens included.",
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
