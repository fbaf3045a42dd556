// The official OpenAI SDK reads the mock's wire format: an independent check of the shapes.
import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import OpenAI from "openai";
import { startMockServer } from "../../src/mock/server.ts";

Deno.test("the openai SDK reads the mock", async (t) => {
  const server = await startMockServer({ outputTokens: 6, reasoningTokens: 2, seed: 3 });
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "test", maxRetries: 0 });
  try {
    await t.step("chat streaming with usage", async () => {
      const stream = await client.chat.completions.create({
        model: "sdk-model",
        messages: [{ role: "user", content: "Say something." }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      let reasoning = "";
      let finish: string | null = null;
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        const choice = chunk.choices[0];
        text += choice?.delta.content ?? "";
        reasoning += (choice?.delta as { reasoning_content?: string } | undefined)
          ?.reasoning_content ?? "";
        finish = choice?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      assert.equal(countTokens(text), 6);
      assert.equal(countTokens(reasoning), 2);
      assert.equal(finish, "stop");
      assert.equal(usage?.completion_tokens, 8);
      assert.equal(usage?.completion_tokens_details?.reasoning_tokens, 2);
      assert.equal(usage?.prompt_tokens, countTokens("Say something."));
    });

    await t.step("chat non-streaming", async () => {
      const res = await client.chat.completions.create({
        model: "sdk-model",
        messages: [{ role: "user", content: "Say something." }],
        max_completion_tokens: 3,
      });
      assert.equal(countTokens(res.choices[0].message.content!), 3);
      assert.equal(res.choices[0].finish_reason, "length");
    });

    await t.step("Responses streaming", async () => {
      const stream = await client.responses.create({
        model: "sdk-model",
        input: "Say something.",
        stream: true,
        max_output_tokens: 5,
      });
      let text = "";
      let reasoning = "";
      const types: string[] = [];
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === "response.output_text.delta") text += event.delta;
        if (event.type === "response.reasoning_text.delta") reasoning += event.delta;
        if (event.type === "response.completed") completed = event.response;
      }
      assert.equal(countTokens(text), 5);
      assert.equal(countTokens(reasoning), 2);
      assert.equal(types[0], "response.created");
      assert.equal(types.at(-1), "response.completed");
      assert.equal(completed?.usage?.output_tokens, 7);
      assert.equal(completed?.usage?.output_tokens_details.reasoning_tokens, 2);
      const message = completed?.output.find((o) => o.type === "message");
      assert.equal(message?.type === "message" && message.content[0].type, "output_text");
    });

    await t.step("Responses stream helper accumulates the same answer", async () => {
      // The helper rebuilds the response from the events and checks their order and indexes.
      const stream = client.responses.stream({
        model: "sdk-model",
        input: "Hi",
        max_output_tokens: 4,
      });
      let deltas = "";
      stream.on("response.output_text.delta", (e) => deltas += e.delta);
      const final = await stream.finalResponse();
      assert.equal(final.output_text, deltas);
      assert.equal(countTokens(final.output_text), 4);
      assert.deepEqual(final.output.map((o) => o.type), ["reasoning", "message"]);
      assert.equal(final.status, "completed");
    });

    await t.step("Responses non-streaming", async () => {
      const res = await client.responses.create({ model: "sdk-model", input: "Hi" });
      assert.equal(countTokens(res.output_text), 6);
      assert.equal(res.usage?.total_tokens, countTokens("Hi") + 8);
    });

    await t.step("embeddings (base64 by default, and floats)", async () => {
      const res = await client.embeddings.create({ model: "emb", input: ["one", "two"] });
      assert.equal(res.data.length, 2);
      assert.equal(res.data[0].embedding.length, 384);
      const norm = Math.hypot(...res.data[0].embedding);
      assert.ok(Math.abs(norm - 1) < 1e-3, `unit vector, norm ${norm}`);
      const floats = await client.embeddings.create({
        model: "emb",
        input: "one",
        encoding_format: "float",
        dimensions: 8,
      });
      assert.equal(floats.data[0].embedding.length, 8);
      assert.equal(res.usage.prompt_tokens, countTokens("one") + countTokens("two"));
      const again = await client.embeddings.create({ model: "emb", input: "one", dimensions: 384 });
      for (let i = 0; i < 384; i++) {
        assert.ok(Math.abs(again.data[0].embedding[i] - res.data[0].embedding[i]) < 1e-6);
      }
    });

    await t.step("an injected error is an APIError with status 500", async () => {
      const failing = await startMockServer({ errorRate: 1 });
      try {
        const c = new OpenAI({ baseURL: `${failing.url}/v1`, apiKey: "x", maxRetries: 0 });
        await assert.rejects(
          () => c.chat.completions.create({ model: "m", messages: [] }),
          (e: unknown) => e instanceof OpenAI.APIError && e.status === 500,
        );
      } finally {
        await failing.close();
      }
    });
  } finally {
    await server.close();
  }
});
