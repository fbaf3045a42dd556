import assert from "node:assert/strict";
import { completionsEndpoint } from "../../src/endpoints/completions.ts";

const ev = (data: unknown) => ({
  event: "",
  data: typeof data === "string" ? data : JSON.stringify(data),
});

Deno.test("completions: stream and whole answers", async (t) => {
  await t.step("chunk text", () => {
    const p = completionsEndpoint.parseEvent(ev({
      id: "cmpl-1",
      object: "text_completion",
      choices: [{ index: 0, text: " world", logprobs: null, finish_reason: null }],
    }));
    assert.deepEqual(p, { text: " world" });
  });
  await t.step("usage chunk and [DONE]", () => {
    assert.deepEqual(
      completionsEndpoint.parseEvent(
        ev({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 9 } }),
      ),
      { usage: { promptTokens: 4, completionTokens: 9 } },
    );
    assert.deepEqual(completionsEndpoint.parseEvent(ev("[DONE]")), { done: true });
  });
  await t.step("whole answer", () => {
    assert.deepEqual(
      completionsEndpoint.parseResponse({
        object: "text_completion",
        choices: [{ text: "Once upon", index: 0, finish_reason: "length" }],
        usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
      }),
      { text: "Once upon", usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } },
    );
  });
  await t.step("error", () => {
    assert.deepEqual(completionsEndpoint.parseResponse({ error: { message: "nope" } }), {
      error: { message: "nope" },
    });
  });
  assert.equal(completionsEndpoint.path, "/v1/completions");
  assert.equal(completionsEndpoint.expectsDoneMarker, true);
});
