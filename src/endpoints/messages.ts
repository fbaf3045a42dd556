/**
 * Anthropic Messages API: `/v1/messages`. Usage comes in two halves, input in `message_start`
 * and output in `message_delta`; the transport merges them. `message_stop` ends the stream.
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
import { isPlainText, rejectMedia, withExtras } from "./format.ts";
import { messageOf } from "./server_message.ts";

const DONE: Parsed = Object.freeze({ done: true });

function withUsage(out: Parsed, usage: unknown): Parsed {
  const u = normalizeUsage(usage);
  if (u) out.usage = u;
  return out;
}

function errorOf(obj: JsonObject): Parsed {
  return { error: errorIn(obj) ?? { message: messageOf(obj) ?? JSON.stringify(obj) } };
}

/** Reads one streamed event. */
export function parseMessagesEvent(event: SseEvent): Parsed | null {
  const data = event.data;
  if (data === "") return null;
  const obj = expectObject(JSON.parse(data), "the event");
  switch (str(obj.type) ?? event.event) {
    case "content_block_delta": {
      const delta = isObject(obj.delta) ? obj.delta : {};
      switch (delta.type) {
        case "text_delta": {
          const text = str(delta.text);
          return text ? { text } : null;
        }
        case "thinking_delta": {
          const reasoning = str(delta.thinking);
          return reasoning ? { reasoning } : null;
        }
        case "input_json_delta": {
          // Tool input the model wrote counts as output text.
          const text = str(delta.partial_json);
          return text ? { text } : null;
        }
        default:
          return null; // signature_delta and future kinds carry no text
      }
    }
    case "content_block_start": {
      // A tool call starts with its name; text blocks start empty.
      const block = isObject(obj.content_block) ? obj.content_block : {};
      if (block.type === "tool_use" && typeof block.name === "string" && block.name) {
        return { text: block.name };
      }
      return null;
    }
    case "message_start":
      return withUsage({}, isObject(obj.message) ? obj.message.usage : undefined);
    case "message_delta":
      return withUsage({}, obj.usage);
    case "message_stop":
      return DONE;
    case "error":
      return errorOf(obj);
    default:
      return null; // ping, content_block_stop
  }
}

/**
 * The text of a streamed event that carries text only (a `text_delta`), read by the stream's
 * template when it matches; "" for events with nothing to read (ping, block ends); the full
 * reading of the rest.
 */
function messagesText(data: string, state: StreamState, event: string): string | Parsed {
  const slot = (state.messagesChunk ??= new TemplateSlot()) as TemplateSlot;
  const quick = slot.text(data, event);
  if (quick !== null) return quick;
  const p = parseMessagesEvent({ event, data });
  if (p === null) return "";
  if (!textOnly(p)) return p;
  if (p.text !== undefined) {
    slot.learn(data, '"text":"', (d) => parseMessagesEvent({ event, data: d }), event);
  }
  return p.text ?? "";
}

/** Reads a whole message: `content[]` blocks and `usage`. */
export function parseMessagesBody(json: unknown): Parsed {
  const obj = expectObject(json, "the answer");
  if (obj.type === "error" || obj.error !== undefined) return errorOf(obj);
  let text = "";
  let reasoning = "";
  if (Array.isArray(obj.content)) {
    for (const block of obj.content) {
      if (!isObject(block)) continue;
      if (block.type === "text") text += str(block.text) ?? "";
      else if (block.type === "thinking") reasoning += str(block.thinking) ?? "";
      else if (block.type === "tool_use") {
        text += (str(block.name) ?? "") +
          (block.input === undefined ? "" : JSON.stringify(block.input));
      }
    }
  }
  const out: Parsed = {};
  if (text) out.text = text;
  if (reasoning) out.reasoning = reasoning;
  return withUsage(out, obj.usage);
}

/** Anthropic requires `max_tokens`; this is sent when the turn sets none (AIPerf's default). */
export const DEFAULT_MAX_TOKENS = 1024;

/** An Anthropic image `source`: base64 for a `data:` URL, else a URL source. */
function imageSource(image: string): JsonObject {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(image);
  if (m) return { type: "base64", media_type: m[1], data: m[2] };
  return { type: "url", url: image };
}

/** The turn's content: a bare string for one text, else `text` and `image` blocks. */
function messagesContent(turn: TurnInput): string | JsonObject[] {
  if (isPlainText(turn)) return turn.texts[0];
  return [
    ...turn.texts.map((text) => ({ type: "text", text })),
    ...(turn.images ?? []).map((image) => ({ type: "image", source: imageSource(image) })),
  ];
}

/**
 * An Anthropic Messages body: `messages` (history, then the turn), system text in top-level
 * `system`, and `max_tokens` always. Audio cannot be sent: the API has no audio input.
 */
export function formatMessagesPayload(turn: TurnInput, opts: FormatOptions): JsonObject {
  rejectMedia("messages", turn, ["audios"]);
  const messages: JsonObject[] = (turn.history ?? []).map((m) => ({
    role: m.role,
    content: m.content,
  }));
  messages.push({ role: turn.role ?? "user", content: messagesContent(turn) });
  const body: JsonObject = {
    model: opts.model,
    max_tokens: turn.maxTokens ?? DEFAULT_MAX_TOKENS,
    messages,
    stream: opts.streaming,
  };
  if (turn.system) body.system = turn.system;
  return withExtras(body, opts);
}

/** The `messages` endpoint type (Anthropic). */
export const messagesEndpoint: Endpoint = {
  type: "messages",
  path: "/v1/messages",
  supportsStreaming: true,
  metricsTitle: "LLM Metrics",
  expectsDoneMarker: true,
  formatPayload: formatMessagesPayload,
  parseResponse: parseMessagesBody,
  fast: {
    parseText: messagesText,
    textTemplate: (state) => (state.messagesChunk as TemplateSlot | undefined)?.template,
  },
  parseEvent: parseMessagesEvent,
};
