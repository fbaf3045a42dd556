/**
 * Small path helpers shared by the loaders.
 */

import { basename } from "node:path";
import { datasetError, describeFsError } from "./errors.ts";

/** Stats a dataset path, turning a failure (missing, no permission) into a `DatasetError`. */
export async function statPath(path: string): Promise<Deno.FileInfo> {
  try {
    return await Deno.stat(path);
  } catch (err) {
    throw datasetError(path, describeFsError(err));
  }
}

/** The file name of `path` without its last extension: `dir/payloads.jsonl` → `payloads`. */
export function fileStem(path: string): string {
  const name = basename(path);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}
