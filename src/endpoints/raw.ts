/**
 * Raw bodies sent to a full URL (`--url` is the whole address, the path is ""). The answer's
 * shape is unknown, so it is detected: embeddings, then rankings, then text from any of the
 * common generation APIs; a body that is not JSON is text. A JMESPath `response_field`
 * expression can name the text instead.
 */

// @ts-types="@types/jmespath"
import jmespath from "jmespath";
import type { Endpoint, Parsed, SseEvent, StreamState } from "./types.ts";
import { errorIn, isObject, type JsonObject, str } from "./json.ts";
import { normalizeUsage } from "./usage.ts";
import { readMessage } from "./chat.ts";
import { parseResponsesBody, parseResponsesEvent } from "./responses.ts";
import { parseMessagesBody, parseMessagesEvent } from "./messages.ts";

/** Options of the raw endpoint (from `--extra-inputs`). */
export interface RawOptions {
  /** JMESPath expression selecting the text in each answer (or each event). */
  responseField?: string;
}

const DONE: Parsed = Object.freeze({ done: true });

const ANTHROPIC_EVENTS = new Set([
  "message_start",
  "message_delta",
  "message_stop",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "ping",
]);

function isEmbeddings(v: unknown): boolean {
  if (isObject(v)) {
    return Array.isArray(v.data) && v.data.length > 0 &&
      v.data.every((d) => isObject(d) && Array.isArray(d.embedding));
  }
  // TEI `/embed`: a list of vectors.
  return Array.isArray(v) && v.length > 0 &&
    v.every((d) => Array.isArray(d) && typeof d[0] === "number");
}

function isScored(d: unknown): boolean {
  return isObject(d) &&
    (typeof d.relevance_score === "number" || typeof d.score === "number" ||
      typeof d.logit === "number");
}

function isRankings(v: unknown): boolean {
  const list = Array.isArray(v) ? v : isObject(v) ? v.rankings ?? v.results : undefined;
  return Array.isArray(list) && list.length > 0 && list.every(isScored);
}

function withUsage(out: Parsed, root: unknown): Parsed {
  if (out.usage === undefined) {
    const usage = normalizeUsage(root);
    if (usage) out.usage = usage;
  }
  return out;
}

/** Text (and reasoning) from the answer shapes of the common generation APIs. */
function detectText(obj: JsonObject, streamed: boolean, state: StreamState): Parsed {
  const choices = obj.choices;
  if (Array.isArray(choices) && choices.length > 0 && isObject(choices[0])) {
    const choice = choices[0];
    const out: Parsed = {};
    const msg = choice.delta ?? choice.message;
    if (isObject(msg)) readMessage(msg, out);
    else if (typeof choice.text === "string" && choice.text) out.text = choice.text;
    return withUsage(out, obj.usage);
  }
  const type = str(obj.type);
  if (type !== undefined) {
    if (type.startsWith("response.")) {
      return parseResponsesEvent({ event: "", data: JSON.stringify(obj) }, state) ?? {};
    }
    if (ANTHROPIC_EVENTS.has(type)) {
      return parseMessagesEvent({ event: "", data: JSON.stringify(obj) }) ?? {};
    }
    if (type === "message" && Array.isArray(obj.content)) return parseMessagesBody(obj);
  }
  if (obj.object === "response" && Array.isArray(obj.output)) return parseResponsesBody(obj);
  // watsonx: `results[0].generated_text` with its token counts beside it.
  if (Array.isArray(obj.results) && isObject(obj.results[0])) {
    const first = obj.results[0];
    if (typeof first.generated_text === "string") {
      return withUsage(first.generated_text ? { text: first.generated_text } : {}, first);
    }
  }
  const out: Parsed = {};
  // TGI streams one token per event and repeats the whole text at the end.
  if (isObject(obj.token)) {
    if (obj.token.special !== true && typeof obj.token.text === "string" && obj.token.text) {
      out.text = obj.token.text;
    }
    return withUsage(out, obj);
  }
  const text = str(obj.generated_text) ?? str(obj.output_text) ?? str(obj.text) ??
    str(obj.response) ?? str(obj.content) ?? str(obj.output) ??
    (isObject(obj.message) ? str(obj.message.content) : undefined);
  if (text) out.text = text;
  else if (!streamed && Array.isArray(obj.generated_text)) {
    // Some pipelines answer with chat turns: take the last one.
    const last = obj.generated_text.at(-1);
    if (isObject(last) && typeof last.content === "string" && last.content) out.text = last.content;
  }
  return withUsage(out, obj);
}

function detect(json: unknown, streamed: boolean, state: StreamState): Parsed {
  if (typeof json === "string") return json ? { text: json } : {};
  if (Array.isArray(json) && json.length === 1 && isObject(json[0]) && !isRankings(json)) {
    json = json[0]; // TGI and HF pipelines wrap the answer in a one-element list
  }
  if (isObject(json)) {
    const error = errorIn(json);
    if (error) return { error };
  }
  if (isEmbeddings(json) || isRankings(json)) return withUsage({ answered: true }, json);
  if (isObject(json)) return detectText(json, streamed, state);
  return {};
}

function select(json: unknown, expression: string): Parsed {
  if (isObject(json)) {
    const error = errorIn(json);
    if (error) return { error };
  }
  const found: unknown = jmespath.search(json, expression);
  const out: Parsed = {};
  if (typeof found === "string") {
    if (found) out.text = found;
  } else if (Array.isArray(found) && found.every((x) => typeof x === "string")) {
    const text = found.join("");
    if (text) out.text = text;
  } else if (found !== null && found !== undefined) {
    out.answered = true; // a number, vector or object: a result, not text
  }
  return withUsage(out, json);
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const t = text.trimStart();
  const c = t.charCodeAt(0);
  // Only bodies that look like JSON are parsed; anything else is plain text.
  if (c !== 123 && c !== 91 && c !== 34) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(t) };
  } catch {
    return { ok: false };
  }
}

/** Builds the `raw` endpoint; throws when `responseField` is not a valid JMESPath expression. */
export function createRawEndpoint(options: RawOptions = {}): Endpoint {
  const expression = options.responseField;
  if (expression !== undefined) {
    try {
      // Searching an empty document parses the expression: a syntax error throws here.
      jmespath.search({}, expression);
    } catch (e) {
      throw new Error(
        `Invalid response_field "${expression}": not a JMESPath expression (${
          e instanceof Error ? e.message : e
        })`,
      );
    }
  }
  const read = (json: unknown, streamed: boolean, state: StreamState): Parsed =>
    expression === undefined ? detect(json, streamed, state) : select(json, expression);
  return {
    type: "raw",
    path: "",
    supportsStreaming: true,
    // The body is the user's, for an API reprise does not know: nothing is added to it.
    streamRequest: "verbatim",
    metricsTitle: "LLM Metrics",
    parseResponse: (json) => read(json, false, {}),
    parseBody(text: string): Parsed {
      const json = tryJson(text);
      if (json.ok) return read(json.value, false, {});
      return text ? { text } : {};
    },
    parseEvent(event: SseEvent, state: StreamState = {}): Parsed | null {
      const data = event.data;
      if (data === "[DONE]") return DONE;
      if (data === "") return null;
      const json = tryJson(data);
      if (!json.ok) return { text: data };
      return read(json.value, true, state);
    },
  };
}

/** The `raw` endpoint type with answer auto-detection. */
export const rawEndpoint: Endpoint = createRawEndpoint();
