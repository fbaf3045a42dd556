import assert from "node:assert/strict";
import { chatEndpoint } from "../../src/endpoints/chat.ts";
import type { SseEvent } from "../../src/endpoints/types.ts";

const ev = (data: unknown): SseEvent => ({
  event: "",
  data: typeof data === "string" ? data : JSON.stringify(data),
});

const chunk = (delta: unknown, extra: Record<string, unknown> = {}) =>
  ev({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
    ...extra,
  });

Deno.test("chat: stream events", async (t) => {
  await t.step("content", () => {
    assert.deepEqual(chatEndpoint.parseEvent(chunk({ content: "Hi" })), { text: "Hi" });
  });
  await t.step("role-only and empty deltas carry nothing", () => {
    assert.deepEqual(chatEndpoint.parseEvent(chunk({ role: "assistant", content: "" })), {});
    assert.deepEqual(chatEndpoint.parseEvent(chunk({})), {});
  });
  await t.step("reasoning_content and reasoning", () => {
    assert.deepEqual(chatEndpoint.parseEvent(chunk({ reasoning_content: "hm", content: null })), {
      reasoning: "hm",
    });
    assert.deepEqual(chatEndpoint.parseEvent(chunk({ reasoning: "so" })), { reasoning: "so" });
  });
  await t.step("tool calls count as text", () => {
    const p = chatEndpoint.parseEvent(chunk({
      tool_calls: [{
        index: 0,
        id: "call_1",
        type: "function",
        function: { name: "get_weather", arguments: "" },
      }],
    }));
    assert.deepEqual(p, { text: "get_weather" });
    assert.deepEqual(
      chatEndpoint.parseEvent(
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
      ),
      { text: '{"ci' },
    );
  });
  await t.step("usage in a final chunk with empty choices", () => {
    const p = chatEndpoint.parseEvent(ev({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      choices: [],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 20,
        total_tokens: 30,
        completion_tokens_details: { reasoning_tokens: 5 },
      },
    }));
    assert.deepEqual(p, {
      usage: { promptTokens: 10, completionTokens: 20, totalTokens: 30, reasoningTokens: 5 },
    });
  });
  await t.step("usage: null is no usage", () => {
    assert.deepEqual(chatEndpoint.parseEvent(chunk({ content: "x" }, { usage: null })), {
      text: "x",
    });
  });
  await t.step("[DONE] and keep-alives", () => {
    assert.deepEqual(chatEndpoint.parseEvent(ev("[DONE]")), { done: true });
    assert.equal(chatEndpoint.parseEvent(ev("")), null);
  });
  await t.step("an error object is an error", () => {
    assert.deepEqual(
      chatEndpoint.parseEvent(ev({ error: { message: "too long", code: 400 } })),
      { error: { message: "too long", code: 400 } },
    );
    assert.deepEqual(
      chatEndpoint.parseEvent(ev({ object: "error", message: "bad", type: "BadRequestError" })),
      { error: { message: "bad" } },
    );
  });
  await t.step("invalid JSON throws", () => {
    assert.throws(() => chatEndpoint.parseEvent(ev("{nope")));
  });
});

Deno.test("chat: whole answers", async (t) => {
  await t.step("message content, reasoning and usage", () => {
    const p = chatEndpoint.parseResponse({
      id: "chatcmpl-1",
      object: "chat.completion",
      choices: [{
        index: 0,
        message: { role: "assistant", content: "Hello", reasoning_content: "think" },
        finish_reason: "stop",
      }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
    assert.deepEqual(p, {
      text: "Hello",
      reasoning: "think",
      usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 },
    });
  });
  await t.step("tool calls and content parts", () => {
    const p = chatEndpoint.parseResponse({
      choices: [{
        message: {
          content: [{ type: "text", text: "a" }, { type: "text", text: "b" }],
          tool_calls: [{ type: "function", function: { name: "f", arguments: '{"x":1}' } }],
        },
      }],
    });
    assert.deepEqual(p, { text: 'abf{"x":1}' });
  });
  await t.step("a body that is not an object throws", () => {
    assert.throws(() => chatEndpoint.parseResponse([1, 2]), /JSON object/);
    assert.throws(() => chatEndpoint.parseResponse(null), /JSON object/);
  });
});

Deno.test("chat: endpoint facts", () => {
  assert.equal(chatEndpoint.path, "/v1/chat/completions");
  assert.equal(chatEndpoint.supportsStreaming, true);
  assert.equal(chatEndpoint.expectsDoneMarker, true);
  assert.notEqual(chatEndpoint.producesTokens, false);
});
