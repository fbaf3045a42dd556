import assert from "node:assert/strict";
import { normalizeUsage } from "../../src/endpoints/usage.ts";

Deno.test("normalizeUsage: vendor synonyms", async (t) => {
  const cases: [string, unknown, unknown][] = [
    ["OpenAI with details", {
      prompt_tokens: 100,
      completion_tokens: 50,
      total_tokens: 150,
      prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 20, audio_tokens: 0 },
    }, {
      promptTokens: 100,
      completionTokens: 50,
      totalTokens: 150,
      reasoningTokens: 20,
      promptCacheReadTokens: 64,
      promptAudioTokens: 0,
      completionAudioTokens: 0,
    }],
    ["Anthropic re-totals the prompt with cache read and creation", {
      input_tokens: 5,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 20,
      output_tokens: 7,
    }, {
      promptTokens: 125,
      completionTokens: 7,
      promptCacheReadTokens: 100,
      promptCacheWriteTokens: 20,
    }],
    ["Anthropic without cache", { input_tokens: 5, output_tokens: 7 }, {
      promptTokens: 5,
      completionTokens: 7,
    }],
    ["OpenAI Responses", {
      input_tokens: 9,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 1 },
      total_tokens: 12,
    }, {
      promptTokens: 9,
      completionTokens: 3,
      totalTokens: 12,
      reasoningTokens: 1,
      promptCacheReadTokens: 0,
    }],
    ["Gemini usageMetadata envelope", {
      usageMetadata: {
        promptTokenCount: 10,
        candidatesTokenCount: 4,
        totalTokenCount: 20,
        thoughtsTokenCount: 6,
        cachedContentTokenCount: 2,
      },
    }, {
      promptTokens: 10,
      completionTokens: 4,
      totalTokens: 20,
      reasoningTokens: 6,
      promptCacheReadTokens: 2,
    }],
    ["Bedrock camelCase", {
      inputTokens: 11,
      outputTokens: 12,
      totalTokens: 23,
      cacheReadInputTokens: 1,
      cacheWriteInputTokens: 2,
    }, {
      promptTokens: 11,
      completionTokens: 12,
      totalTokens: 23,
      promptCacheReadTokens: 1,
      promptCacheWriteTokens: 2,
    }],
    ["DeepSeek", {
      prompt_tokens: 30,
      completion_tokens: 5,
      total_tokens: 35,
      prompt_cache_hit_tokens: 20,
      prompt_cache_miss_tokens: 10,
    }, {
      promptTokens: 30,
      completionTokens: 5,
      totalTokens: 35,
      promptCacheReadTokens: 20,
      promptCacheMissTokens: 10,
    }],
    ["Cohere v1 meta.tokens (billed_units ignored)", {
      meta: {
        billed_units: { input_tokens: 99, output_tokens: 99 },
        tokens: { input_tokens: 8, output_tokens: 2 },
      },
    }, { promptTokens: 8, completionTokens: 2 }],
    ["Cohere v2 usage.tokens", {
      usage: { billed_units: { input_tokens: 99 }, tokens: { input_tokens: 6, output_tokens: 1 } },
    }, { promptTokens: 6, completionTokens: 1 }],
    ["watsonx at the root", { input_token_count: 13, generated_token_count: 21 }, {
      promptTokens: 13,
      completionTokens: 21,
    }],
    ["a response holding usage", { id: "x", usage: { prompt_tokens: 1 } }, { promptTokens: 1 }],
  ];
  for (const [name, input, expected] of cases) {
    await t.step(name, () => assert.deepEqual(normalizeUsage(input), expected));
  }
});

Deno.test("normalizeUsage: first present key wins; missing is not zero", () => {
  assert.deepEqual(normalizeUsage({ prompt_tokens: 1, input_tokens: 2 }), { promptTokens: 1 });
  assert.deepEqual(normalizeUsage({ completion_tokens: 0 }), { completionTokens: 0 });
  const u = normalizeUsage({ prompt_tokens: 4 })!;
  assert.equal("completionTokens" in u, false);
  // Non-numbers (Mistral's `{}` sentinel, nulls, strings) are not counts.
  assert.deepEqual(
    normalizeUsage({ prompt_tokens: null, input_tokens: 3, prompt_audio_seconds: {} }),
    {
      promptTokens: 3,
    },
  );
  assert.equal(normalizeUsage({ prompt_tokens: "5" }), null);
});

Deno.test("normalizeUsage: nothing known is null", () => {
  for (const v of [null, undefined, 3, "x", [], {}, { usage: null }, { foo: 1 }]) {
    assert.equal(normalizeUsage(v), null, JSON.stringify(v));
  }
});
