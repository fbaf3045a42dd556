import assert from "node:assert/strict";
import {
  chatEmbeddingsEndpoint,
  embeddingsEndpoint,
  nimEmbeddingsEndpoint,
} from "../../src/endpoints/embeddings.ts";

Deno.test("embeddings: vectors are an answer, not tokens", () => {
  for (const e of [embeddingsEndpoint, chatEmbeddingsEndpoint, nimEmbeddingsEndpoint]) {
    assert.equal(e.path, "/v1/embeddings");
    assert.equal(e.producesTokens, false);
    assert.equal(e.supportsStreaming, false);
    assert.deepEqual(
      e.parseResponse({
        object: "list",
        data: [{ object: "embedding", index: 0, embedding: [0.1, -0.2] }],
        model: "m",
        usage: { prompt_tokens: 8, total_tokens: 8 },
      }),
      { answered: true, usage: { promptTokens: 8, totalTokens: 8 } },
    );
  }
});

Deno.test("embeddings: a body without data is unreadable; an error is an error", () => {
  assert.throws(() => embeddingsEndpoint.parseResponse({ object: "list" }), /"data" array/);
  assert.throws(() => embeddingsEndpoint.parseResponse({ data: [{ index: 0 }] }), /"data" array/);
  assert.deepEqual(embeddingsEndpoint.parseResponse({ error: { message: "too long" } }), {
    error: { message: "too long" },
  });
});
