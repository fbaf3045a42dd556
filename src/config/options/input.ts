/** The Input options of `profile`. */

import { z } from "zod";
import { compat, opt, type OptionKind } from "./spec.ts";

/**
 * The Input options of `profile`: the dataset file, its type, sampling, the seed, extra inputs.
 * Keys are the config field names.
 */
export const inputOptions = {
  config: opt({
    flag: "config",
    short: "f",
    kind: "string",
    schema: z.string().min(1),
    expect: "a YAML config file path",
    group: "Input",
    help:
      "AIPerf YAML config file (schemaVersion 2.0; docs/config-file.md). Flags and env vars given override its values.",
    metavar: "FILE",
  }),
  inputFile: opt({
    flag: "input-file",
    kind: "string",
    schema: z.string().min(1),
    expect: "a file or directory path",
    group: "Input",
    help: "Dataset file or directory to replay.",
    metavar: "PATH",
  }),
  customDatasetType: opt({
    flag: "custom-dataset-type",
    kind: "string",
    schema: z.string().min(1),
    expect: "a dataset type",
    group: "Input",
    help: "Dataset format (raw_payload, inputs_json, …); detected when absent.",
    metavar: "TYPE",
  }),
  // No default: unset means the dataset type's own (see dataset/sampling.ts defaultSampling).
  datasetSamplingStrategy: opt<"sequential" | "random" | "shuffle" | undefined>({
    flag: "dataset-sampling-strategy",
    kind: "string",
    schema: z.enum(["sequential", "random", "shuffle"]).optional(),
    expect: "one of sequential, random, shuffle",
    group: "Input",
    help:
      "Order in which conversations are taken from the dataset. Default per dataset, as AIPerf: sequential for files and traces, random for random_pool, shuffle for synthetic prompts.",
    metavar: "STRATEGY",
  }),
  randomSeed: opt({
    flag: "random-seed",
    kind: "number",
    schema: z.number().int().nonnegative(),
    expect: "a non-negative integer",
    group: "Input",
    help: "Seed for sampling and anything random; chosen and recorded when absent.",
    metavar: "N",
  }),
  extraInputs: opt({
    flag: "extra-inputs",
    kind: "list",
    schema: z.array(z.string()),
    expect: "`key:value` or a JSON object",
    default: [],
    group: "Input",
    help:
      "Fields merged into payloads reprise builds (`key:value` or JSON); repeatable. `response_field:<JMESPath>` selects the answer text of the raw endpoint.",
    metavar: "KV",
  }),
} as const;

const PUBLIC = "this public-dataset option is not built yet";
const TRACE = "this trace-replay option is not built yet";

/** A not-yet Input flag. */
function inputFlag<T>(
  why: string,
  flag: string,
  kind: OptionKind,
  def: T | undefined,
  help: string,
) {
  return compat<T>({ flag, kind, default: def, group: "Input", help, status: "not-yet", why });
}

/**
 * AIPerf's Input and Conversation Input flags: `--public-dataset` (sharegpt, from a local copy),
 * and those reprise parses without their feature (the other public-dataset knobs and the
 * trace-replay ones), whose defaults are accepted.
 */
export const inputCompatOptions = {
  // Works for sharegpt only, from a local copy (dataset/public.ts); other names stop the run.
  publicDataset: opt<string | undefined>({
    flag: "public-dataset",
    kind: "string",
    schema: z.string().min(1).optional(),
    expect: "a public dataset name",
    group: "Input",
    help:
      "AIPerf's public dataset by name; only sharegpt works, and never downloads: --input-file is the local copy, else the Hugging Face hub cache ($HF_HUB_CACHE, $HF_HOME/hub, ~/.cache/huggingface/hub) or $REPRISE_DATASETS/sharegpt/. Other names: not supported yet.",
    metavar: "NAME",
  }),
  hfSubset: inputFlag(PUBLIC, "hf-subset", "string", undefined, "Hugging Face subset."),
  hfWekaDataset: inputFlag(PUBLIC, "hf-weka-dataset", "string", undefined, "Weka dataset."),
  datasetFilter: inputFlag(PUBLIC, "dataset-filter", "list", undefined, "k=v dataset filters."),
  ignoreTraceDelays: inputFlag(TRACE, "ignore-trace-delays", "boolean", false, "Drop delays."),
  useThinkTimeOnly: inputFlag(TRACE, "use-think-time-only", "boolean", false, "Think time."),
  maxContextLength: inputFlag(TRACE, "max-context-length", "number", undefined, "Cap context."),
  allowDatasetWrap: inputFlag(TRACE, "allow-dataset-wrap", "boolean", false, "Reuse the pool."),
  traceSessionSampleRatio: inputFlag(
    TRACE,
    "trace-session-sample-ratio",
    "number",
    undefined,
    "Keep this fraction of whole sessions.",
  ),
  interTurnDelayCapSeconds: inputFlag(
    TRACE,
    "inter-turn-delay-cap-seconds",
    "number",
    undefined,
    "Clamp replayed turn delays.",
  ),
  maxIdleGapCapSeconds: inputFlag(
    TRACE,
    "max-idle-gap-cap-seconds",
    "number",
    undefined,
    "Clamp replayed idle gaps.",
  ),
  replaySpeedup: inputFlag(TRACE, "replay-speedup", "number", undefined, "Compress trace time."),
  openLoopReplay: inputFlag(TRACE, "open-loop-replay", "boolean", true, "Open-loop sessions."),
  openLoopStrict: inputFlag(TRACE, "open-loop-strict", "boolean", false, "Rows independent."),
  omitKvHints: inputFlag(TRACE, "omit-kv-hints", "boolean", false, "Drop hash_ids hints."),
  forceMinTokens: inputFlag(TRACE, "force-min-tokens", "boolean", true, "Pin min_tokens."),
} as const;
