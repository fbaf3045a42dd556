/** The Input options of `profile`. */

import { z } from "zod";
import { opt } from "./spec.ts";

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
