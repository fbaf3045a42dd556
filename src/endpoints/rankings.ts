/**
 * Reranking APIs: NIM (`/v1/ranking`, `rankings[]`), Cohere (`/v2/rerank`, `results[]`) and
 * Hugging Face TEI (`/rerank`, a bare list or `results[]`). The answer is scores, not tokens.
 */

import type { Endpoint, FormatOptions, Parsed, SseEvent, TurnInput } from "./types.ts";
import { errorIn, isObject, type JsonObject } from "./json.ts";
import { normalizeUsage } from "./usage.ts";
import { rejectMedia, withExtras } from "./format.ts";

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

/** The query (the turn's first text) and the passages (the rest); throws without a query. */
function queryAndPassages(type: string, turn: TurnInput): { query: string; passages: string[] } {
  rejectMedia(type, turn, ["images", "audios"]);
  if (turn.texts.length === 0) {
    throw new Error(`the ${type} endpoint needs a query: the turn has no text`);
  }
  return { query: turn.texts[0], passages: turn.texts.slice(1) };
}

/** A NIM ranking body: `{model, query:{text}, passages:[{text}]}`. */
export function formatNimRankingsPayload(turn: TurnInput, opts: FormatOptions): JsonObject {
  const { query, passages } = queryAndPassages("nim_rankings", turn);
  return withExtras({
    model: opts.model,
    query: { text: query },
    passages: passages.map((text) => ({ text })),
  }, opts);
}

/** A Cohere rerank body: `{model, query, documents}`. */
export function formatCohereRankingsPayload(turn: TurnInput, opts: FormatOptions): JsonObject {
  const { query, passages } = queryAndPassages("cohere_rankings", turn);
  return withExtras({ model: opts.model, query, documents: passages }, opts);
}

/** A TEI rerank body: `{query, texts}` (TEI serves one model: none is named). */
export function formatTeiRankingsPayload(turn: TurnInput, opts: FormatOptions): JsonObject {
  const { query, passages } = queryAndPassages("hf_tei_rankings", turn);
  return withExtras({ query, texts: passages }, opts);
}

function rankings(
  type: string,
  path: string,
  key: ListKey,
  formatPayload: (turn: TurnInput, opts: FormatOptions) => JsonObject,
): Endpoint {
  return {
    type,
    path,
    formatPayload,
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
export const nimRankingsEndpoint: Endpoint = rankings(
  "nim_rankings",
  "/v1/ranking",
  "rankings",
  formatNimRankingsPayload,
);
/** The `cohere_rankings` endpoint type: `{model, query, documents}` → `results[]`. */
export const cohereRankingsEndpoint: Endpoint = rankings(
  "cohere_rankings",
  "/v2/rerank",
  "results",
  formatCohereRankingsPayload,
);
/** The `hf_tei_rankings` endpoint type: `{query, texts}` → a list or `results[]`. */
export const hfTeiRankingsEndpoint: Endpoint = rankings(
  "hf_tei_rankings",
  "/rerank",
  "list",
  formatTeiRankingsPayload,
);
