/**
 * Straightforward implementations of the per-record work, written for clarity, for
 * differential tests of the optimized ones: the metric loop reading every definition's flags,
 * a column pushing values one at a time with a closure generator, and a varied record set.
 */

import type { RequestRecord } from "../../src/record/record.ts";
import {
  METRICS,
  RECORD_DEFS,
  type RecordContext,
  type RecordMetrics,
  type RecordValues,
  USAGE_DIFF_THRESHOLD_PCT,
} from "../../src/metrics/definitions.ts";
import type { Tokenizer } from "../../src/tokenizer/tokenizer.ts";
import { record } from "./_records.ts";

function num(m: RecordMetrics, tag: string): number | undefined {
  const v = m[tag];
  return typeof v === "number" ? v : undefined;
}

/** `usage_discrepancy`, as a filter over the three comparisons. */
function usageDiscrepancy(m: RecordMetrics, ctx: RecordContext): number | undefined {
  if (ctx.checkUsage === false) return undefined;
  const diffs = [
    "usage_prompt_tokens_diff_pct",
    "usage_completion_tokens_diff_pct",
    "usage_reasoning_tokens_diff_pct",
  ].map((t) => num(m, t)).filter((v) => v !== undefined);
  if (diffs.length === 0) return undefined;
  return diffs.some((d) => d > USAGE_DIFF_THRESHOLD_PCT) ? 1 : 0;
}

/** One pass over the metric table, checking each definition's flags for this request. */
export function referenceRecordMetrics(rec: RequestRecord, ctx: RecordContext): RecordMetrics {
  ctx = { ...ctx, tokenizer: memoized(ctx.tokenizer) };
  const m: RecordMetrics = {};
  // The same values by position, which the definitions read.
  const values: RecordValues = new Array(RECORD_DEFS.length).fill(undefined);
  const failed = rec.error !== null;
  const producesTokens = ctx.producesTokens !== false;
  for (const def of METRICS) {
    if (def.kind !== "record" || def.record === undefined) continue;
    if (failed !== def.flags.includes("error_only")) continue;
    if (!ctx.streaming && def.flags.includes("streaming_only")) continue;
    if (!producesTokens && def.flags.includes("produces_tokens")) continue;
    const v = def.tag === "usage_discrepancy"
      ? usageDiscrepancy(m, ctx)
      : def.record(rec, values, ctx);
    if (v === undefined) continue;
    if (typeof v === "number" && !Number.isFinite(v)) continue;
    m[def.tag] = v;
    values[RECORD_DEFS.indexOf(def)] = v;
  }
  return m;
}

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

