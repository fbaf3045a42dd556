/** Per-request metrics: one pass over the metric table for one finished request. */

import type { RequestRecord } from "../load/record.ts";
import { METRICS, type RecordContext, type RecordMetrics } from "./definitions.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";

export type { RecordContext, RecordMetrics } from "./definitions.ts";

/**
 * The record metrics of one request, by tag, in base units (ns, tokens). A failed request
 * gets only the error-side metrics (`error_isl`); streaming-only metrics need
 * `ctx.streaming`; token metrics need an endpoint that produces tokens. A metric that does
 * not apply to this request (TTST with one chunk, ITL with one token) is absent.
 */
export function computeRecordMetrics(rec: RequestRecord, ctx: RecordContext): RecordMetrics {
  // Several metrics count the same answer (output tokens, the usage comparison): count it once.
  ctx = { ...ctx, tokenizer: memoized(ctx.tokenizer) };
  const m: RecordMetrics = {};
  const failed = rec.error !== null;
  const producesTokens = ctx.producesTokens !== false;
  for (const def of METRICS) {
    if (def.kind !== "record" || def.record === undefined) continue;
    const errorOnly = def.flags.includes("error_only");
    if (failed !== errorOnly) continue;
    if (!ctx.streaming && def.flags.includes("streaming_only")) continue;
    if (!producesTokens && def.flags.includes("produces_tokens")) continue;
    const v = def.record(rec, m, ctx);
    if (v === undefined) continue;
    if (typeof v === "number" && !Number.isFinite(v)) continue;
    m[def.tag] = v;
  }
  return m;
}

/** `tokenizer`, remembering the last two texts it counted (one record's output and reasoning). */
function memoized(tokenizer: Tokenizer): Tokenizer {
  let a = "", na = 0, b = "", nb = 0;
  return {
    name: tokenizer.name,
    count(text: string): number {
      if (text === "") return tokenizer.count(text);
      if (text === a) return na;
      if (text === b) return nb;
      const n = tokenizer.count(text);
      b = a;
      nb = na;
      a = text;
      na = n;
      return n;
    },
  };
}

/** Records with server usage whose answers are all checked against the tokenizer. */
export const USAGE_CHECK_FIRST = 100;
/** After the first ones, one record with usage in this many is checked. */
export const USAGE_CHECK_EVERY = 50;

/**
 * Whether the n-th record with server usage (from 0) is among those whose answer is tokenized
 * to check the usage when the server's counts are used: all of the first USAGE_CHECK_FIRST, so
 * a short run is checked whole, then one in USAGE_CHECK_EVERY, so a long one still is throughout.
 */
export function inUsageSample(n: number): boolean {
  return n < USAGE_CHECK_FIRST || n % USAGE_CHECK_EVERY === 0;
}
