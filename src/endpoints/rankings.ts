/**
 * Reranking APIs: NIM (`/v1/ranking`, `rankings[]`), Cohere (`/v2/rerank`, `results[]`) and
 * Hugging Face TEI (`/rerank`, a bare list or `results[]`). The answer is scores, not tokens.
 */

import type { Endpoint, Parsed, SseEvent } from "./types.ts";
import { errorIn, isObject } from "./json.ts";
import { normalizeUsage } from "./usage.ts";

/** Where each API puts its list of scored items. */
type ListKey = "rankings" | "results" | "list";

/**
 * Reads a rankings answer whose scored items are under `key` (`list`: a bare JSON array,
 * or `results[]`). Throws when the list is missing.
 */
export function parseRankings(json: unknown, key: ListKey): Parsed {
  if (isObject(json)) {
    const error = errorIn(json);
    if (error) return { error };
  }
  const list = key === "list"
    ? Array.isArray(json) ? json : isObject(json) ? json.results : undefined
    : isObject(json)
    ? json[key]
    : undefined;
  if (!Array.isArray(list)) {
    throw new Error(
      key === "list"
        ? 'expected a JSON array of scores or a "results" array'
        : `expected a "${key}" array`,
    );
  }
  const out: Parsed = { answered: true };
  const usage = normalizeUsage(json);
  if (usage) out.usage = usage;
  return out;
}

function rankings(type: string, path: string, key: ListKey): Endpoint {
  return {
    type,
    path,
    supportsStreaming: false,
    metricsTitle: "Rankings Metrics",
    producesTokens: false,
    parseResponse: (json) => parseRankings(json, key),
    parseEvent(event: SseEvent): Parsed | null {
      return event.data === "" ? null : parseRankings(JSON.parse(event.data), key);
    },
  };
}

/** The `nim_rankings` endpoint type: `{model, query:{text}, passages:[{text}]}` → `rankings[]`. */
export const nimRankingsEndpoint: Endpoint = rankings("nim_rankings", "/v1/ranking", "rankings");
/** The `cohere_rankings` endpoint type: `{model, query, documents}` → `results[]`. */
export const cohereRankingsEndpoint: Endpoint = rankings(
  "cohere_rankings",
  "/v2/rerank",
  "results",
);
/** The `hf_tei_rankings` endpoint type: `{query, texts}` → a list or `results[]`. */
export const hfTeiRankingsEndpoint: Endpoint = rankings("hf_tei_rankings", "/rerank", "list");
