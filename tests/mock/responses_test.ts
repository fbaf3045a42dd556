import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { startMockServer } from "../../src/mock/server.ts";
import { post, readSse, type TimedEvent } from "./helpers.ts";

type Ev = Record<string, unknown> & { type: string; sequence_number: number };

function parse(events: TimedEvent[]): Ev[] {
  return events.map((e) => {
    const json = JSON.parse(e.data) as Ev;
    assert.equal(e.event, json.type, "the SSE event name is the JSON type");
    return json;
  });
}

Deno.test("Responses API streaming without reasoning", async () => {
  const server = await startMockServer({ outputTokens: 3 });
  try {
    const res = await post(`${server.url}/v1/responses`, {
      model: "r-model",
      input: [{ role: "user", content: [{ type: "input_text", text: "Hello there" }] }],
      instructions: "Be nice.",
      stream: true,
    });
    const events = parse(await readSse(res));
    assert.deepEqual(events.map((e) => e.type), [
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
    const deltas = events.filter((e) => e.type === "response.output_text.delta");
    const text = deltas.map((e) => e.delta).join("");
    assert.equal(countTokens(text), 3);
    assert.equal(events[7].text, text);
    const response = events.at(-1)!.response as {
      status: string;
      model: string;
      usage: Record<string, unknown>;
      output: { type: string; content: { text: string }[] }[];
    };
    assert.equal(response.status, "completed");
    assert.equal(response.model, "r-model");
    assert.deepEqual(response.usage, {
      input_tokens: countTokens("Hello there") + countTokens("Be nice."),
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: countTokens("Hello there") + countTokens("Be nice.") + 3,
    });
    assert.equal(response.output[0].content[0].text, text);
    assert.equal((events[0].response as { status: string }).status, "in_progress");
  } finally {
    await server.close();
  }
});

Deno.test("Responses API reasoning item, max_output_tokens and truncation", async (t) => {
  const server = await startMockServer({ reasoningTokens: 2, outputTokens: 9 });
  try {
    await t.step("reasoning item first, then the message", async () => {
      const res = await post(`${server.url}/v1/responses`, {
        input: "Hi",
        stream: true,
        max_output_tokens: 4,
      });
      const events = parse(await readSse(res));
      assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
      const types = events.map((e) => e.type);
      const reasoning = events.filter((e) => e.type === "response.reasoning_text.delta");
      const text = events.filter((e) => e.type === "response.output_text.delta");
      assert.equal(countTokens(reasoning.map((e) => e.delta).join("")), 2);
      assert.equal(countTokens(text.map((e) => e.delta).join("")), 4);
      assert.ok(
        types.lastIndexOf("response.reasoning_text.delta") <
          types.indexOf("response.output_text.delta"),
      );
      assert.ok(reasoning.every((e) => e.output_index === 0));
      assert.ok(text.every((e) => e.output_index === 1));
      const added = events.filter((e) => e.type === "response.output_item.added")
        .map((e) => (e.item as { type: string }).type);
      assert.deepEqual(added, ["reasoning", "message"]);
      const usage = (events.at(-1)!.response as { usage: Record<string, unknown> }).usage;
      assert.equal(usage.output_tokens, 6);
      assert.deepEqual(usage.output_tokens_details, { reasoning_tokens: 2 });
    });
    await t.step("non-streaming", async () => {
      const json = await (await post(`${server.url}/v1/responses`, { input: "Hi" })).json();
      assert.equal(json.object, "response");
      assert.deepEqual(json.output.map((o: { type: string }) => o.type), ["reasoning", "message"]);
      assert.equal(countTokens(json.output[1].content[0].text), 9);
      assert.equal(json.usage.output_tokens, 11);
    });
    await t.step("a bad input answers 400", async () => {
      const res = await post(`${server.url}/v1/responses`, { input: 5 });
      assert.equal(res.status, 400);
      await res.body?.cancel();
    });
  } finally {
    await server.close();
  }
  const truncating = await startMockServer({ truncateRate: 1, outputTokens: 8 });
  try {
    await t.step("truncated: no response.completed", async () => {
      const res = await post(`${truncating.url}/v1/responses`, { input: "Hi", stream: true });
      const events = parse(await readSse(res));
      assert.ok(events.every((e) => e.type !== "response.completed"));
      assert.equal(events.filter((e) => e.type === "response.output_text.delta").length, 4);
    });
  } finally {
    await truncating.close();
  }
});
