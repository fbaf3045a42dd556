/** OpenAI embeddings: `/v1/embeddings`; the answer is vectors, not tokens. */

import type { Endpoint, Parsed, SseEvent } from "./types.ts";
import { errorIn, expectObject, isObject } from "./json.ts";
import { normalizeUsage } from "./usage.ts";

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

function embeddings(type: string): Endpoint {
  return {
    type,
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
export const embeddingsEndpoint: Endpoint = embeddings("embeddings");
/** The `chat_embeddings` endpoint type (chat-style messages, e.g. vLLM multimodal embeddings); same answer. */
export const chatEmbeddingsEndpoint: Endpoint = embeddings("chat_embeddings");
/** The `nim_embeddings` endpoint type (NIM text and image embeddings); same answer. */
export const nimEmbeddingsEndpoint: Endpoint = embeddings("nim_embeddings");
