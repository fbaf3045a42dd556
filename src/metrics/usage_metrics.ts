/**
 * Usage metrics: the server's own token counts (its `usage` report) as reported, their run
 * totals and cache hit share, and how far they are from the client's tokenizer (a large gap
 * means the counts are not comparable).
 */

import type { RequestRecord } from "../record/record.ts";
import { countOf, hiddenFlag, percentOf, total } from "./metric_builders.ts";
import { AT, type MetricDef, num } from "./metric_def.ts";

/** A server count differing from the tokenizer's by more than this percent is a discrepancy. */
export const USAGE_DIFF_THRESHOLD_PCT = 10;

/** The server-against-tokenizer comparisons a usage discrepancy is judged on. */
export const USAGE_DIFF_TAGS = [
  "usage_prompt_tokens_diff_pct",
  "usage_completion_tokens_diff_pct",
  "usage_reasoning_tokens_diff_pct",
] as const;

/** |server − client| / client × 100, or undefined when either is missing or the client saw 0. */
function diffPct(
  server: number | undefined | null,
  client: number | undefined,
): number | undefined {
  if (server == null || client === undefined || client <= 0) return undefined;
  return (Math.abs(server - client) / client) * 100;
}

/** One field of the server's usage report, per request, as reported. */
function usage(
  tag: string,
  header: string,
  displayOrder: number,
  field: keyof NonNullable<RequestRecord["usage"]>,
): MetricDef {
  return {
    tag,
    header,
    unit: "tokens",
    displayUnit: "tokens",
    kind: "record",
    flags: ["usage", "larger_is_better", "no_console"],
    displayOrder,
    record: (rec) => rec.usage?.[field] ?? undefined,
  };
}

/** The usage report's fields, per request, in table order. */
export const USAGE_COUNTS: readonly MetricDef[] = [
  usage("usage_prompt_tokens", "Usage Prompt Tokens", 1500, "promptTokens"),
  usage("usage_completion_tokens", "Usage Completion Tokens", 1510, "completionTokens"),
  usage("usage_total_tokens", "Usage Total Tokens", 1520, "totalTokens"),
  usage("usage_reasoning_tokens", "Usage Reasoning Tokens", 1530, "reasoningTokens"),
  usage(
    "usage_prompt_cache_read_tokens",
    "Usage Prompt Cache Read Tokens",
    1540,
    "promptCacheReadTokens",
  ),
  usage(
    "usage_prompt_cache_write_tokens",
    "Usage Prompt Cache Write Tokens",
    1550,
    "promptCacheWriteTokens",
  ),
  usage(
    "usage_prompt_cache_miss_tokens",
    "Usage Prompt Cache Miss Tokens",
    1560,
    "promptCacheMissTokens",
  ),
  usage("usage_prompt_audio_tokens", "Usage Prompt Audio Tokens", 1561, "promptAudioTokens"),
  usage(
    "usage_completion_audio_tokens",
    "Usage Completion Audio Tokens",
    1562,
    "completionAudioTokens",
  ),
  {
    ...usage(
      "usage_prompt_audio_seconds",
      "Usage Prompt Audio Seconds",
      1563,
      "promptAudioSeconds",
    ),
    unit: "sec",
    displayUnit: "sec",
  },
];

/** The server's counts against the tokenizer's, per request, in table order ({@link USAGE_DIFF_TAGS}). */
export const USAGE_DIFFS: readonly MetricDef[] = [
  percentOf(
    "usage_prompt_tokens_diff_pct",
    "Usage Prompt Tokens Diff",
    1570,
    ["usage"],
    (rec, _m, ctx) => diffPct(rec.usage?.promptTokens, ctx.inputTokens ?? undefined),
  ),
  percentOf(
    "usage_completion_tokens_diff_pct",
    "Usage Completion Tokens Diff",
    1571,
    ["usage", "produces_tokens"],
    (rec, _m, ctx) =>
      rec.usage?.completionTokens == null || ctx.checkUsage === false ? undefined : diffPct(
        rec.usage.completionTokens,
        ctx.tokenizer.count(rec.outputText) + ctx.tokenizer.count(rec.reasoningText),
      ),
  ),
  percentOf(
    "usage_reasoning_tokens_diff_pct",
    "Usage Reasoning Tokens Diff",
    1572,
    ["usage", "produces_tokens", "reasoning"],
    (rec, _m, ctx) =>
      rec.usage?.reasoningTokens == null || rec.reasoningText === "" || ctx.checkUsage === false
        ? undefined
        : diffPct(rec.usage.reasoningTokens, ctx.tokenizer.count(rec.reasoningText)),
  ),
];

/**
 * 1 for a request whose server counts differ from the tokenizer's past
 * {@link USAGE_DIFF_THRESHOLD_PCT}, else 0. Absent on records not checked, so the count is over
 * checked records only.
 */
export const USAGE_DISCREPANCY: MetricDef = hiddenFlag(
  "usage_discrepancy",
  ["usage"],
  (_rec, m, ctx) => {
    if (ctx.checkUsage === false) return undefined;
    let compared = false;
    let over = false;
    for (const at of AT.usageDiffs) {
      // A chat prompt counted without the template differs by the template's tokens.
      if (at === AT.usageDiffs[0] && ctx.promptComparable === false) continue;
      const d = num(m, at);
      if (d === undefined) continue;
      compared = true;
      if (d > USAGE_DIFF_THRESHOLD_PCT) over = true;
    }
    return compared ? (over ? 1 : 0) : undefined;
  },
);

/** Requests whose server counts differ from the tokenizer's. */
export const USAGE_DISCREPANCY_COUNT: MetricDef = countOf(
  "usage_discrepancy_count",
  "Usage Discrepancy Count",
  "usage_discrepancy",
  1580,
  ["usage"],
);

/** The run totals of the usage report's fields, in table order. */
export const USAGE_TOTALS: readonly MetricDef[] = [
  "prompt",
  "completion",
  "total",
  "reasoning",
  "prompt_cache_read",
  "prompt_cache_write",
  "prompt_cache_miss",
].map((k, i) =>
  total(
    `total_usage_${k}_tokens`,
    `Total Usage ${k.split("_").map((w) => w[0].toUpperCase() + w.slice(1)).join(" ")} Tokens`,
    `usage_${k}_tokens`,
    1590 + i,
    ["usage"],
  )
);

/** The share of the run's prompt tokens the server read from its cache. */
export const OVERALL_USAGE_PROMPT_CACHE_READ_PCT: MetricDef = {
  tag: "overall_usage_prompt_cache_read_pct",
  header: "Overall Usage Prompt Cache Read",
  unit: "%",
  displayUnit: "%",
  kind: "derived",
  flags: ["usage", "no_individual_records", "no_console"],
  displayOrder: 1599,
  derive: (r) => {
    const read = r.value("total_usage_prompt_cache_read_tokens");
    const prompt = r.value("total_usage_prompt_tokens");
    return read === undefined || !prompt ? undefined : (read / prompt) * 100;
  },
};
