/** Small readers for untrusted JSON answers, shared by the endpoint parsers. */

import type { Parsed } from "./types.ts";
import { messageOf } from "./server_message.ts";

/** A plain JSON object. */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object (not null, not an array). */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Requires a JSON object, or throws naming what was received. */
export function expectObject(v: unknown, what: string): JsonObject {
  if (!isObject(v)) {
    const got = v === null ? "null" : Array.isArray(v) ? "an array" : typeof v;
    throw new Error(`expected ${what} to be a JSON object, got ${got}`);
  }
  return v;
}

/** The string at `v`, or undefined for anything else (null, numbers, missing). */
export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/**
 * A failure reported inside a 200 answer: `{"error": …}` (OpenAI, TGI) or `{"object":"error"}`
 * (vLLM); undefined when the object is not an error.
 */
export function errorIn(obj: JsonObject): Parsed["error"] | undefined {
  const err = obj.error;
  if ((err === undefined || err === null) && obj.object !== "error") return undefined;
  const code = isObject(err) && typeof err.code === "number"
    ? err.code
    : typeof obj.code === "number"
    ? obj.code
    : undefined;
  const message = messageOf(obj) ?? JSON.stringify(obj);
  return code === undefined ? { message } : { code, message };
}
