import assert from "node:assert/strict";
import { responsesEndpoint } from "../../src/endpoints/responses.ts";
import type { Parsed, StreamState } from "../../src/endpoints/types.ts";

/** An event as OpenAI sends it: the type both in `event:` and in the data. */
const ev = (type: string, rest: Record<string, unknown> = {}) => ({
  event: type,
  data: JSON.stringify({ type, sequence_number: 1, ...rest }),
});

function run(events: ReturnType<typeof ev>[]): Parsed[] {
  const state: StreamState = {};
  return events.map((e) => responsesEndpoint.parseEvent(e, state)).filter((p) => p !== null);
}

const part = { item_id: "msg_1", output_index: 0, content_index: 0 };

Deno.test("responses: a streamed answer", () => {
  const got = run([
    ev("response.created", { response: { id: "resp_1", status: "in_progress" } }),
    ev("response.in_progress", { response: { id: "resp_1" } }),
    ev("response.output_item.added", { output_index: 0, item: { type: "reasoning" } }),
    ev("response.reasoning_summary_text.delta", { item_id: "rs_1", delta: "Plan" }),
    ev("response.reasoning_text.delta", { item_id: "rs_1", delta: "step" }),
    ev("response.output_item.added", { output_index: 1, item: { type: "message" } }),
    ev("response.content_part.added", { ...part, part: { type: "output_text", text: "" } }),
    ev("response.output_text.delta", { ...part, delta: "Hel" }),
    ev("response.output_text.delta", { ...part, delta: "lo" }),
    ev("response.output_text.done", { ...part, text: "Hello" }),
    ev("response.content_part.done", part),
    ev("response.function_call_arguments.delta", { item_id: "fc_1", delta: '{"a":' }),
    ev("response.function_call_arguments.done", { item_id: "fc_1", arguments: '{"a":1}' }),
    ev("response.completed", {
      response: {
        id: "resp_1",
        status: "completed",
        usage: {
          input_tokens: 12,
          input_tokens_details: { cached_tokens: 4 },
          output_tokens: 30,
          output_tokens_details: { reasoning_tokens: 10 },
          total_tokens: 42,
        },
      },
    }),
  ]);
  assert.deepEqual(got, [
    { reasoning: "Plan" },
    { reasoning: "step" },
    { text: "Hel" },
    { text: "lo" },
    { text: '{"a":' },
    {
      done: true,
      usage: {
        promptTokens: 12,
        completionTokens: 30,
        totalTokens: 42,
        reasoningTokens: 10,
        promptCacheReadTokens: 4,
      },
    },
  ]);
});

Deno.test("responses: output_text.done counts only when its part had no deltas", () => {
  const other = { item_id: "msg_2", output_index: 1, content_index: 0 };
  const got = run([
    ev("response.output_text.delta", { ...part, delta: "A" }),
    ev("response.output_text.done", { ...part, text: "A" }),
    ev("response.output_text.done", { ...other, text: "whole" }),
  ]);
  assert.deepEqual(got, [{ text: "A" }, { text: "whole" }]);
  // A fresh state per request: the same part in another request counts again.
  assert.deepEqual(run([ev("response.output_text.done", { ...part, text: "A" })]), [{ text: "A" }]);
});

Deno.test("responses: failures", () => {
  assert.deepEqual(
    run([
      ev("response.failed", {
        response: { status: "failed", error: { code: "server_error", message: "died" } },
      }),
    ]),
    [{ error: { message: "died" } }],
  );
  assert.deepEqual(run([ev("error", { code: "rate_limit", message: "slow", param: null })]), [
    { error: { message: "slow" } },
  ]);
});

Deno.test("responses: whole answer", () => {
  const p = responsesEndpoint.parseResponse({
    id: "resp_1",
    object: "response",
    status: "completed",
    output: [
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "S" }] },
      {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: "Hi ", annotations: [] }, {
          type: "output_text",
          text: "there",
        }],
      },
      { type: "function_call", name: "f", arguments: "{}" },
    ],
    usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12 },
  });
  assert.deepEqual(p, {
    text: "Hi theref{}",
    reasoning: "S",
    usage: { promptTokens: 5, completionTokens: 7, totalTokens: 12 },
  });
  assert.deepEqual(
    responsesEndpoint.parseResponse({ status: "failed", error: { message: "bad" }, output: [] }),
    { error: { message: "bad" } },
  );
});

Deno.test("responses: endpoint facts", () => {
  assert.equal(responsesEndpoint.path, "/v1/responses");
  assert.equal(responsesEndpoint.expectsDoneMarker, true);
});
