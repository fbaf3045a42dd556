import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { embed } from "../../src/mock/embeddings.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { post } from "./helpers.ts";

Deno.test("embed gives a stable unit vector per text", () => {
  const a = embed("hello", 16);
  assert.equal(a.length, 16);
  assert.deepEqual(a, embed("hello", 16));
  assert.notDeepEqual(a, embed("world", 16));
  assert.ok(Math.abs(Math.hypot(...a) - 1) < 1e-5);
});

Deno.test("embeddings endpoint", async (t) => {
  const server = await startMockServer();
  const url = `${server.url}/v1/embeddings`;
  try {
    await t.step("float vectors, one per input, with usage", async () => {
      const json =
        await (await post(url, { model: "e5", input: ["a cat", "a dog"], dimensions: 4 }))
          .json();
      assert.equal(json.object, "list");
      assert.equal(json.model, "e5");
      assert.deepEqual(json.data.map((d: { index: number }) => d.index), [0, 1]);
      assert.ok(
        json.data.every((d: { object: string; embedding: number[] }) =>
          d.object === "embedding" && d.embedding.length === 4
        ),
      );
      const n = countTokens("a cat") + countTokens("a dog");
      assert.deepEqual(json.usage, { prompt_tokens: n, total_tokens: n });
    });
    await t.step("base64 decodes to the float vector", async () => {
      const b64 = await (await post(url, { input: "x", encoding_format: "base64", dimensions: 8 }))
        .json();
      const bytes = Uint8Array.from(atob(b64.data[0].embedding), (c) => c.charCodeAt(0));
      const floats = new Float32Array(bytes.buffer);
      assert.deepEqual(Array.from(floats), Array.from(embed("x", 8)));
    });
    await t.step("token id inputs and bad inputs", async () => {
      const ids = await (await post(url, { input: [[1, 2, 3], [4]] })).json();
      assert.equal(ids.usage.prompt_tokens, 4);
      assert.equal(ids.data[0].embedding.length, 384);
      const bad = await post(url, { input: { text: "x" } });
      assert.equal(bad.status, 400);
      assert.equal((await bad.json()).error.param, "input");
    });
  } finally {
    await server.close();
  }
});

Deno.test("chat-style embeddings: each message of `messages` embeds as one input", async () => {
  const server = await startMockServer();
  try {
    const res = await post(`${server.url}/v1/embeddings`, {
      model: "vlm2vec",
      messages: [{ role: "user", content: [{ type: "text", text: "a cat" }] }, {
        role: "user",
        content: "a dog",
      }],
      dimensions: 4,
    });
    assert.equal(res.status, 200);
    const json = await res.json();
    assert.equal(json.data.length, 2);
    assert.deepEqual(json.data[0].embedding, Array.from(embed("a cat", 4)));
    assert.equal(json.usage.prompt_tokens, countTokens("a cat") + countTokens("a dog"));
  } finally {
    await server.close();
  }
});
