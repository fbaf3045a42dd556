/**
 * Dataset loading: picks the loader for `--custom-dataset-type` (or detects the type from the
 * content) and returns the conversations to replay. Every problem with the input is a
 * `DatasetError` raised here, before any request is sent.
 */

import { detectDatasetType } from "./detect.ts";
import { datasetError } from "./errors.ts";
import { INPUTS_JSON, loadInputsJson } from "./inputs_json.ts";
import { loadRawPayload, RAW_PAYLOAD } from "./raw_payload.ts";
import type { Dataset } from "./types.ts";

export type { Conversation, Dataset, Turn } from "./types.ts";
export { DatasetError } from "./types.ts";

const loaders: Record<string, (path: string) => Promise<Dataset>> = {
  [RAW_PAYLOAD]: loadRawPayload,
  [INPUTS_JSON]: loadInputsJson,
};

/** AIPerf's other custom dataset types, named so that asking for one gets a clear answer. */
const AIPERF_ONLY = [
  "single_turn",
  "multi_turn",
  "random_pool",
  "mooncake_trace",
  "bailian_trace",
  "baseten_trace",
  "burst_gpt_trace",
  "sagemaker_data_capture",
  "weka_trace",
  "dag_jsonl",
];

/** The `--custom-dataset-type` values this build can load. */
export const customDatasetTypes: readonly string[] = Object.freeze(Object.keys(loaders));

/**
 * Loads the dataset at `path` (a file or a directory). `opts.type` is the
 * `--custom-dataset-type`; without it the type is detected from the content.
 * Throws a `DatasetError` naming the file, the line or JSON path, and what was expected.
 */
export async function loadDataset(path: string, opts: { type?: string } = {}): Promise<Dataset> {
  const type = opts.type;
  if (type === undefined || type === "") {
    const detected = await detectDatasetType(path, customDatasetTypes);
    return detected.dataset ?? await loaders[detected.type](path);
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
  return await load(path);
}
