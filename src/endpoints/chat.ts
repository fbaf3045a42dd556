/** OpenAI chat completions: `/v1/chat/completions`, streamed as `chat.completion.chunk` events. */

import {
  type Endpoint,
  type FormatOptions,
  type Parsed,
  type SseEvent,
  type StreamState,
  textOnly,
  type TurnInput,
} from "./types.ts";
import { errorIn, expectObject, isObject, type JsonObject, str } from "./json.ts";
import { normalizeUsage } from "./usage.ts";
import { audioClip, isPlainText, withExtras } from "./format.ts";
import {
  type ChunkTemplate,
  indexOfQuoted,
  ownCopy,
  stringEnd,
  textByTemplate,
} from "./chunk_template.ts";

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

/** Reads one streamed chunk by a full JSON.parse: the reference `parseSimpleChunk` must agree with. */
export function parseChunk(data: string): Parsed {
  return readCompletion(JSON.parse(data), "delta");
}

/**
 * The turn's content: a bare string for one text, else text, `image_url`, `input_audio` and
 * `video_url` parts.
 */
function chatContent(turn: TurnInput): string | JsonObject[] {
  if (isPlainText(turn)) return turn.texts[0];
  return [
    ...turn.texts.map((text) => ({ type: "text", text })),
    ...(turn.images ?? []).map((url, i) => {
      const uuid = turn.imageUuids?.[i];
      return uuid
        ? { type: "image_url", image_url: { url }, uuid }
        : { type: "image_url", image_url: { url } };
    }),
    ...(turn.audios ?? []).map((a) => ({ type: "input_audio", input_audio: audioClip(a) })),
    ...(turn.videos ?? []).map((url) => ({ type: "video_url", video_url: { url } })),
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
  takesVideo: true,
  formatPayload: formatChatPayload,
  parseResponse(json: unknown): Parsed {
    return readCompletion(json, "message");
  },
  fast: {
    parseText(data: string, state: StreamState): string | Parsed | null {
      const quick = textByTemplate(data, template(state));
      if (quick !== null) return quick;
      if (data === "[DONE]") return DONE;
      if (data === "") return null;
      const p = structuralChunk(data, state) ?? parseChunk(data);
      return textOnly(p) ? (p.text ?? "") : p;
    },
    textTemplate: template,
    adoptTemplate(state: StreamState, t: ChunkTemplate): void {
      state.chatChunk = t;
    },
    volatileKeys: ["id", "created"],
  },
  parseEvent(event: SseEvent, state?: StreamState): Parsed | null {
    const data = event.data;
    if (data === "[DONE]") return DONE;
    if (data === "") return null;
    return parseSimpleChunk(data, state) ?? parseChunk(data);
  },
};

const QUOTE = 34;
// Keys as searched: without their opening quote (see `indexOfQuoted`).
const CONTENT_KEY = 'content":';
const CONTENT_STRING = '"content":"';
const CHOICES_KEY = 'choices":[';
const DELTA_KEY = 'delta":{';
const USAGE_KEY = 'usage"';

/** True when `"` + `bare`, found at `at`, occurs in `data` again. */
function repeated(data: string, at: number, bare: string): boolean {
  return indexOfQuoted(data, bare, at + 1 + bare.length) !== -1;
}

/** The stream's last simple chunk, cut around its content string. */
function template(state: StreamState): ChunkTemplate | undefined {
  return state.chatChunk as ChunkTemplate | undefined;
}

/**
 * Reads a chunk without a full JSON.parse when it is the common shape; null means "parse it
 * fully". With a `state` (one per stream), a chunk that differs from the stream's last simple
 * chunk only inside the content string is read by comparing its two ends: servers repeat the
 * id, model and timestamp in every chunk, and a structural check alone costs about what
 * JSON.parse does.
 */
export function parseSimpleChunk(data: string, state?: StreamState): Parsed | null {
  const quick = state === undefined ? null : textByTemplate(data, template(state));
  if (quick !== null) return quick === "" ? {} : { text: quick };
  return structuralChunk(data, state);
}

/** {@link parseSimpleChunk} past the template: the structural check, which sets the template. */
function structuralChunk(data: string, state?: StreamState): Parsed | null {
  const simple = readSimpleChunk(data);
  if (simple === null || simple.kind === "empty") return simple === null ? null : {};
  // No template from a chunk without text (the role chunk that opens a stream has keys the text
  // chunks lack): it would be made, written for the scan and tried on the next chunk in vain.
  if (state !== undefined && simple.text !== "") {
    state.chatChunk = {
      prefix: ownCopy(data.slice(0, simple.start)),
      suffix: ownCopy(data.slice(simple.end)),
      reads: 0,
      event: "",
    } satisfies ChunkTemplate;
  }
  return simple.text === "" ? {} : { text: simple.text };
}

/**
 * Checks the common chunk shape, `{…,"choices":[{…,"delta":{…,"content":"…",…},…}],…}`, and
 * finds its content string. Returns null, meaning "parse it fully", for anything else: tool calls, reasoning, errors,
 * usage with values, content that is not a string, a repeated key (more choices, logprobs
 * content), braces where the shape needs none. For valid JSON, a non-null answer equals what
 * the full parse gives. Invalid JSON is only partly detected here (the ends, the content
 * string, line breaks, the closing brackets; not a raw control character inside the content): the transport has already split events, so what reaches this is a
 * server's JSON, and a truncated event fails the checks on its ends.
 */
function readSimpleChunk(
  data: string,
): { kind: "empty" } | { kind: "text"; text: string; start: number; end: number } | null {
  // A JSON object on one line; a data field split over lines arrives joined with "\n".
  if (data.charCodeAt(0) !== 123 || data.charCodeAt(data.length - 1) !== 125) return null;
  if (data.indexOf("\n") !== -1) return null;
  // Keys that add text, reasoning or an error, or that the full parse reads differently.
  // (`"error"` also catches vLLM's `"object":"error"`.)
  if (
    indexOfQuoted(data, 'tool_calls"') !== -1 || indexOfQuoted(data, "reasoning") !== -1 ||
    indexOfQuoted(data, 'error"') !== -1
  ) return null;
  // Keys are matched as written, so no escape may appear outside the content string, where
  // `"us\u0061ge"` would be a key these searches miss.
  const firstSlash = data.indexOf("\\");
  const usage = indexOfQuoted(data, USAGE_KEY);
  if (
    usage !== -1 && (!data.startsWith('"usage":null', usage) || repeated(data, usage, USAGE_KEY))
  ) {
    return null;
  }
  const content = indexOfQuoted(data, CONTENT_KEY);
  if (content === -1) {
    // No content key anywhere (finish chunk, empty choices): nothing to read.
    return firstSlash === -1 ? { kind: "empty" } : null;
  }
  if (repeated(data, content, CONTENT_KEY) || !data.startsWith(CONTENT_STRING, content)) {
    return null;
  }
  // `choices` must be a top-level key: no object or array opens before it.
  const choices = indexOfQuoted(data, CHOICES_KEY);
  if (choices === -1 || repeated(data, choices, CHOICES_KEY)) return null;
  // Forward searches (memchr) for what `lastIndexOf` from `choices` would find: the only `{` up
  // to it is the first character, and no `[` comes before it.
  const brace = data.indexOf("{", 1);
  const bracket = data.indexOf("[");
  if ((brace !== -1 && brace < choices) || (bracket !== -1 && bracket < choices)) return null;
  // `delta` must be a key of the first choice, and `content` a key of `delta`: no braces between.
  const delta = indexOfQuoted(data, DELTA_KEY);
  if (delta === -1 || delta > content || repeated(data, delta, DELTA_KEY)) return null;
  const first = choices + 1 + CHOICES_KEY.length;
  if (data.charCodeAt(first) !== 123) return null;
  if (hasBrace(data, first + 1, delta) || hasBrace(data, delta + 1 + DELTA_KEY.length, content)) {
    return null;
  }
  const start = content + CONTENT_STRING.length;
  let end = data.indexOf('"', start);
  if (end === -1) return null;
  let text: string;
  if (firstSlash === -1) {
    text = data.slice(start, end);
  } else if (firstSlash < start || firstSlash > end) {
    return null;
  } else {
    // Escapes: find the quote no backslash escapes, then let JSON.parse decode just the string.
    end = stringEnd(data, start);
    if (end === -1 || data.indexOf("\\", end + 1) !== -1) return null;
    text = JSON.parse(data.slice(start - 1, end + 1));
  }
  if (!closes(data, end + 1)) return null;
  return { kind: "text", text, start, end };
}

/**
 * True when `data` from `at` (just after the content string) closes the delta, the first
 * choice, `choices` and the top-level object, in that order and with nothing after: the part
 * of a stream cut short that the checks on its ends do not see. Strings hold no escapes here.
 */
function closes(data: string, at: number): boolean {
  // Open containers as bits, innermost lowest: 1 for an object, 0 for an array.
  let open = 0b1011;
  let depth = 4;
  for (let i = at; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c === QUOTE) {
      i = data.indexOf('"', i + 1);
      if (i === -1) return false;
    } else if (c === 123 || c === 91) { // `{` `[`
      if (depth === 30) return false;
      open = open * 2 + (c === 123 ? 1 : 0);
      depth++;
    } else if (c === 125 || c === 93) { // `}` `]`
      if (depth === 0 || (open & 1) !== (c === 125 ? 1 : 0)) return false;
      open = Math.floor(open / 2);
      if (--depth === 0) return i === data.length - 1;
    }
  }
  return false;
}

/** True when `data[from, to)` holds `{` or `}`. */
function hasBrace(data: string, from: number, to: number): boolean {
  const open = data.indexOf("{", from);
  if (open !== -1 && open < to) return true;
  const close = data.indexOf("}", from);
  return close !== -1 && close < to;
}
