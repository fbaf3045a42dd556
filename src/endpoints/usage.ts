/**
 * Server-reported token counts, read from whichever vendor's field names the server used.
 *
 * One ordered synonym table: for each `Usage` field, the first key path present with a number
 * wins. A missing count stays missing (never 0), so metrics can tell "not reported" from zero.
 */

import type { Usage } from "../record/record.ts";

type Path = readonly string[];

/** Each `Usage` field and the key paths that may hold it, in order of preference. */
const SYNONYMS: ReadonlyArray<readonly [keyof Usage, readonly Path[]]> = [
  ["promptTokens", [
    ["prompt_tokens"], // OpenAI and compatible servers, DeepSeek
    ["input_tokens"], // Anthropic (uncached part, re-totalled below), OpenAI Responses, Cohere
    ["promptTokenCount"], // Gemini / Vertex
    ["inputTokens"], // Bedrock
    ["input_token_count"], // watsonx
  ]],
  ["completionTokens", [
    ["completion_tokens"],
    ["output_tokens"],
    ["candidatesTokenCount"],
    ["outputTokens"],
    ["generated_token_count"],
  ]],
  ["totalTokens", [
    ["total_tokens"],
    ["totalTokenCount"],
    ["totalTokens"],
  ]],
  ["reasoningTokens", [
    ["completion_tokens_details", "reasoning_tokens"],
    ["output_tokens_details", "reasoning_tokens"],
    ["thoughtsTokenCount"],
    ["reasoning_tokens"],
  ]],
  ["promptCacheReadTokens", [
    ["prompt_tokens_details", "cached_tokens"],
    ["input_tokens_details", "cached_tokens"],
    ["cache_read_input_tokens"],
    ["cachedContentTokenCount"],
    ["cacheReadInputTokens"],
    ["prompt_cache_hit_tokens"],
    ["cached_tokens"],
  ]],
  ["promptCacheWriteTokens", [
    ["cache_creation_input_tokens"],
    ["cacheWriteInputTokens"],
  ]],
  ["promptCacheMissTokens", [
    ["prompt_cache_miss_tokens"],
  ]],
  ["promptAudioTokens", [
    ["prompt_tokens_details", "audio_tokens"],
    ["input_tokens_details", "audio_tokens"],
  ]],
  ["completionAudioTokens", [
    ["completion_tokens_details", "audio_tokens"],
    ["output_tokens_details", "audio_tokens"],
  ]],
  ["promptAudioSeconds", [
    ["prompt_audio_seconds"], // Mistral; an empty object stands for none
  ]],
];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// Indexed loops, here and in `normalizeUsage`: `for…of` over arrays allocated an iterator per
// loop, about 3 KB for each answer's usage (sampled at 4,096 streams).
function lookup(obj: Record<string, unknown>, path: Path): number | undefined {
  let v: unknown = obj;
  for (let i = 0; i < path.length; i++) {
    if (!isObject(v)) return undefined;
    v = v[path[i]];
  }
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** Steps into the envelopes vendors wrap counts in: `usage`, Gemini's `usageMetadata`, Cohere's `meta.tokens` / `tokens`. */
function unwrap(obj: Record<string, unknown>): Record<string, unknown> {
  let cur = obj;
  for (let depth = 0; depth < 4; depth++) {
    if (isObject(cur.usage)) cur = cur.usage;
    else if (isObject(cur.usageMetadata)) cur = cur.usageMetadata;
    else if (isObject(cur.meta) && isObject(cur.meta.tokens)) cur = cur.meta.tokens;
    else if (isObject(cur.tokens)) cur = cur.tokens;
    else break;
  }
  return cur;
}

/**
 * Normalizes a usage object (or a response holding one) to `Usage`.
 * @returns null when no known count is present.
 */
export function normalizeUsage(obj: unknown): Usage | null {
  if (!isObject(obj)) return null;
  const src = unwrap(obj);
  const usage: Usage = {};
  let found = false;
  for (let i = 0; i < SYNONYMS.length; i++) {
    const paths = SYNONYMS[i][1];
    for (let j = 0; j < paths.length; j++) {
      const v = lookup(src, paths[j]);
      if (v !== undefined) {
        usage[SYNONYMS[i][0]] = v;
        found = true;
        break;
      }
    }
  }
  if (!found) return null;
  // Anthropic's input_tokens counts only the uncached remainder: the prompt is all three.
  if (
    typeof src.input_tokens === "number" &&
    (typeof src.cache_read_input_tokens === "number" ||
      typeof src.cache_creation_input_tokens === "number")
  ) {
    usage.promptTokens = src.input_tokens +
      (typeof src.cache_read_input_tokens === "number" ? src.cache_read_input_tokens : 0) +
      (typeof src.cache_creation_input_tokens === "number" ? src.cache_creation_input_tokens : 0);
  }
  return usage;
}
