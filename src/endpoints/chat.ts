/** OpenAI chat completions: `/v1/chat/completions`, streamed as `chat.completion.chunk` events. */

import type { Endpoint, Parsed, SseEvent } from "./types.ts";
import { errorIn, expectObject, isObject, type JsonObject, str } from "./json.ts";
import { normalizeUsage } from "./usage.ts";

const DONE: Parsed = Object.freeze({ done: true });

/** Adds the text and reasoning of a chat `message` (whole answer) or `delta` (one chunk) to `out`. */
export function readMessage(msg: JsonObject, out: Parsed): void {
  const content = msg.content;
  let text = "";
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    // Some servers answer with content parts: `[{type:"text", text}]`.
    for (const part of content) {
      if (isObject(part) && typeof part.text === "string") text += part.text;
    }
  }
  const reasoning = str(msg.reasoning_content) ?? str(msg.reasoning);
  if (Array.isArray(msg.tool_calls)) {
    // Tool calls are output the model generated: their name and arguments count as text.
    for (const call of msg.tool_calls) {
      if (!isObject(call) || !isObject(call.function)) continue;
      const name = str(call.function.name);
      const args = str(call.function.arguments);
      if (name) text += name;
      if (args) text += args;
    }
  }
  if (text) out.text = text;
  if (reasoning) out.reasoning = reasoning;
}

/** Reads a chat completion or chunk object (shared by both shapes). */
function readCompletion(json: unknown, key: "message" | "delta"): Parsed {
  const obj = expectObject(json, "the answer");
  const out: Parsed = {};
  // Servers report failures inside a 200 too.
  const error = errorIn(obj);
  if (error) return { error };
  const choices = obj.choices;
  if (Array.isArray(choices) && choices.length > 0 && isObject(choices[0])) {
    const msg = choices[0][key];
    if (isObject(msg)) readMessage(msg, out);
  }
  const usage = normalizeUsage(obj.usage);
  if (usage) out.usage = usage;
  return out;
}

/** The `chat` endpoint type. */
export const chatEndpoint: Endpoint = {
  type: "chat",
  path: "/v1/chat/completions",
  supportsStreaming: true,
  metricsTitle: "LLM Metrics",
  expectsDoneMarker: true,
  parseResponse(json: unknown): Parsed {
    return readCompletion(json, "message");
  },
  parseEvent(event: SseEvent): Parsed | null {
    const data = event.data;
    if (data === "[DONE]") return DONE;
    if (data === "") return null;
    return readCompletion(JSON.parse(data), "delta");
  },
};
