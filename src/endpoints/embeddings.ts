/** OpenAI embeddings: `/v1/embeddings`; the answer is vectors, not tokens. */

import type { Endpoint, FormatOptions, Parsed, SseEvent, TurnInput } from "./types.ts";
import { errorIn, expectObject, isObject, type JsonObject } from "./json.ts";
import { normalizeUsage } from "./usage.ts";
import { rejectMedia, withExtras } from "./format.ts";
import { chatMessages } from "./chat.ts";

/** Reads `{data:[{object:"embedding", embedding:[…]}], usage}`; throws when `data` is missing. */
export function parseEmbeddings(json: unknown): Parsed {
  const obj = expectObject(json, "the answer");
  const error = errorIn(obj);
  if (error) return { error };
  if (!Array.isArray(obj.data) || !obj.data.every((d) => isObject(d) && "embedding" in d)) {
    throw new Error('expected a "data" array of embeddings');
  }
  const out: Parsed = { answered: true };
  const usage = normalizeUsage(obj.usage);
  if (usage) out.usage = usage;
  return out;
}

/** An OpenAI embeddings body: `{model, input:[texts]}`. */
export function formatEmbeddingsPayload(turn: TurnInput, opts: FormatOptions): JsonObject {
  rejectMedia("embeddings", turn, ["images", "audios"]);
  return withExtras({ model: opts.model, input: [...turn.texts] }, opts);
}

/** A chat-style embeddings body (vLLM multimodal): `{model, messages}` as chat builds them. */
export function formatChatEmbeddingsPayload(turn: TurnInput, opts: FormatOptions): JsonObject {
  return withExtras({ model: opts.model, messages: chatMessages(turn) }, opts);
}

/** A NIM embeddings body: texts and images (`data:` URLs) together in `input`. */
export function formatNimEmbeddingsPayload(turn: TurnInput, opts: FormatOptions): JsonObject {
  rejectMedia("nim_embeddings", turn, ["audios"]);
  return withExtras({ model: opts.model, input: [...turn.texts, ...(turn.images ?? [])] }, opts);
}

function embeddings(
  type: string,
  formatPayload: (turn: TurnInput, opts: FormatOptions) => JsonObject,
): Endpoint {
  return {
    type,
    formatPayload,
    path: "/v1/embeddings",
    supportsStreaming: false,
    metricsTitle: "Embeddings Metrics",
    producesTokens: false,
    parseResponse: parseEmbeddings,
    parseEvent(event: SseEvent): Parsed | null {
      return event.data === "" || event.data === "[DONE]"
        ? null
        : parseEmbeddings(JSON.parse(event.data));
    },
  };
}

/** The `embeddings` endpoint type (OpenAI `{model, input}`). */
export const embeddingsEndpoint: Endpoint = embeddings("embeddings", formatEmbeddingsPayload);
/** The `chat_embeddings` endpoint type (chat-style messages, e.g. vLLM multimodal embeddings); same answer. */
export const chatEmbeddingsEndpoint: Endpoint = embeddings(
  "chat_embeddings",
  formatChatEmbeddingsPayload,
);
/** The `nim_embeddings` endpoint type (NIM text and image embeddings); same answer. */
export const nimEmbeddingsEndpoint: Endpoint = embeddings(
  "nim_embeddings",
  formatNimEmbeddingsPayload,
);
