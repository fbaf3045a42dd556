/**
 * Dataset loading: picks the loader for `--custom-dataset-type` (or detects the type from the
 * content) and returns the conversations to replay. Every problem with the input is a
 * `DatasetError` raised here, before any request is sent.
 */

import { detectDatasetType } from "./detect.ts";
import { datasetError } from "./errors.ts";
import { INPUTS_JSON, loadInputsJson } from "./inputs_json.ts";
import { loadRawPayload, RAW_PAYLOAD } from "./raw_payload.ts";
import type { LoadContext } from "./build.ts";
import { loadSingleTurn, SINGLE_TURN } from "./single_turn.ts";
import { loadMultiTurn, MULTI_TURN } from "./multi_turn.ts";
import { loadRandomPool, RANDOM_POOL } from "./random_pool.ts";
import { loadMooncakeTrace, MOONCAKE_TRACE } from "./mooncake_trace.ts";
import { loadShareGpt, SHAREGPT } from "./sharegpt.ts";
import type { Dataset } from "./types.ts";

export type { Conversation, Dataset, Turn } from "./types.ts";
export { DatasetError } from "./types.ts";
export type { BodyFormat, LoadContext } from "./build.ts";

const loaders: Record<string, (path: string, ctx: LoadContext) => Promise<Dataset>> = {
  [RAW_PAYLOAD]: loadRawPayload,
  [INPUTS_JSON]: loadInputsJson,
  [SINGLE_TURN]: loadSingleTurn,
  [MULTI_TURN]: loadMultiTurn,
  [RANDOM_POOL]: loadRandomPool,
  [MOONCAKE_TRACE]: loadMooncakeTrace,
  [SHAREGPT]: loadShareGpt,
};

/** AIPerf's other custom dataset types, named so that asking for one gets a clear answer. */
const AIPERF_ONLY = [
  "bailian_trace",
  "baseten_trace",
  "burst_gpt_trace",
  "sagemaker_data_capture",
  "weka_trace",
  "dag_jsonl",
];

/** The `--custom-dataset-type` values this build can load. */
export const customDatasetTypes: readonly string[] = Object.freeze(Object.keys(loaders));

/** What `loadDataset` takes besides the path. */
export interface LoadOptions extends Partial<LoadContext> {
  /** `--custom-dataset-type`; detected from the content when absent. */
  type?: string;
}

/**
 * Loads the dataset at `path` (a file or a directory). `opts.type` is the
 * `--custom-dataset-type`; without it the type is detected from the content. Formats that hold
 * prompts build their bodies with `opts.format`; `opts.seed` seeds their random draws.
 * Throws a `DatasetError` naming the file, the line or JSON path, and what was expected.
 */
export async function loadDataset(path: string, opts: LoadOptions = {}): Promise<Dataset> {
  const type = opts.type;
  const ctx: LoadContext = {
    format: opts.format,
    seed: opts.seed ?? Math.floor(Math.random() * 2 ** 31),
    numConversations: opts.numConversations,
    outputTokensMean: opts.outputTokensMean,
    outputTokensStddev: opts.outputTokensStddev,
    uuidAndStrip: opts.uuidAndStrip,
  };
  if (type === undefined || type === "") {
    const detected = await detectDatasetType(path, customDatasetTypes);
    return detected.dataset ?? await loaders[detected.type](path, ctx);
  }
  const load = loaders[type];
  if (!load) {
    const known = customDatasetTypes.join(", ");
    throw datasetError(
      path,
      AIPERF_ONLY.includes(type)
        ? `--custom-dataset-type ${type} is not supported by this build (it loads: ${known})`
        : `unknown --custom-dataset-type "${type}" (known: ${known})`,
    );
  }
  return await load(path, ctx);
}
