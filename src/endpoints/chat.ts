/** OpenAI chat completions: `/v1/chat/completions`, streamed as `chat.completion.chunk` events. */

import type { Endpoint, FormatOptions, Parsed, SseEvent, TurnInput } from "./types.ts";
import { errorIn, expectObject, isObject, type JsonObject, str } from "./json.ts";
import { normalizeUsage } from "./usage.ts";
import { audioClip, isPlainText, withExtras } from "./format.ts";

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

/** The turn's content: a bare string for one text, else text, `image_url` and `input_audio` parts. */
function chatContent(turn: TurnInput): string | JsonObject[] {
  if (isPlainText(turn)) return turn.texts[0];
  return [
    ...turn.texts.map((text) => ({ type: "text", text })),
    ...(turn.images ?? []).map((url) => ({ type: "image_url", image_url: { url } })),
    ...(turn.audios ?? []).map((a) => ({ type: "input_audio", input_audio: audioClip(a) })),
  ];
}

/** The chat `messages` of a turn: system message, history, then the turn itself. */
export function chatMessages(turn: TurnInput): JsonObject[] {
  const messages: JsonObject[] = [];
  if (turn.system) messages.push({ role: "system", content: turn.system });
  for (const m of turn.history ?? []) messages.push({ role: m.role, content: m.content });
  messages.push({ role: turn.role ?? "user", content: chatContent(turn) });
  return messages;
}

/**
 * A chat completions body: `messages`, `max_completion_tokens` (`max_tokens` with the legacy
 * flag), `stream`, and `stream_options.include_usage` when streaming with server token counts.
 */
export function formatChatPayload(turn: TurnInput, opts: FormatOptions): JsonObject {
  const body: JsonObject = {
    model: opts.model,
    messages: chatMessages(turn),
    stream: opts.streaming,
  };
  if (turn.maxTokens !== undefined) {
    body[opts.useLegacyMaxTokens ? "max_tokens" : "max_completion_tokens"] = turn.maxTokens;
  }
  // Without it, OpenAI-compatible servers send no usage in a stream.
  if (opts.streaming && opts.useServerTokenCount) body.stream_options = { include_usage: true };
  return withExtras(body, opts);
}

/** The `chat` endpoint type. */
export const chatEndpoint: Endpoint = {
  type: "chat",
  path: "/v1/chat/completions",
  supportsStreaming: true,
  metricsTitle: "LLM Metrics",
  expectsDoneMarker: true,
  formatPayload: formatChatPayload,
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
