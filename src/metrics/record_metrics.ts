/** Per-request metrics: one pass over the metric table for one finished request. */

import type { RequestRecord } from "../load/record.ts";
import { METRICS, type RecordContext, type RecordMetrics } from "./definitions.ts";

export type { RecordContext, RecordMetrics } from "./definitions.ts";

/**
 * The record metrics of one request, by tag, in base units (ns, tokens). A failed request
 * gets only the error-side metrics (`error_isl`); streaming-only metrics need
 * `ctx.streaming`; token metrics need an endpoint that produces tokens. A metric that does
 * not apply to this request (TTST with one chunk, ITL with one token) is absent.
 */
export function computeRecordMetrics(rec: RequestRecord, ctx: RecordContext): RecordMetrics {
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
