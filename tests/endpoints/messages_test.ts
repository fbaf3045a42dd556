import assert from "node:assert/strict";
import { messagesEndpoint } from "../../src/endpoints/messages.ts";

const ev = (type: string, rest: Record<string, unknown> = {}) => ({
  event: type,
  data: JSON.stringify({ type, ...rest }),
});

Deno.test("messages: stream events", () => {
  const p = (e: ReturnType<typeof ev>) => messagesEndpoint.parseEvent(e);
  assert.deepEqual(
    p(ev("message_start", {
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        content: [],
        usage: {
          input_tokens: 10,
          cache_creation_input_tokens: 2,
          cache_read_input_tokens: 30,
          output_tokens: 1,
        },
      },
    })),
    {
      usage: {
        promptTokens: 42,
        completionTokens: 1,
        promptCacheReadTokens: 30,
        promptCacheWriteTokens: 2,
      },
    },
  );
  assert.equal(p(ev("ping")), null);
  assert.equal(
    p(ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } })),
    null,
  );
  assert.deepEqual(
    p(ev("content_block_delta", {
      index: 0,
      delta: { type: "thinking_delta", thinking: "Let me" },
    })),
    { reasoning: "Let me" },
  );
  assert.equal(
    p(ev("content_block_delta", { index: 0, delta: { type: "signature_delta", signature: "x" } })),
    null,
  );
  assert.deepEqual(
    p(ev("content_block_delta", { index: 1, delta: { type: "text_delta", text: "Hello" } })),
    { text: "Hello" },
  );
  assert.deepEqual(
    p(ev("content_block_start", {
      index: 2,
      content_block: { type: "tool_use", id: "t", name: "get", input: {} },
    })),
    { text: "get" },
  );
  assert.deepEqual(
    p(ev("content_block_delta", {
      index: 2,
      delta: { type: "input_json_delta", partial_json: '{"a"' },
    })),
    { text: '{"a"' },
  );
  assert.equal(p(ev("content_block_stop", { index: 1 })), null);
  assert.deepEqual(
    p(ev("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 15 } })),
    { usage: { completionTokens: 15 } },
  );
  assert.deepEqual(p(ev("message_stop")), { done: true });
  assert.deepEqual(
    p(ev("error", { error: { type: "overloaded_error", message: "Overloaded" } })),
    { error: { message: "Overloaded" } },
  );
});

Deno.test("messages: whole answer", () => {
  assert.deepEqual(
    messagesEndpoint.parseResponse({
      id: "msg_1",
      type: "message",
      role: "assistant",
      content: [
        { type: "thinking", thinking: "hm", signature: "s" },
        { type: "text", text: "Hi" },
        { type: "tool_use", id: "t", name: "f", input: { x: 1 } },
      ],
      usage: { input_tokens: 3, output_tokens: 4 },
    }),
    { text: 'Hif{"x":1}', reasoning: "hm", usage: { promptTokens: 3, completionTokens: 4 } },
  );
  assert.deepEqual(
    messagesEndpoint.parseResponse({
      type: "error",
      error: { type: "invalid_request_error", message: "bad" },
    }),
    { error: { message: "bad" } },
  );
  assert.equal(messagesEndpoint.path, "/v1/messages");
  assert.equal(messagesEndpoint.expectsDoneMarker, true);
});
