import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { startMockServer } from "../../src/mock/server.ts";
import { post, readSse } from "./helpers.ts";

type Ev = Record<string, unknown> & { type: string };

Deno.test("Anthropic messages", async (t) => {
  const server = await startMockServer({ reasoningTokens: 0 });
  const url = `${server.url}/v1/messages`;
  const body = {
    model: "claude-mock",
    system: "You are terse.",
    messages: [{ role: "user", content: "Write a haiku." }],
    max_tokens: 5,
  };
  const input = countTokens("You are terse.") + countTokens("Write a haiku.");
  try {
    await t.step("streaming event sequence and usage", async () => {
      const events = await readSse(await post(url, { ...body, stream: true }));
      const json = events.map((e) => {
        const j = JSON.parse(e.data) as Ev;
        assert.equal(e.event, j.type);
        return j;
      });
      assert.deepEqual(json.map((e) => e.type), [
        "message_start",
        "content_block_start",
        "ping",
        ...Array(5).fill("content_block_delta"),
        "content_block_stop",
        "message_delta",
        "message_stop",
      ]);
      const start = json[0].message as { usage: { input_tokens: number }; model: string };
      assert.equal(start.usage.input_tokens, input);
      assert.equal(start.model, "claude-mock");
      const text = json.filter((e) => e.type === "content_block_delta")
        .map((e) => (e.delta as { type: string; text: string }))
        .map((d) => (assert.equal(d.type, "text_delta"), d.text)).join("");
      assert.equal(countTokens(text), 5);
      const delta = json.at(-2)!;
      assert.deepEqual(delta.usage, { output_tokens: 5 });
      assert.equal((delta.delta as { stop_reason: string }).stop_reason, "max_tokens");
    });
    await t.step("non-streaming", async () => {
      const json = await (await post(url, body)).json();
      assert.equal(json.type, "message");
      assert.equal(json.role, "assistant");
      assert.equal(countTokens(json.content[0].text), 5);
      assert.equal(json.usage.input_tokens, input);
      assert.equal(json.usage.output_tokens, 5);
    });
    await t.step("max_tokens is required; errors have Anthropic's shape", async () => {
      const res = await post(url, { messages: [] });
      assert.equal(res.status, 400);
      const json = await res.json();
      assert.equal(json.type, "error");
      assert.equal(json.error.type, "invalid_request_error");
      const bad = await post(url, "{oops");
      assert.equal(bad.status, 400);
      assert.equal((await bad.json()).type, "error");
    });
  } finally {
    await server.close();
  }
});

Deno.test("Anthropic messages with thinking", async () => {
  const server = await startMockServer({ reasoningTokens: 3 });
  try {
    const events = await readSse(
      await post(`${server.url}/v1/messages`, {
        messages: [{ role: "user", content: "Hi" }],
        max_tokens: 2,
        stream: true,
      }),
    );
    const json = events.map((e) => JSON.parse(e.data) as Ev);
    const starts = json.filter((e) => e.type === "content_block_start")
      .map((e) => [e.index, (e.content_block as { type: string }).type]);
    assert.deepEqual(starts, [[0, "thinking"], [1, "text"]]);
    const deltas = json.filter((e) => e.type === "content_block_delta")
      .map((e) => e.delta as Record<string, string>);
    const thinking = deltas.filter((d) => d.type === "thinking_delta").map((d) => d.thinking);
    const text = deltas.filter((d) => d.type === "text_delta").map((d) => d.text);
    assert.equal(countTokens(thinking.join("")), 3);
    assert.equal(countTokens(text.join("")), 2);
    assert.ok(deltas.some((d) => d.type === "signature_delta"));
    assert.deepEqual(json.find((e) => e.type === "message_delta")!.usage, { output_tokens: 5 });
  } finally {
    await server.close();
  }
});
