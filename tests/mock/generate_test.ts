import assert from "node:assert/strict";
import { countTokens, encode } from "gpt-tokenizer/encoding/o200k_base";
import { startMockServer } from "../../src/mock/server.ts";
import { post, readSse } from "./helpers.ts";

Deno.test("TGI generate and generate_stream", async (t) => {
  const server = await startMockServer({ outputTokens: 3 });
  try {
    await t.step("generate", async () => {
      const json = await (await post(`${server.url}/generate`, { inputs: "Hello" })).json();
      assert.deepEqual(Object.keys(json), ["generated_text"]);
      assert.equal(countTokens(json.generated_text), 3);
      const detailed = await (await post(`${server.url}/generate`, {
        inputs: "Hello",
        parameters: { max_new_tokens: 6, details: true },
      })).json();
      assert.equal(countTokens(detailed.generated_text), 6);
      assert.equal(detailed.details.finish_reason, "length");
      assert.equal(detailed.details.generated_tokens, 6);
    });
    await t.step("generate_stream", async () => {
      const res = await post(`${server.url}/generate_stream`, {
        inputs: "Hello",
        parameters: { max_new_tokens: 4 },
      });
      const events = (await readSse(res)).map((e) => JSON.parse(e.data));
      assert.equal(events.length, 4);
      for (const [i, e] of events.entries()) {
        assert.equal(e.index, i + 1);
        assert.deepEqual(encode(e.token.text), [e.token.id]);
        assert.equal(e.token.special, false);
      }
      assert.ok(events.slice(0, 3).every((e) => e.generated_text === null));
      const text = events.map((e) => e.token.text).join("");
      assert.equal(events[3].generated_text, text);
      assert.equal(events[3].details.generated_tokens, 4);
      assert.equal(events[3].details.input_length, countTokens("Hello"));
    });
    await t.step("validation errors have TGI's shape", async () => {
      const res = await post(`${server.url}/generate`, { inputs: 3 });
      assert.equal(res.status, 422);
      const json = await res.json();
      assert.equal(typeof json.error, "string");
      assert.equal(json.error_type, "validation");
    });
  } finally {
    await server.close();
  }
});
