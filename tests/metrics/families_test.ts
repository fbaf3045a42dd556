import assert from "node:assert/strict";
import { MetricsAggregator } from "../../src/metrics/aggregator.ts";
import { computeRecordMetrics } from "../../src/metrics/record_metrics.ts";
import { requestedOutputTokens } from "../../src/metrics/requested_osl.ts";
import { runWarnings } from "../../src/metrics/warnings.ts";
import { recordLine } from "../../src/export/record_writer.ts";
import { record, wordTokenizer } from "./_records.ts";
import type { Tokenizer } from "../../src/tokenizer/tokenizer.ts";

const MS = 1_000_000;

function streamed(words: number, over = {}) {
  const t = Array.from({ length: words }, (_, i) => (10 + i * 2) * MS);
  return record({
    responseNs: t,
    responseReasoning: t.map(() => false),
    outputText: Array.from({ length: words }, () => "w").join(" "),
    endNs: t[t.length - 1],
    ...over,
  });
}

Deno.test("decode_duration is latency minus TTFT", () => {
  const r = streamed(5);
  const m = computeRecordMetrics(r, { inputTokens: 1, tokenizer: wordTokenizer, streaming: true });
  assert.equal(m.decode_duration, 8 * MS);
  assert.equal(m.request_latency as number - (m.time_to_first_token as number), 8 * MS);
});

Deno.test("requestedOutputTokens reads every API's max-tokens field", () => {
  assert.equal(requestedOutputTokens({ max_tokens: 100 }), 100);
  assert.equal(requestedOutputTokens({ max_completion_tokens: 80, max_tokens: 100 }), 80);
  assert.equal(requestedOutputTokens({ max_output_tokens: 64 }), 64);
  assert.equal(requestedOutputTokens({ parameters: { max_new_tokens: 32 } }), 32);
  assert.equal(requestedOutputTokens({ messages: [] }), null);
  assert.equal(requestedOutputTokens("x"), null);
});

Deno.test("OSL mismatch: percent per request, counted past min(5 %, 50 tokens), warned", () => {
  const agg = new MetricsAggregator();
  const cases: [number, number][] = [[10, 10], [10, 12], [100, 96], [100, 90]];
  for (const [words, requested] of cases) {
    const r = streamed(words);
    const m = computeRecordMetrics(r, {
      inputTokens: 1,
      tokenizer: wordTokenizer,
      streaming: true,
      requestedOutputTokens: requested,
    });
    assert.equal(m.osl_mismatch_diff_pct, ((words - requested) / requested) * 100);
    agg.add(r, m);
    // The 0/1 helper is never written per request.
    assert.ok(!recordLine(r, m).includes('"osl_mismatch"'));
  }
  const s = agg.summary();
  assert.equal(s.metrics.find((m) => m.tag === "osl_mismatch_count")?.avg, 2);
  assert.ok(!s.metrics.some((m) => m.tag === "osl_mismatch"), "hidden helper exported");
  const warnings = runWarnings(s);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /2 of 4 requests .* requested max tokens/);
});

Deno.test("usage families: cache tokens, totals, and discrepancy against the tokenizer", () => {
  const agg = new MetricsAggregator();
  const usage = {
    promptTokens: 10,
    completionTokens: 5,
    totalTokens: 15,
    promptCacheReadTokens: 4,
  };
  // The tokenizer sees 10 input words and 5 output words: no discrepancy.
  const fine = streamed(5, { usage });
  // The server counts 8 output tokens against 5 words: 60 % off.
  const off = streamed(5, { usage: { ...usage, completionTokens: 8 } });
  for (const r of [fine, off]) {
    const m = computeRecordMetrics(r, {
      inputTokens: 10,
      tokenizer: wordTokenizer,
      streaming: true,
    });
    agg.add(r, m);
  }
  const s = agg.summary();
  const v = (t: string) => s.metrics.find((m) => m.tag === t);
  assert.equal(v("usage_prompt_cache_read_tokens")?.avg, 4);
  assert.equal(v("total_usage_prompt_tokens")?.avg, 20);
  assert.equal(v("total_usage_completion_tokens")?.avg, 13);
  assert.equal(v("total_usage_prompt_cache_read_tokens")?.avg, 8);
  assert.equal(v("overall_usage_prompt_cache_read_pct")?.avg, 40);
  assert.equal(v("usage_prompt_tokens_diff_pct")?.max, 0);
  assert.equal(v("usage_completion_tokens_diff_pct")?.max, 60);
  assert.equal(v("usage_discrepancy_count")?.avg, 1);
  assert.ok(runWarnings(s).some((w) => /usage token counts differ/.test(w)));
});

