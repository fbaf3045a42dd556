/** OpenAI (legacy) completions: `/v1/completions`, text in `choices[0].text`. */

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
import { errorIn, expectObject, isObject, type JsonObject } from "./json.ts";
import { normalizeUsage } from "./usage.ts";
import { flatPrompt, rejectMedia, withExtras } from "./format.ts";

const DONE: Parsed = Object.freeze({ done: true });

/** Reads a completion or one streamed chunk of it (both carry `choices[0].text`). */
function readCompletion(json: unknown): Parsed {
  const obj = expectObject(json, "the answer");
  const error = errorIn(obj);
  if (error) return { error };
  const out: Parsed = {};
  const choices = obj.choices;
  if (Array.isArray(choices) && choices.length > 0 && isObject(choices[0])) {
    const text = choices[0].text;
    if (typeof text === "string" && text) out.text = text;
    // Some servers put reasoning beside the text, as in chat.
    const reasoning = choices[0].reasoning_content ?? choices[0].reasoning;
    if (typeof reasoning === "string" && reasoning) out.reasoning = reasoning;
  }
  const usage = normalizeUsage(obj.usage);
  if (usage) out.usage = usage;
  return out;
}

/**
 * A completions body: `prompt` (a list when the turn has several texts and nothing else, i.e. a
 * batch; otherwise one string with system text and history before the texts) and `max_tokens`.
 */
export function formatCompletionsPayload(turn: TurnInput, opts: FormatOptions): JsonObject {
  rejectMedia("completions", turn, ["images", "audios"]);
  const batch = turn.texts.length > 1 && !turn.system && (turn.history?.length ?? 0) === 0;
  const body: JsonObject = {
    model: opts.model,
    prompt: batch ? [...turn.texts] : flatPrompt(turn),
    stream: opts.streaming,
  };
  if (turn.maxTokens !== undefined) body.max_tokens = turn.maxTokens;
  return withExtras(body, opts);
}

/**
 * A plain event's text when it is a text-only chunk: by the stream's template when the chunk
 * matches it, else by a full reading (which sets the template). Any other chunk's full reading,
 * the end marker's included; null for empty data.
 */
function chunkText(data: string, state: StreamState): string | Parsed | null {
  const slot = (state.completionsChunk ??= new TemplateSlot()) as TemplateSlot;
  const quick = slot.text(data);
  if (quick !== null) return quick;
  if (data === "[DONE]") return DONE;
  if (data === "") return null;
  const p = readData(data);
  if (!textOnly(p)) return p;
  if (p.text !== undefined) slot.learn(data, '"text":"', readData);
  return p.text ?? "";
}

/** Reads one chunk's data in full. */
function readData(data: string): Parsed {
  return readCompletion(JSON.parse(data));
}

/** The `completions` endpoint type. */
export const completionsEndpoint: Endpoint = {
  type: "completions",
  path: "/v1/completions",
  supportsStreaming: true,
  metricsTitle: "LLM Metrics",
  expectsDoneMarker: true,
  formatPayload: formatCompletionsPayload,
  parseResponse: readCompletion,
  fast: {
    parseText: chunkText,
    textTemplate: (state) => (state.completionsChunk as TemplateSlot | undefined)?.template,
    volatileKeys: ["id", "created"],
  },
  parseEvent(event: SseEvent): Parsed | null {
    const data = event.data;
    if (data === "[DONE]") return DONE;
    if (data === "") return null;
    return readCompletion(JSON.parse(data));
  },
};
