/**
 * Shared helpers for the dataset tests: fixture paths and throwaway directories.
 */

import { join } from "node:path";
import assert from "node:assert/strict";
import { DatasetError } from "../../src/dataset/types.ts";
import { REFERENCE } from "../_reference.ts";

/** The AIPerf reference fixtures. */
export const REF = join(REFERENCE, "aiperf");
/** The AIPerf documentation snippets. */
export const SNIPPETS = join(REF, "docs_snippets");

/** Runs `fn` with a fresh temporary directory, removed afterwards. */
export async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "reprise-dataset-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes `content` (text or bytes) to `dir/name` and returns the path. */
export async function write(dir: string, name: string, content: string | Uint8Array) {
  const path = join(dir, name);
  if (typeof content === "string") await Deno.writeTextFile(path, content);
  else await Deno.writeFile(path, content);
  return path;
}

/**
 * Asserts that `promise` rejects with a `DatasetError` whose message contains every one of
 * `parts`; returns the message.
 */
export async function rejectsWith(promise: Promise<unknown>, ...parts: string[]): Promise<string> {
  let error: unknown;
  try {
    await promise;
  } catch (err) {
    error = err;
  }
  assert.ok(error instanceof DatasetError, `expected a DatasetError, got ${error}`);
  for (const part of parts) {
    assert.ok(
      error.message.includes(part),
      `message should contain ${JSON.stringify(part)}:\n  ${error.message}`,
    );
  }
  return error.message;
}