Deno.test("usage discrepancy: a chat prompt counted without its template is not compared; one counted with it is", () => {
  // The server counts 18 prompt tokens (the template's 8 besides the 10 words); output agrees.
  const usage = { promptTokens: 18, completionTokens: 5, totalTokens: 23 };
  const count = (promptComparable: boolean | undefined) => {
    const agg = new MetricsAggregator();
    const r = streamed(5, { usage });
    agg.add(
      r,
      computeRecordMetrics(r, {
        inputTokens: 10,
        tokenizer: wordTokenizer,
        streaming: true,
        promptComparable,
      }),
    );
    const s = agg.summary();
    const v = (t: string) => s.metrics.find((m) => m.tag === t)?.avg;
    // The difference itself is reported either way.
    assert.equal(v("usage_prompt_tokens_diff_pct"), 80);
    return { n: v("usage_discrepancy_count"), warnings: runWarnings(s) };
  };
  const bare = count(false);
  assert.equal(bare.n, 0);
  assert.deepEqual(bare.warnings, []);
  for (const comparable of [true, undefined]) {
    const checked = count(comparable);
    assert.equal(checked.n, 1);
    assert.equal(checked.warnings.length, 1);
  }
});

Deno.test("usage warning: asks for --tokenizer only when none was named; never when one was", () => {
  const agg = new MetricsAggregator();
  const r = streamed(5, { usage: { promptTokens: 10, completionTokens: 9, totalTokens: 19 } });
  agg.add(
    r,
    computeRecordMetrics(r, { inputTokens: 10, tokenizer: wordTokenizer, streaming: true }),
  );
  const s = agg.summary();
  const warn = (t?: Tokenizer) => {
    const w = runWarnings(s, t).filter((l) => /usage token counts differ/.test(l));
    assert.equal(w.length, 1);
    assert.match(w[0], /average input 0\.0 %, output 80\.0 %/);
    return w[0];
  };
  const builtin = { name: "builtin", count: wordTokenizer.count };
  assert.match(warn(), /pass the model's tokenizer with --tokenizer/);
  assert.match(warn({ ...builtin, given: false }), /pass the model's tokenizer with --tokenizer/);
  for (
    const t of [
      { ...builtin, name: "Qwen/Qwen3-0.6B", given: true },
      { ...builtin, name: "/models/qwen", given: true },
      { ...builtin, given: true },
    ]
  ) {
    const w = warn(t);
    assert.doesNotMatch(w, /pass .*--tokenizer/, w);
    assert.match(
      w,
      new RegExp(`"${t.name}" \\(from --tokenizer\\) may not be the one the server uses`),
    );
  }
  const followed = warn({ ...builtin, name: "Qwen/Qwen3-0.6B", given: false });
  assert.match(followed, /\(from the model name\)/);
  // Offline, o200k stood in for the named tokenizer: say so rather than ask for it again.
  for (const given of [true, false]) {
    const stoodIn = warn({ ...builtin, given, fallbackFrom: "Qwen/Qwen3-0.6B" });
    assert.match(stoodIn, /o200k counted in place of "Qwen\/Qwen3-0\.6B"/);
    assert.doesNotMatch(stoodIn, /pass .*--tokenizer/);
  }
});
