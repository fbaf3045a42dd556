import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { startMockServer } from "../../src/mock/server.ts";
import { payloads, post, readSse } from "./helpers.ts";

type Chunk = {
  object: string;
  model: string;
  choices: {
    delta: { role?: string; content?: string; reasoning_content?: string };
    finish_reason: string | null;
  }[];
  usage?: Record<string, unknown> | null;
};

const PROMPT = "Tell me a story about a lighthouse keeper and the sea.";

Deno.test("chat completions streaming", async (t) => {
  const server = await startMockServer({ outputTokens: 5, seed: 1 });
  const url = `${server.url}/v1/chat/completions`;
  try {
    await t.step("role chunk, one chunk per token, finish chunk, usage chunk, [DONE]", async () => {
      const res = await post(url, {
        model: "m-stream",
        messages: [{ role: "user", content: PROMPT }],
        stream: true,
        stream_options: { include_usage: true },
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type")!, /^text\/event-stream/);
      const events = await readSse(res);
      assert.equal(events.at(-1)!.data, "[DONE]");
      const chunks = payloads(events) as Chunk[];
      assert.equal(chunks.length, 1 + 5 + 1 + 1);
      for (const c of chunks) {
        assert.equal(c.object, "chat.completion.chunk");
        assert.equal(c.model, "m-stream");
      }
      assert.deepEqual(chunks[0].choices[0].delta, {
        role: "assistant",
        content: "",
        refusal: null,
      });
      const text = chunks.slice(1, 6).map((c) => c.choices[0].delta.content).join("");
      assert.equal(text, " the of and to in");
      assert.equal(countTokens(text), 5);
      assert.equal(chunks[6].choices[0].finish_reason, "stop");
      assert.deepEqual(chunks[6].choices[0].delta, {});
      const last = chunks[7];
      assert.deepEqual(last.choices, []);
      const usage = last.usage as Record<string, number>;
      assert.equal(usage.prompt_tokens, countTokens(PROMPT));
      assert.equal(usage.completion_tokens, 5);
      assert.equal(usage.total_tokens, usage.prompt_tokens + 5);
      for (const c of chunks.slice(0, 7)) assert.equal(c.usage, null);
    });

    await t.step("no usage chunk without include_usage", async () => {
      const res = await post(url, { messages: [{ role: "user", content: "hi" }], stream: true });
      const chunks = payloads(await readSse(res)) as Chunk[];
      assert.equal(chunks.length, 7);
      assert.ok(chunks.every((c) => !("usage" in c)));
    });

    await t.step("max_completion_tokens, then max_tokens, set the length", async () => {
      for (
        const [body, n] of [
          [{ max_completion_tokens: 3, max_tokens: 9 }, 3],
          [{ max_tokens: 9 }, 9],
          [{ max_tokens: 0 }, 0],
        ] as const
      ) {
        const res = await post(url, {
          messages: [{ role: "user", content: "hi" }],
          stream: true,
          stream_options: { include_usage: true },
          ...body,
        });
        const chunks = payloads(await readSse(res)) as Chunk[];
        const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
        assert.equal(countTokens(text), n);
        assert.equal(chunks.at(-2)!.choices[0].finish_reason, "length");
        assert.equal((chunks.at(-1)!.usage as Record<string, number>).completion_tokens, n);
      }
    });

    await t.step("multi-part message content counts as prompt text", async () => {
      const res = await post(url, {
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: [{ type: "text", text: PROMPT }, { type: "image_url" }] },
        ],
      });
      const json = await res.json();
      assert.equal(json.usage.prompt_tokens, countTokens("Be brief.") + countTokens(PROMPT));
    });
  } finally {
    await server.close();
  }
});

