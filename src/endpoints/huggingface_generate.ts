/** Hugging Face TGI: `/generate` (whole answer) and `/generate_stream` (one event per token). */

import type { Endpoint, FormatOptions, Parsed, SseEvent, TurnInput } from "./types.ts";
import { errorIn, expectObject, isObject, type JsonObject } from "./json.ts";
import { flatPrompt, rejectMedia, withExtras } from "./format.ts";

/** TGI reports how many tokens it generated in `details.generated_tokens`. */
function detailsUsage(obj: JsonObject, out: Parsed): void {
  if (isObject(obj.details) && typeof obj.details.generated_tokens === "number") {
    out.usage = { completionTokens: obj.details.generated_tokens };
  }
}

/** Reads one `/generate_stream` event: `{token:{text, special}, generated_text, details}`. */
export function parseGenerateEvent(event: SseEvent): Parsed | null {
  const data = event.data;
  if (data === "" || data === "[DONE]") return null;
  const obj = expectObject(JSON.parse(data), "the event");
  const error = errorIn(obj);
  if (error) return { error };
  const out: Parsed = {};
  // The last event repeats the whole text in `generated_text`: only tokens count.
  if (isObject(obj.token) && obj.token.special !== true && typeof obj.token.text === "string") {
    if (obj.token.text) out.text = obj.token.text;
  }
  detailsUsage(obj, out);
  return out.text === undefined && out.usage === undefined ? null : out;
}

/** Reads a `/generate` answer: `{generated_text}` or a one-element list of it. */
export function parseGenerateBody(json: unknown): Parsed {
  const item = Array.isArray(json) ? json[0] : json;
  const obj = expectObject(item, "the answer");
  const error = errorIn(obj);
  if (error) return { error };
  if (typeof obj.generated_text !== "string") {
    throw new Error('expected a "generated_text" string');
  }
  const out: Parsed = {};
  if (obj.generated_text) out.text = obj.generated_text;
  detailsUsage(obj, out);
  return out;
}

/**
 * A TGI body: `{inputs, parameters:{max_new_tokens}}`. No `stream` key: TGI streams by path
 * (`/generate_stream`), and the model is the one the server loaded.
 */
export function formatGeneratePayload(turn: TurnInput, opts: FormatOptions): JsonObject {
  rejectMedia("huggingface_generate", turn, ["images", "audios"]);
  const parameters: JsonObject = {};
  if (turn.maxTokens !== undefined) parameters.max_new_tokens = turn.maxTokens;
  return withExtras({ inputs: flatPrompt(turn), parameters }, opts);
}

/** The `huggingface_generate` endpoint type. */
export const huggingfaceGenerateEndpoint: Endpoint = {
  type: "huggingface_generate",
  path: "/generate",
  streamingPath: "/generate_stream",
  streamRequest: "path",
  supportsStreaming: true,
  metricsTitle: "LLM Metrics",
  formatPayload: formatGeneratePayload,
  parseResponse: parseGenerateBody,
  parseEvent: parseGenerateEvent,
};
