import assert from "node:assert/strict";
import { createRawEndpoint, rawEndpoint } from "../../src/endpoints/raw.ts";
import type { Parsed, StreamState } from "../../src/endpoints/types.ts";

const body = (v: unknown) => rawEndpoint.parseBody!(typeof v === "string" ? v : JSON.stringify(v));
const ev = (v: unknown) => ({ event: "", data: typeof v === "string" ? v : JSON.stringify(v) });

Deno.test("raw: whole answers are auto-detected", async (t) => {
  await t.step("embeddings first", () => {
    assert.deepEqual(body({ data: [{ embedding: [1, 2] }], usage: { prompt_tokens: 2 } }), {
      answered: true,
      usage: { promptTokens: 2 },
    });
    assert.deepEqual(body([[0.1, 0.2], [0.3, 0.4]]), { answered: true });
  });
  await t.step("then rankings", () => {
    assert.deepEqual(body({ rankings: [{ index: 0, logit: 1 }] }), { answered: true });
    assert.deepEqual(body({ results: [{ index: 0, relevance_score: 0.2 }] }), { answered: true });
    assert.deepEqual(body([{ index: 0, score: 0.2 }, { index: 1, score: 0.1 }]), {
      answered: true,
    });
  });
  await t.step("then text, from the common answer shapes", () => {
    const cases: [unknown, Parsed][] = [
      [{ choices: [{ message: { content: "chat" } }], usage: { prompt_tokens: 1 } }, {
        text: "chat",
        usage: { promptTokens: 1 },
      }],
      [{ choices: [{ text: "cmpl" }] }, { text: "cmpl" }],
      [{
        object: "response",
        output: [{ type: "message", content: [{ type: "output_text", text: "resp" }] }],
      }, {
        text: "resp",
      }],
      [{ type: "message", content: [{ type: "text", text: "claude" }] }, { text: "claude" }],
      [[{ generated_text: "tgi" }], { text: "tgi" }],
      [{ response: "ollama", done: true }, { text: "ollama" }],
      [{ message: { role: "assistant", content: "ollama chat" } }, { text: "ollama chat" }],
      [{ text: "plain" }, { text: "plain" }],
      [
        {
          results: [{ generated_text: "watsonx", generated_token_count: 3, input_token_count: 2 }],
        },
        { text: "watsonx", usage: { promptTokens: 2, completionTokens: 3 } },
      ],
      ["just a string", { text: "just a string" }],
    ];
    for (const [json, expected] of cases) {
      assert.deepEqual(body(json), expected, JSON.stringify(json));
    }
  });
  await t.step("a body that is not JSON is text", () => {
    assert.deepEqual(body("Hello there"), { text: "Hello there" });
    assert.deepEqual(body("{broken"), { text: "{broken" });
    assert.deepEqual(body(""), {});
  });
  await t.step("errors", () => {
    assert.deepEqual(body({ error: { message: "nope", code: 503 } }), {
      error: { message: "nope", code: 503 },
    });
  });
});

Deno.test("raw: stream events are auto-detected", () => {
  const state: StreamState = {};
  const p = (v: unknown) => rawEndpoint.parseEvent(ev(v), state);
  assert.deepEqual(p({ choices: [{ delta: { content: "a" } }] }), { text: "a" });
  assert.deepEqual(p({ choices: [{ delta: { reasoning_content: "r" } }] }), { reasoning: "r" });
  assert.deepEqual(p({ choices: [{ text: "b" }] }), { text: "b" });
  assert.deepEqual(p({ token: { text: "c", special: false }, generated_text: null }), {
    text: "c",
  });
  assert.deepEqual(p({ token: { text: "</s>", special: true }, generated_text: "abc" }), {});
  assert.deepEqual(p({ type: "response.output_text.delta", item_id: "m", delta: "d" }), {
    text: "d",
  });
  assert.deepEqual(p({ type: "content_block_delta", delta: { type: "text_delta", text: "e" } }), {
    text: "e",
  });
  assert.deepEqual(p("plain text event"), { text: "plain text event" });
  assert.deepEqual(p("[DONE]"), { done: true });
  assert.equal(p(""), null);
  assert.equal(rawEndpoint.expectsDoneMarker, undefined);
  assert.equal(rawEndpoint.path, "");
});

Deno.test("raw: response_field selects the text with JMESPath", async (t) => {
  const raw = createRawEndpoint({ responseField: "results[0].generated_text" });
  await t.step("a string", () => {
    assert.deepEqual(
      raw.parseBody!(JSON.stringify({
        results: [{ generated_text: "watsonx", generated_token_count: 3, input_token_count: 2 }],
      })),
      { text: "watsonx" },
    );
  });
  await t.step("a list of strings is joined; nothing is nothing", () => {
    const joined = createRawEndpoint({ responseField: "outputs[*].text" });
    assert.deepEqual(joined.parseResponse({ outputs: [{ text: "a" }, { text: "b" }] }), {
      text: "ab",
    });
    assert.deepEqual(joined.parseResponse({ other: 1 }), {});
  });
  await t.step("a non-string value is a non-token answer", () => {
    const vec = createRawEndpoint({ responseField: "embedding" });
    assert.deepEqual(vec.parseResponse({ embedding: [1, 2, 3] }), { answered: true });
  });
  await t.step("stream events and usage", () => {
    const delta = createRawEndpoint({ responseField: "choices[0].delta.content" });
    assert.deepEqual(delta.parseEvent(ev({ choices: [{ delta: { content: "x" } }] })), {
      text: "x",
    });
    assert.deepEqual(delta.parseEvent(ev({ choices: [], usage: { completion_tokens: 9 } })), {
      usage: { completionTokens: 9 },
    });
  });
  await t.step("an invalid expression is a clear error", () => {
    assert.throws(
      () => createRawEndpoint({ responseField: "a[0" }),
      /Invalid response_field "a\[0"/,
    );
  });
});
