import assert from "node:assert/strict";
import {
  computeRecordMetrics,
  inUsageSample,
  USAGE_CHECK_EVERY,
  USAGE_CHECK_FIRST,
} from "../../src/metrics/record_metrics.ts";
import type { Tokenizer } from "../../src/tokenizer/tokenizer.ts";
import { MetricsAggregator } from "../../src/metrics/aggregator.ts";
import { runWarnings } from "../../src/metrics/warnings.ts";
import { record, wordTokenizer } from "./_records.ts";

/** The word tokenizer, recording every text it is asked to count. */
function counting(): { tokenizer: Tokenizer; seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    tokenizer: {
      name: "words",
      count: (t) => {
        seen.push(t);
        return wordTokenizer.count(t);
      },
    },
  };
}

const withUsage = () =>
  record({
    responseNs: [1, 2],
    responseReasoning: [true, false],
    outputText: "a b c d",
    reasoningText: "r s",
    usage: { promptTokens: 10, completionTokens: 12, reasoningTokens: 2 },
  });

Deno.test("usage check: the answer is tokenized once per record, however many metrics count it", () => {
  const { tokenizer, seen } = counting();
  // Without server counts the tokenizer decides output_token_count and the comparison reuses it.
  const m = computeRecordMetrics(withUsage(), {
    inputTokens: 10,
    tokenizer,
    streaming: true,
    preferUsage: false,
  });
  assert.equal(m.output_token_count, 4);
  assert.equal(m.usage_completion_tokens_diff_pct, 100); // 12 against 4 + 2
  assert.equal(seen.filter((t) => t === "a b c d").length, 1);
  assert.equal(seen.filter((t) => t === "r s").length, 1);
});

Deno.test("usage check: a record outside the sample is not tokenized when usage gives the counts", () => {
  const { tokenizer, seen } = counting();
  const ctx = { inputTokens: 10, tokenizer, streaming: true, preferUsage: true };
  const off = computeRecordMetrics(withUsage(), { ...ctx, checkUsage: false });
  assert.deepEqual(seen, []);
  assert.equal(off.output_token_count, 10); // the server's 12 less its 2 reasoning tokens
  assert.equal(off.reasoning_token_count, 2);
  assert.equal(off.usage_completion_tokens_diff_pct, undefined);
  assert.equal(off.usage_reasoning_tokens_diff_pct, undefined);
  assert.equal(off.usage_discrepancy, undefined, "not counted either way when not checked");
  assert.equal(off.usage_prompt_tokens_diff_pct, 0, "the prompt count costs nothing: kept");

  const on = computeRecordMetrics(withUsage(), ctx);
  assert.equal(on.usage_completion_tokens_diff_pct, 100);
  assert.equal(on.usage_reasoning_tokens_diff_pct, 0);
  assert.equal(on.usage_discrepancy, 1);
  assert.equal(on.output_token_count, 10);
});

Deno.test("usage check: the sample is the first records, then one in every so many", () => {
  const sampled: number[] = [];
  for (let n = 0; n < 1000; n++) if (inUsageSample(n)) sampled.push(n);
  assert.equal(USAGE_CHECK_FIRST, 100);
  assert.equal(USAGE_CHECK_EVERY, 50);
  assert.deepEqual(sampled.slice(0, 100), Array.from({ length: 100 }, (_, i) => i));
  assert.deepEqual(sampled.slice(100), [
    100,
    150,
    200,
    250,
    300,
    350,
    400,
    450,
    500,
    550,
    600,
    650,
    700,
    750,
    800,
    850,
    900,
    950,
  ]);
});

Deno.test("usage check: the warning counts discrepancies among the records checked", () => {
  const agg = new MetricsAggregator();
  for (let i = 0; i < 4; i++) {
    const r = withUsage();
    agg.add(
      r,
      computeRecordMetrics(r, {
        inputTokens: 10,
        tokenizer: wordTokenizer,
        streaming: true,
        checkUsage: i < 2,
      }),
    );
  }
  const warnings = runWarnings(agg.summary());
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /for 2 of 2 checked \(a sample\) requests/);
});
