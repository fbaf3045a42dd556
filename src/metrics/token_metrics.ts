/**
 * Token-count metrics: per-request reasoning, output and input token counts (the server's usage
 * when present, else the tokenizer), their run totals, and the answer's length against what the
 * request asked for (OSL mismatch).
 */

import type { RequestRecord } from "../record/record.ts";
import { countOf, hiddenFlag, inputTokens, percentOf, total } from "./metric_builders.ts";
import { AT, type MetricDef, num, type RecordContext } from "./metric_def.ts";

/** The server's reasoning count (`completion_tokens_details.reasoning_tokens`), when used. */
function serverReasoning(rec: RequestRecord, ctx: RecordContext): number | undefined {
  const u = ctx.preferUsage === false ? undefined : rec.usage?.reasoningTokens;
  return u == null ? undefined : u;
}

/** Reasoning tokens as AIPerf counts them: the server's count when it gave one, else the tokenizer's. */
function reasoningTokens(rec: RequestRecord, ctx: RecordContext): number {
  return serverReasoning(rec, ctx) ?? ctx.tokenizer.count(rec.reasoningText);
}

/** AIPerf's tolerance: an OSL differing from the request by more than min(5 %, 50 tokens). */
export function oslMismatchThreshold(requested: number): number {
  return Math.min(requested * 0.05, 50);
}

/** Reasoning tokens of one answer; absent when it had none. */
export const REASONING_TOKEN_COUNT: MetricDef = {
  tag: "reasoning_token_count",
  header: "Reasoning Token Count",
  unit: "tokens",
  displayUnit: "tokens",
  kind: "record",
  flags: ["produces_tokens", "larger_is_better", "reasoning"],
  displayOrder: 620,
  record: (rec, _m, ctx) => {
    const n = reasoningTokens(rec, ctx);
    return n > 0 || rec.reasoningText !== "" ? n : undefined;
  },
};

/** Output tokens of one answer, reasoning left out. */
export const OUTPUT_TOKEN_COUNT: MetricDef = {
  tag: "output_token_count",
  header: "Output Token Count",
  unit: "tokens",
  displayUnit: "tokens",
  kind: "record",
  flags: ["produces_tokens", "larger_is_better"],
  displayOrder: 610,
  record: (rec, _m, ctx) => {
    const completion = ctx.preferUsage === false ? undefined : rec.usage?.completionTokens;
    // Servers count reasoning inside completion tokens; output is what remains after the
    // server's own reasoning count. As in AIPerf, a server that gives no reasoning detail has
    // all its completion tokens counted as output: a tokenizer's guess is not subtracted.
    if (completion != null) {
      return Math.max(0, completion - (serverReasoning(rec, ctx) ?? 0));
    }
    return ctx.tokenizer.count(rec.outputText);
  },
};

/** Output plus reasoning tokens of one answer. */
export const OUTPUT_SEQUENCE_LENGTH: MetricDef = {
  tag: "output_sequence_length",
  header: "Output Sequence Length",
  unit: "tokens",
  displayUnit: "tokens",
  kind: "record",
  flags: ["produces_tokens", "larger_is_better"],
  displayOrder: 600,
  record: (_rec, m) => {
    const out = num(m, AT.outputCount);
    return out === undefined ? undefined : out + (num(m, AT.reasoningCount) ?? 0);
  },
};

/** Input tokens of one successful request. */
export const INPUT_SEQUENCE_LENGTH: MetricDef = {
  tag: "input_sequence_length",
  header: "Input Sequence Length",
  unit: "tokens",
  displayUnit: "tokens",
  kind: "record",
  flags: ["larger_is_better"],
  displayOrder: 700,
  record: (rec, _m, ctx) => inputTokens(rec, ctx),
};

/** How far the answer's length is from what the request asked for, in percent. */
export const OSL_MISMATCH_DIFF_PCT: MetricDef = percentOf(
  "osl_mismatch_diff_pct",
  "OSL Mismatch Diff",
  1700,
  ["produces_tokens"],
  (_rec, m, ctx) => {
    const req = ctx.requestedOutputTokens;
    const osl = num(m, AT.osl);
    return req == null || req <= 0 || osl === undefined ? undefined : ((osl - req) / req) * 100;
  },
);

/** 1 for an answer whose length is past {@link oslMismatchThreshold}, else 0. */
export const OSL_MISMATCH: MetricDef = hiddenFlag(
  "osl_mismatch",
  ["produces_tokens"],
  (_rec, m, ctx) => {
    const req = ctx.requestedOutputTokens;
    const osl = num(m, AT.osl);
    if (req == null || req <= 0 || osl === undefined) return undefined;
    return Math.abs(osl - req) > oslMismatchThreshold(req) ? 1 : 0;
  },
);

/** Answers whose length missed what the request asked for. */
export const OSL_MISMATCH_COUNT: MetricDef = countOf(
  "osl_mismatch_count",
  "OSL Mismatch Count",
  "osl_mismatch",
  1710,
  ["produces_tokens"],
);

/** Input tokens over the run. */
export const TOTAL_ISL: MetricDef = total(
  "total_isl",
  "Total Input Sequence Length",
  "input_sequence_length",
  1200,
);

/** Output plus reasoning tokens over the run. */
export const TOTAL_OSL: MetricDef = total(
  "total_osl",
  "Total Output Sequence Length",
  "output_sequence_length",
  1210,
  ["produces_tokens"],
);

/** Output tokens over the run, reasoning left out. */
export const TOTAL_OUTPUT_TOKENS: MetricDef = total(
  "total_output_tokens",
  "Total Output Tokens",
  "output_token_count",
  1220,
  ["produces_tokens"],
);

/** Reasoning tokens over the run. */
export const TOTAL_REASONING_TOKENS: MetricDef = total(
  "total_reasoning_tokens",
  "Total Reasoning Tokens",
  "reasoning_token_count",
  1230,
  ["produces_tokens", "reasoning"],
);
