/**
 * Reranking in three vendors' shapes: `POST /v1/ranking` (NVIDIA NIM), `POST /v2/rerank`
 * (Cohere) and `POST /rerank` (Hugging Face TEI). Scores come from word overlap with the query,
 * so more relevant passages rank first and the same input always ranks the same way.
 */

import { completionTime, type Exchange, type MockContext, useModel } from "./context.ts";
import { cohereError, jsonReply, openaiError, tgiError } from "./reply.ts";
import { hashString } from "./rng.ts";
import { sleepUntil } from "./schedule.ts";

/** Relevance in [0, 1]: the share of query words found in the passage, plus a tie-breaker. */
export function relevance(query: string, passage: string): number {
  const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const q = new Set(words(query));
  const p = new Set(words(passage));
  let hits = 0;
  for (const w of q) if (p.has(w)) hits++;
  const overlap = q.size === 0 ? 0 : hits / q.size;
  return overlap * 0.95 + (hashString(query + "\u0000" + passage) / 2 ** 32) * 0.05;
}

/** Indexes and scores, best first (ties keep input order). */
function rank(query: string, passages: string[]): { index: number; score: number }[] {
  return passages
    .map((p, index) => ({ index, score: relevance(query, p) }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
}

/** The logit of a relevance in (0, 1), as NIM and TEI's raw scores report it. */
function logit(p: number): number {
  const c = Math.min(Math.max(p, 1e-4), 1 - 1e-4);
  return Math.log(c / (1 - c));
}

/** Texts of a list of strings or `{text}` objects; null when it is neither. */
function texts(list: unknown): string[] | null {
  if (!Array.isArray(list)) return null;
  const out: string[] = [];
  for (const x of list) {
    if (typeof x === "string") out.push(x);
    else if (x && typeof x === "object" && typeof (x as { text?: unknown }).text === "string") {
      out.push((x as { text: string }).text);
    } else return null;
  }
  return out;
}

/** NVIDIA NIM: `{query:{text}, passages:[{text}]}` → `{rankings:[{index, logit}]}`. */
export async function nimRanking(ctx: MockContext, ex: Exchange): Promise<Response> {
  const body = ex.body;
  const query = (body.query as { text?: unknown } | undefined)?.text;
  const passages = texts(body.passages);
  if (typeof query !== "string" || passages === null) {
    return openaiError(422, "Expected 'query': {text} and 'passages': [{text}, …].");
  }
  useModel(ctx, body);
  await sleepUntil(completionTime(ctx, ex, 1), ctx.signal);
  const rankings = rank(query, passages).map((r) => ({ index: r.index, logit: logit(r.score) }));
  return jsonReply(JSON.stringify({ rankings }));
}

/** Cohere v2: `{query, documents, top_n?}` → `{id, results:[{index, relevance_score}], meta}`. */
export async function cohereRerank(ctx: MockContext, ex: Exchange): Promise<Response> {
  const body = ex.body;
  const documents = texts(body.documents);
  if (typeof body.query !== "string" || documents === null) {
    return cohereError(400, "Expected 'query' (a string) and 'documents' (a list).");
  }
  useModel(ctx, body);
  await sleepUntil(completionTime(ctx, ex, 1), ctx.signal);
  const topN = typeof body.top_n === "number" && body.top_n > 0 ? body.top_n : documents.length;
  const results = rank(body.query, documents).slice(0, topN)
    .map((r) => ({ index: r.index, relevance_score: r.score }));
  return jsonReply(JSON.stringify({
    id: crypto.randomUUID(),
    results,
    meta: { api_version: { version: "2" }, billed_units: { search_units: 1 } },
  }));
}

/** Hugging Face TEI: `{query, texts, raw_scores?, return_text?}` → `[{index, score}]`. */
export async function teiRerank(ctx: MockContext, ex: Exchange): Promise<Response> {
  const body = ex.body;
  const list = texts(body.texts);
  if (typeof body.query !== "string" || list === null) {
    return tgiError(422, "Expected 'query' (a string) and 'texts' (a list of strings).");
  }
  await sleepUntil(completionTime(ctx, ex, 1), ctx.signal);
  const raw = body.raw_scores === true;
  const withText = body.return_text === true;
  return jsonReply(JSON.stringify(
    rank(body.query, list).map((r) => ({
      index: r.index,
      score: raw ? logit(r.score) : r.score,
      ...(withText ? { text: list[r.index] } : {}),
    })),
  ));
}
