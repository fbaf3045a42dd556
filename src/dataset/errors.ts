/**
 * Helpers that phrase dataset errors one way: `Cannot read dataset "<file>": <what is wrong>`.
 */

import { DatasetError } from "./types.ts";

/** Builds the error for input the user must fix in `source` (a file or directory path). */
export function datasetError(source: string, detail: string): DatasetError {
  return new DatasetError(`Cannot read dataset "${source}": ${detail}`);
}

/** Names a parsed JSON value's kind for messages: "a string", "an array", "null", … */
export function describeJson(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "object":
      return "an object";
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    default:
      return typeof value;
  }
}

/** Turns an error thrown by a `Deno` file operation into a sentence for the user. */
export function describeFsError(err: unknown): string {
  if (err instanceof Deno.errors.NotFound) return "no such file or directory";
  if (err instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (err instanceof Deno.errors.NotCapable) {
    return "read access was not granted (run with --allow-read)";
  }
  if (err instanceof Deno.errors.IsADirectory) return "it is a directory, expected a file";
  return err instanceof Error ? err.message : String(err);
}