Deno.test("chat completions non-streaming", async () => {
  const server = await startMockServer({ outputTokens: 4 });
  try {
    const res = await post(`${server.url}/v1/chat/completions`, {
      model: "m-plain",
      messages: [{ role: "user", content: PROMPT }],
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^application\/json/);
    const json = await res.json();
    assert.equal(json.object, "chat.completion");
    assert.equal(json.model, "m-plain");
    assert.equal(json.choices[0].message.role, "assistant");
    assert.equal(json.choices[0].message.content, " the of and to");
    assert.equal(json.choices[0].finish_reason, "stop");
    assert.deepEqual(
      [json.usage.prompt_tokens, json.usage.completion_tokens, json.usage.total_tokens],
      [countTokens(PROMPT), 4, countTokens(PROMPT) + 4],
    );
  } finally {
    await server.close();
  }
});

Deno.test("chat reasoning comes before the answer and is counted in usage", async (t) => {
  const server = await startMockServer({ outputTokens: 3, reasoningTokens: 4 });
  const url = `${server.url}/v1/chat/completions`;
  try {
    await t.step("streaming", async () => {
      const res = await post(url, {
        messages: [{ role: "user", content: "hi" }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks = payloads(await readSse(res)) as Chunk[];
      const deltas = chunks.slice(1, 8).map((c) => c.choices[0].delta);
      assert.ok(deltas.slice(0, 4).every((d) => d.reasoning_content && !d.content));
      assert.ok(deltas.slice(4).every((d) => d.content && !d.reasoning_content));
      const reasoning = deltas.map((d) => d.reasoning_content ?? "").join("");
      assert.equal(countTokens(reasoning), 4);
      const usage = chunks.at(-1)!.usage as {
        completion_tokens: number;
        completion_tokens_details: { reasoning_tokens: number };
      };
      assert.equal(usage.completion_tokens, 7);
      assert.equal(usage.completion_tokens_details.reasoning_tokens, 4);
    });
    await t.step("non-streaming", async () => {
      const json = await (await post(url, { messages: [{ role: "user", content: "hi" }] })).json();
      assert.equal(countTokens(json.choices[0].message.reasoning_content), 4);
      assert.equal(countTokens(json.choices[0].message.content), 3);
      assert.equal(json.usage.completion_tokens, 7);
      assert.equal(json.usage.completion_tokens_details.reasoning_tokens, 4);
    });
  } finally {
    await server.close();
  }
});

Deno.test("chat streaming timing follows ttft and itl", async () => {
  const ttftMs = 60;
  const itlMs = 25;
  const n = 6;
  const server = await startMockServer({ ttftMs, itlMs, outputTokens: n });
  try {
    const sent = performance.now();
    const res = await post(`${server.url}/v1/chat/completions`, {
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    const events = await readSse(res);
    const content = events.filter((e) => e.data.includes('"content":" '));
    assert.equal(content.length, n);
    const tol = 2; // timer and clock rounding
    assert.ok(content[0].at - sent >= ttftMs - tol, `first token after ${content[0].at - sent} ms`);
    for (let i = 0; i < n; i++) {
      // The server schedules on absolute time: token i is never out before ttft + i * itl.
      const offset = content[i].at - sent;
      assert.ok(offset >= ttftMs + i * itlMs - tol, `token ${i} after ${offset} ms`);
    }
    const words = content.map((e) => JSON.parse(e.data).choices[0].delta.content);
    assert.deepEqual(words, [" the", " of", " and", " to", " in", " is"]);
    // Tokens come apart, not all at once: a late read on a busy machine shortens one gap and
    // lengthens the next, so the median gap is checked against half the interval.
    const gaps = content.slice(1).map((e, i) => e.at - content[i].at).sort((a, b) => a - b);
    const median = gaps[gaps.length >> 1];
    assert.ok(median >= itlMs / 2, `median gap ${median} ms (${gaps})`);
  } finally {
    await server.close();
  }
});

Deno.test("non-streaming answers wait for the whole generation", async () => {
  const server = await startMockServer({ ttftMs: 30, itlMs: 10, outputTokens: 4 });
  try {
    const sent = performance.now();
    const res = await post(`${server.url}/v1/chat/completions`, {
      messages: [{ role: "user", content: "hi" }],
    });
    await res.json();
    assert.ok(performance.now() - sent >= 30 + 3 * 10 - 2);
  } finally {
    await server.close();
  }
});