function rng(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

/**
 * A column pushing one value at a time: every value kept up to `cap`, with a reservoir sample of
 * them for live snapshots; past the cap, none kept (the column counts them in a histogram). `all`
 * holds every value pushed, to check what the histogram reads back.
 */
export class ReferenceColumn {
  count = 0;
  sum = 0;
  min = Infinity;
  max = -Infinity;
  values: number[] = [];
  live: number[] = [];
  all: number[] = [];
  #cap: number;
  #liveSize: number;
  #rand = rng(0x9e3779b9);
  #mean = 0;
  #m2 = 0;

  constructor(opts: { cap?: number; liveSize?: number } = {}) {
    this.#cap = Math.max(1, opts.cap ?? 1 << 23);
    this.#liveSize = Math.max(1, opts.liveSize ?? 4096);
  }

  push(v: number): void {
    this.count++;
    this.sum += v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
    const d = v - this.#mean;
    this.#mean += d / this.count;
    this.#m2 += d * (v - this.#mean);
    this.all.push(v);
    if (!this.exact) {
      this.values = [];
      return;
    }
    this.values.push(v);
    if (this.live.length < this.#liveSize) this.live.push(v);
    else {
      const j = Math.floor(this.#rand() * this.count);
      if (j < this.#liveSize) this.live[j] = v;
    }
  }

  get exact(): boolean {
    return this.count <= this.#cap;
  }

  get sampleComplete(): boolean {
    return this.exact && this.count <= this.#liveSize;
  }

  get liveSize(): number {
    return this.#liveSize;
  }

  get mean(): number {
    return this.count === 0 ? NaN : this.#mean;
  }

  get variance(): number {
    return this.count === 0 ? NaN : this.#m2 / this.count;
  }
}

/**
 * True when `got`, read back from a histogram, may stand for the true value `want`: the same,
 * or within 2^-12 of it (a bucket's width), or both within the subnormal doubles next to 0.
 */
export function histogramNear(got: number, want: number): boolean {
  if (Object.is(got, want) || got === want) return true;
  if (!Number.isFinite(got) || !Number.isFinite(want)) return false;
  if (Math.abs(want) < 2 ** -1022) return got === 0;
  return Math.abs(got - want) <= Math.abs(want) * 2 ** -12;
}

/** A tokenizer counting space-separated words; "" counts 0. */
export const words: Tokenizer = {
  name: "words",
  count: (t) => t === "" ? 0 : t.split(" ").filter((w) => w !== "").length,
};

/** One varied case: a record and the context its metrics are computed with. */
export interface Case {
  name: string;
  rec: RequestRecord;
  ctx: RecordContext;
}

/**
 * Records as Workers produce them, in many variants: fractional ns offsets from
 * `performance.now()`, 0, 1, 2 and 256 chunks, reasoning, every usage field or none, failures,
 * cancellations, warmup, and each context option.
 */
export function variedCases(): Case[] {
  const rand = rng(20251123);
  const offsets = (n: number): Float64Array => {
    const t = new Float64Array(n);
    const start = 1000 + rand() * 100;
    let perf = start + 20 + rand() * 20;
    for (let i = 0; i < n; i++) {
      t[i] = (Math.round(perf * 1e3) / 1e3 - start) * 1e6;
      perf += rand() < 0.05 ? 0 : 4 + rand() * 8;
    }
    return t;
  };
  const text = (n: number) => Array.from({ length: n }, (_, i) => `w${i % 13}`).join(" ");
  const streamed = (n: number, over: Partial<RequestRecord> = {}): RequestRecord => {
    const responseNs = offsets(n);
    return record({
      sessionNum: Math.floor(rand() * 1000),
      workerId: Math.floor(rand() * 16),
      requestId: crypto.randomUUID(),
      correlationId: crypto.randomUUID(),
      conversationId: `conv-${Math.floor(rand() * 50)}`,
      turnIndex: Math.floor(rand() * 3),
      startNs: 1_762_551_534_797_067_827n + BigInt(Math.floor(rand() * 1e12)),
      intendedStartNs: 1_762_551_534_797_000_001n,
      ackNs: 1_234_567.8 + rand() * 1e6,
      endNs: n > 0 ? responseNs[n - 1] + 100_000.5 : 40_000_000.25,
      responseNs,
      responseReasoning: null,
      outputText: text(n),
      usage: { promptTokens: 550, completionTokens: n, totalTokens: 550 + n },
      ...over,
    });
  };
  const ctx: RecordContext = {
    inputTokens: 550,
    tokenizer: words,
    streaming: true,
    producesTokens: true,
    preferUsage: true,
    requestedOutputTokens: 256,
    checkUsage: true,
  };
  const reasoning = (n: number, k: number): Partial<RequestRecord> => {
    const flags = new Uint8Array(n);
    flags.fill(1, 0, k);
    return {
      responseReasoning: flags,
      reasoningText: text(k),
      outputText: text(n - k),
      usage: {
        promptTokens: 550,
        completionTokens: n + 3,
        totalTokens: 553 + n,
        reasoningTokens: k,
      },
    };
  };
  const cases: Case[] = [
    { name: "256 chunks with usage", rec: streamed(256), ctx },
    { name: "256 chunks, plain arrays", rec: plain(streamed(256)), ctx },
    { name: "usage not checked", rec: streamed(256), ctx: { ...ctx, checkUsage: false } },
    { name: "tokenizer counts", rec: streamed(64), ctx: { ...ctx, preferUsage: false } },
    { name: "missing usage", rec: streamed(100, { usage: null }), ctx },
    { name: "empty usage", rec: streamed(100, { usage: {} }), ctx },
    {
      name: "every usage field",
      rec: streamed(40, {
        usage: {
          promptTokens: 600,
          completionTokens: 50,
          totalTokens: 650,
          reasoningTokens: 0,
          promptCacheReadTokens: 512,
          promptCacheWriteTokens: 3,
          promptCacheMissTokens: 85,
        },
      }),
      ctx,
    },
    { name: "reasoning", rec: streamed(80, reasoning(80, 30)), ctx },
    { name: "reasoning only", rec: streamed(10, reasoning(10, 10)), ctx },
    {
      name: "reasoning, server counted 0",
      rec: streamed(20, {
        ...reasoning(20, 5),
        usage: { completionTokens: 20, reasoningTokens: 0 },
      }),
      ctx,
    },
    { name: "one chunk", rec: streamed(1), ctx },
    { name: "two chunks", rec: streamed(2), ctx },
    { name: "no chunk", rec: streamed(0), ctx },
    { name: "not streaming", rec: streamed(1), ctx: { ...ctx, streaming: false } },
    {
      name: "no requested length",
      rec: streamed(30),
      ctx: { ...ctx, requestedOutputTokens: null },
    },
    {
      name: "no input count",
      rec: streamed(30, { usage: null }),
      ctx: { ...ctx, inputTokens: null },
    },
    {
      name: "embeddings",
      rec: streamed(0, { outputText: "" }),
      ctx: { ...ctx, producesTokens: false },
    },
    { name: "warmup", rec: streamed(256, { phase: "warmup" }), ctx },
    { name: "closed loop", rec: streamed(256, { intendedStartNs: null }), ctx },
    { name: "no headers", rec: streamed(0, { ackNs: null, usage: null }), ctx },
    {
      name: "cancelled",
      rec: streamed(12, {
        cancelled: true,
        error: { code: 499, type: "Cancelled", message: "cancelled by the user" },
      }),
      ctx,
    },
    {
      name: "failed",
      rec: streamed(0, {
        ackNs: null,
        endNs: 1_500.4,
        usage: null,
        error: { code: 0, type: "ConnectionError", message: 'refused "quoted"\n\u2028 é' },
      }),
      ctx,
    },
    {
      name: "failed mid-stream",
      rec: streamed(7, {
        error: { code: 200, type: "StreamTruncated", message: "stream ended without [DONE]" },
      }),
      ctx,
    },
    {
      name: "failed without input count",
      rec: streamed(0, { usage: null, error: { code: 500, type: "HTTPError", message: "boom" } }),
      ctx: { ...ctx, inputTokens: null },
    },
    {
      name: "zero latency",
      rec: streamed(3, { responseNs: new Float64Array([0, 0, 0]), endNs: 0 }),
      ctx,
    },
    {
      name: "odd strings",
      rec: streamed(5, {
        requestId: 'id "with" \\ quotes',
        conversationId: "tab\there\u0000",
        phase: "profiling",
      }),
      ctx,
    },
  ];
  return cases;
}

/** The record with plain arrays where Workers send typed ones. */
function plain(rec: RequestRecord): RequestRecord {
  return {
    ...rec,
    responseNs: Array.from(rec.responseNs),
    responseReasoning: rec.responseNs.length > 0 ? Array.from(rec.responseNs, () => false) : [],
  };
}
