/**
 * OpenAI Responses API: `/v1/responses`. Streams typed events (`response.output_text.delta`, …)
 * and ends with `response.completed`, which carries the usage.
 */

import {
  type Endpoint,
  type FormatOptions,
  type Parsed,
  type SseEvent,
  type StreamState,
  textOnly,
  type TurnInput,
} from "./types.ts";
import { TemplateSlot } from "./chunk_template.ts";
import { errorIn, expectObject, isObject, type JsonObject, str } from "./json.ts";
import { normalizeUsage } from "./usage.ts";
import { audioClip, isPlainText, withExtras } from "./format.ts";
import { messageOf } from "./server_message.ts";

/** The key under which a request's stream state remembers the text parts that had deltas. */
const SEEN = "responses.partsWithDeltas";

function partKey(obj: JsonObject): string {
  return `${obj.item_id ?? ""}:${obj.output_index ?? ""}:${obj.content_index ?? ""}`;
}

function seenParts(state: StreamState): Set<string> {
  let seen = state[SEEN] as Set<string> | undefined;
  if (seen === undefined) {
    seen = new Set();
    state[SEEN] = seen;
  }
  return seen;
}

/** The final `response` object of `response.completed` / `response.incomplete`: its usage. */
function finished(obj: JsonObject): Parsed {
  const out: Parsed = { done: true };
  const usage = normalizeUsage(isObject(obj.response) ? obj.response.usage : undefined);
  if (usage) out.usage = usage;
  return out;
}

/** Reads one streamed event; `state` must be fresh for each request. */
export function parseResponsesEvent(event: SseEvent, state: StreamState = {}): Parsed | null {
  const data = event.data;
  if (data === "" || data === "[DONE]") return null;
  const obj = expectObject(JSON.parse(data), "the event");
  const type = str(obj.type) ?? event.event;
  switch (type) {
    case "response.output_text.delta": {
      const delta = str(obj.delta);
      seenParts(state).add(partKey(obj));
      return delta ? { text: delta } : null;
    }
    case "response.output_text.done": {
      // Servers that send no deltas send the whole text here; otherwise it would count twice.
      if (seenParts(state).has(partKey(obj))) return null;
      const text = str(obj.text);
      return text ? { text } : null;
    }
    case "response.reasoning_text.delta":
    case "response.reasoning_summary_text.delta": {
      const delta = str(obj.delta);
      return delta ? { reasoning: delta } : null;
    }
    case "response.function_call_arguments.delta": {
      const delta = str(obj.delta);
      return delta ? { text: delta } : null;
    }
    case "response.completed":
    case "response.incomplete":
      return finished(obj);
    case "response.failed": {
      const resp = isObject(obj.response) ? obj.response : {};
      return { error: { message: messageOf(resp) ?? "the response failed" } };
    }
    case "error":
      return { error: { message: messageOf(obj) ?? JSON.stringify(obj) } };
    default:
      // created, in_progress, output_item.*, content_part.*, *.done: nothing new.
      return null;
  }
}

const DELTA = "response.output_text.delta";

/**
 * The text of a streamed event that carries text only, read by the stream's template when it
 * matches: a text delta like the one learnt, with another text and another `sequence_number`
 * (so the same item and part, whose delta was noted when the template was learnt). "" for events
 * with nothing to read; the full reading of the rest.
 */
function responsesText(data: string, state: StreamState, event: string): string | Parsed {
  const slot = (state.responsesChunk ??= new TemplateSlot()) as TemplateSlot;
  const quick = slot.text(data, event);
  if (quick !== null) return quick;
  const p = parseResponsesEvent({ event, data }, state);
  if (p === null) return "";
  if (!textOnly(p)) return p;
  if (p.text !== undefined && (event === DELTA || data.includes(`"type":"${DELTA}"`))) {
    slot.learn(
      data,
      '"delta":"',
      (d) => parseResponsesEvent({ event, data: d }, {}),
      event,
      '"sequence_number":',
    );
  }
  return p.text ?? "";
}

/** Reads a whole (non-streamed) response: `output[]` items and `usage`. */
export function parseResponsesBody(json: unknown): Parsed {
  const obj = expectObject(json, "the answer");
  if (obj.status === "failed" && isObject(obj.error)) {
    return { error: { message: messageOf(obj.error) ?? "the response failed" } };
  }
  const error = errorIn(obj);
  if (error) return { error };
  let text = "";
  let reasoning = "";
  if (Array.isArray(obj.output)) {
    for (const item of obj.output) {
      if (!isObject(item)) continue;
      if (item.type === "message" && Array.isArray(item.content)) {
        for (const part of item.content) {
          if (isObject(part) && part.type === "output_text") text += str(part.text) ?? "";
        }
      } else if (item.type === "reasoning") {
        for (const list of [item.content, item.summary]) {
          if (!Array.isArray(list)) continue;
          for (const part of list) if (isObject(part)) reasoning += str(part.text) ?? "";
        }
      } else if (item.type === "function_call") {
        text += (str(item.name) ?? "") + (str(item.arguments) ?? "");
      }
    }
  }
  const out: Parsed = {};
  if (text) out.text = text;
  if (reasoning) out.reasoning = reasoning;
  const usage = normalizeUsage(obj.usage);
  if (usage) out.usage = usage;
  return out;
}

/** The turn's content: a bare string for one text, else `input_text`, `input_image`, `input_audio` parts. */
function inputContent(turn: TurnInput): string | JsonObject[] {
  if (isPlainText(turn)) return turn.texts[0];
  return [
    ...turn.texts.map((text) => ({ type: "input_text", text })),
    ...(turn.images ?? []).map((url) => ({ type: "input_image", image_url: url })),
    ...(turn.audios ?? []).map((a) => ({ type: "input_audio", input_audio: audioClip(a) })),
  ];
}

/**
 * A Responses API body: `input` message items (history, then the turn), system text in
 * `instructions`, `max_output_tokens` (the legacy max-tokens flag does not apply here), and, as
 * AIPerf's Responses guide says, `stream_options.include_usage` when streaming with server token
 * counts (the usage then arrives in `response.completed`).
 */
export function formatResponsesPayload(turn: TurnInput, opts: FormatOptions): JsonObject {
  const input: JsonObject[] = (turn.history ?? []).map((m) => ({
    role: m.role,
    content: m.content,
  }));
  input.push({ role: turn.role ?? "user", content: inputContent(turn) });
  const body: JsonObject = { model: opts.model, input, stream: opts.streaming };
  if (turn.system) body.instructions = turn.system;
  if (turn.maxTokens !== undefined) body.max_output_tokens = turn.maxTokens;
  if (opts.streaming && opts.useServerTokenCount) body.stream_options = { include_usage: true };
  return withExtras(body, opts);
}

/** The `responses` endpoint type. */
export const responsesEndpoint: Endpoint = {
  type: "responses",
  path: "/v1/responses",
  supportsStreaming: true,
  metricsTitle: "LLM Metrics",
  expectsDoneMarker: true,
  formatPayload: formatResponsesPayload,
  parseResponse: parseResponsesBody,
  parseEvent: parseResponsesEvent,
  fast: {
    parseText: responsesText,
    textTemplate: (state) => (state.responsesChunk as TemplateSlot | undefined)?.template,
  },
};
