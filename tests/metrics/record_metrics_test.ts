import assert from "node:assert/strict";
import { computeRecordMetrics } from "../../src/metrics/record_metrics.ts";
import { record, wordTokenizer } from "./_records.ts";

const MS = 1_000_000;
const ctx = { inputTokens: 10, tokenizer: wordTokenizer, streaming: true };

function close(actual: unknown, expected: number) {
  assert.equal(typeof actual, "number");
  assert.ok(
    Math.abs((actual as number) - expected) < 1e-9 * Math.max(1, expected),
    `${actual} != ${expected}`,
  );
}

Deno.test("computeRecordMetrics: streaming request", () => {
  const rec = record({
    responseNs: [20 * MS, 30 * MS, 45 * MS, 60 * MS],
    responseReasoning: [false, false, false, false],
    outputText: "a b c d e",
    endNs: 61 * MS,
  });
  const m = computeRecordMetrics(rec, ctx);
  assert.equal(m.request_latency, 60 * MS); // last content response, not the last byte
  assert.equal(m.time_to_first_token, 20 * MS);
  assert.equal(m.time_to_second_token, 10 * MS);
  assert.equal(m.time_to_first_output_token, 20 * MS);
  assert.equal(m.output_token_count, 5);
  assert.equal(m.output_sequence_length, 5);
  assert.equal(m.input_sequence_length, 10);
  assert.equal(m.inter_token_latency, 10 * MS); // (60 − 20) / (5 − 1)
  assert.deepEqual(m.inter_chunk_latency, [10 * MS, 15 * MS, 15 * MS]);
  close(m.output_token_throughput_per_user, 100); // 1 / 10 ms
  close(m.e2e_output_token_throughput, 5 / 0.06);
  close(m.prefill_throughput_per_user, 10 / 0.02);
  assert.equal(m.reasoning_token_count, undefined);
  assert.equal(m.usage_prompt_tokens, undefined);
  assert.equal(m.error_isl, undefined);
});

Deno.test("computeRecordMetrics: non-streaming request has no streaming metrics", () => {
  const rec = record({
    responseNs: [40 * MS],
    responseReasoning: [false],
    outputText: "a b c",
    endNs: 41 * MS,
  });
  const m = computeRecordMetrics(rec, { ...ctx, streaming: false });
  assert.deepEqual(Object.keys(m).sort(), [
    "e2e_output_token_throughput",
    "input_sequence_length",
    "output_sequence_length",
    "output_token_count",
    "request_latency",
  ]);
  assert.equal(m.request_latency, 40 * MS);
  close(m.e2e_output_token_throughput, 3 / 0.04);
});

Deno.test("computeRecordMetrics: reasoning is counted apart from output", () => {
  const rec = record({
    responseNs: [10 * MS, 20 * MS, 30 * MS, 40 * MS],
    responseReasoning: [true, true, false, false],
    reasoningText: "r1 r2 r3",
    outputText: "o1 o2",
  });
  const m = computeRecordMetrics(rec, ctx);
  assert.equal(m.reasoning_token_count, 3);
  assert.equal(m.output_token_count, 2);
  assert.equal(m.output_sequence_length, 5);
  assert.equal(m.time_to_first_token, 10 * MS);
  assert.equal(m.time_to_first_output_token, 30 * MS);
  assert.equal(m.inter_token_latency, 30 * MS / 4);
});

Deno.test("computeRecordMetrics: server usage wins over the tokenizer", async (t) => {
  const rec = record({
    responseNs: [10 * MS, 20 * MS],
    responseReasoning: [false, false],
    outputText: "x y",
    reasoningText: "",
    usage: { promptTokens: 7, completionTokens: 12, reasoningTokens: 4, totalTokens: 19 },
  });

  await t.step("usage present", () => {
    const m = computeRecordMetrics(rec, ctx);
    assert.equal(m.input_sequence_length, 7);
    assert.equal(m.reasoning_token_count, 4);
    assert.equal(m.output_token_count, 8); // completion − reasoning
    assert.equal(m.output_sequence_length, 12);
    assert.equal(m.usage_prompt_tokens, 7);
    assert.equal(m.usage_completion_tokens, 12);
    assert.equal(m.usage_total_tokens, 19);
    assert.equal(m.usage_reasoning_tokens, 4);
  });

  await t.step("preferUsage false counts the text", () => {
    const m = computeRecordMetrics(rec, { ...ctx, preferUsage: false });
    assert.equal(m.input_sequence_length, 10);
    assert.equal(m.output_token_count, 2);
    assert.equal(m.reasoning_token_count, undefined);
    assert.equal(m.usage_prompt_tokens, 7); // the server's report is still recorded as such
  });

  await t.step("usage reporting 0 reasoning tokens: AIPerf takes the server's 0", () => {
    const m = computeRecordMetrics(
      { ...rec, reasoningText: "r1 r2", usage: { completionTokens: 6, reasoningTokens: 0 } },
      ctx,
    );
    assert.equal(m.reasoning_token_count, 0);
    assert.equal(m.output_token_count, 6);
    assert.equal(m.input_sequence_length, 10); // no promptTokens: the client's count
  });

  await t.step(
    "usage without reasoning detail: output is every completion token, reasoning the tokenizer's",
    () => {
      // The server produced 4 reasoning and 16 output tokens and reported only the 20. The
      // tokenizer reads the reasoning text as 9 tokens: that guess is not taken off the output.
      const reasoning = "a b c d e f g h i";
      const m = computeRecordMetrics(
        { ...rec, reasoningText: reasoning, usage: { promptTokens: 7, completionTokens: 20 } },
        ctx,
      );
      assert.equal(m.reasoning_token_count, 9);
      assert.equal(m.output_token_count, 20);
      assert.equal(m.output_sequence_length, 29);
    },
  );
});

Deno.test("computeRecordMetrics: a failed request gets only error metrics", () => {
  const rec = record({
    responseNs: [10 * MS],
    responseReasoning: [false],
    outputText: "partial",
    error: { code: 500, type: "HTTPError", message: "boom" },
  });
  assert.deepEqual(computeRecordMetrics(rec, ctx), { error_isl: 10 });
  assert.deepEqual(computeRecordMetrics(rec, { ...ctx, inputTokens: null }), {});
});

Deno.test("computeRecordMetrics: edge cases", async (t) => {
  await t.step("one output token: no ITL nor per-user throughput", () => {
    const m = computeRecordMetrics(
      record({ responseNs: [10 * MS], responseReasoning: [false], outputText: "one" }),
      ctx,
    );
    assert.equal(m.inter_token_latency, undefined);
    assert.equal(m.output_token_throughput_per_user, undefined);
    assert.equal(m.time_to_second_token, undefined);
    assert.equal(m.inter_chunk_latency, undefined);
    assert.equal(m.time_to_first_token, 10 * MS);
  });

  await t.step("no content response: latency is the end, no TTFT", () => {
    const m = computeRecordMetrics(record({ endNs: 33 * MS }), ctx);
    assert.equal(m.request_latency, 33 * MS);
    assert.equal(m.time_to_first_token, undefined);
  });

  await t.step("an endpoint without tokens (embeddings) gets no token metrics", () => {
    const m = computeRecordMetrics(
      record({ responseNs: [5 * MS], responseReasoning: [false] }),
      { ...ctx, streaming: false, producesTokens: false },
    );
    assert.deepEqual(Object.keys(m).sort(), ["input_sequence_length", "request_latency"]);
  });
});
