import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { startMockServer } from "../../src/mock/server.ts";
import { payloads, post, readSse } from "./helpers.ts";

type Chunk = {
  object: string;
  choices: { text: string; finish_reason: string | null }[];
  usage?: Record<string, number> | null;
};

Deno.test("text completions", async (t) => {
  const server = await startMockServer({ outputTokens: 4, reasoningTokens: 3 });
  const url = `${server.url}/v1/completions`;
  try {
    await t.step("streaming: one chunk per token, finish, usage, [DONE]", async () => {
      const res = await post(url, {
        model: "m",
        prompt: "Once upon a time",
        stream: true,
        max_tokens: 5,
        stream_options: { include_usage: true },
      });
      const events = await readSse(res);
      assert.equal(events.at(-1)!.data, "[DONE]");
      const chunks = payloads(events) as Chunk[];
      assert.ok(chunks.every((c) => c.object === "text_completion"));
      const text = chunks.map((c) => c.choices[0]?.text ?? "").join("");
      assert.equal(countTokens(text), 5, "no reasoning in the completions API");
      assert.equal(chunks.length, 5 + 2);
      assert.equal(chunks[5].choices[0].finish_reason, "length");
      assert.deepEqual(chunks[6].choices, []);
      assert.equal(chunks[6].usage!.prompt_tokens, countTokens("Once upon a time"));
      assert.equal(chunks[6].usage!.completion_tokens, 5);
    });
    await t.step("non-streaming, prompt as a list and as token ids", async () => {
      const json = await (await post(url, { prompt: ["a b", "c"] })).json();
      assert.equal(json.object, "text_completion");
      assert.equal(countTokens(json.choices[0].text), 4);
      assert.equal(json.choices[0].finish_reason, "stop");
      assert.equal(json.usage.prompt_tokens, countTokens("a b") + countTokens("c"));
      const ids = await (await post(url, { prompt: [1, 2, 3] })).json();
      assert.equal(ids.usage.prompt_tokens, 3);
    });
    await t.step("a missing prompt answers 400", async () => {
      const res = await post(url, { model: "m" });
      assert.equal(res.status, 400);
      assert.equal((await res.json()).error.param, "prompt");
    });
  } finally {
    await server.close();
  }
});
