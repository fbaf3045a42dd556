import assert from "node:assert/strict";
import { huggingfaceGenerateEndpoint as tgi } from "../../src/endpoints/huggingface_generate.ts";
import { endpointPath } from "../../src/endpoints/mod.ts";

const ev = (data: unknown) => ({ event: "", data: JSON.stringify(data) });
const token = (text: string, special = false) => ({ id: 1, text, logprob: -0.1, special });

Deno.test("huggingface_generate: stream tokens", () => {
  assert.deepEqual(
    tgi.parseEvent(ev({ index: 1, token: token("Hi"), generated_text: null, details: null })),
    {
      text: "Hi",
    },
  );
  // The final event repeats the whole text: only its token counts, and special tokens not at all.
  assert.deepEqual(
    tgi.parseEvent(ev({
      index: 3,
      token: token("</s>", true),
      generated_text: "Hi there",
      details: { finish_reason: "eos_token", generated_tokens: 3, seed: null },
    })),
    { usage: { completionTokens: 3 } },
  );
  assert.deepEqual(
    tgi.parseEvent(ev({ error: "Input validation error", error_type: "validation" })),
    {
      error: { message: "Input validation error" },
    },
  );
});

Deno.test("huggingface_generate: whole answers and paths", () => {
  assert.deepEqual(tgi.parseResponse({ generated_text: "abc" }), { text: "abc" });
  assert.deepEqual(
    tgi.parseResponse([{ generated_text: "abc", details: { generated_tokens: 2 } }]),
    { text: "abc", usage: { completionTokens: 2 } },
  );
  assert.throws(() => tgi.parseResponse({ text: "x" }), /generated_text/);
  assert.equal(endpointPath(tgi, false), "/generate");
  assert.equal(endpointPath(tgi, true), "/generate_stream");
});
