import assert from "node:assert/strict";
import { send } from "../../src/answer/client.ts";
import { endpointPath, getEndpoint } from "../../src/endpoints/mod.ts";

const enc = new TextEncoder();

/** Serves `routes[path]` on 127.0.0.1, a free port; each route is a body and a content type. */
async function withServer(
  routes: Record<string, [string, string]>,
  fn: (base: string) => Promise<void>,
): Promise<void> {
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} },
    async (req) => {
      await req.body?.cancel();
      const route = routes[new URL(req.url).pathname];
      if (!route) return new Response("no such path", { status: 404 });
      // Split the body into small chunks so events straddle network reads.
      const bytes = enc.encode(route[0]);
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < bytes.length; i += 7) c.enqueue(bytes.slice(i, i + 7));
          c.close();
        },
      });
      return new Response(body, { headers: { "content-type": route[1] } });
    },
  );
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    ac.abort();
    await server.finished;
  }
}

const sse = (events: [string, unknown][]) =>
  events.map(([type, data]) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data as object })}\n\n`
  )
    .join("");

function request(base: string, type: string, streaming: boolean) {
  const endpoint = getEndpoint(type);
  return send({
    url: base + endpointPath(endpoint, streaming),
    headers: { "content-type": "application/json" },
    body: "{}",
    streaming,
    endpoint,
    timeoutMs: 5000,
  });
}

Deno.test("send + responses: deltas, a done without deltas, usage, and the end marker", async () => {
  const part = { item_id: "m", output_index: 0, content_index: 0 };
  const stream = sse([
    ["response.created", { response: {} }],
    ["response.reasoning_summary_text.delta", { delta: "why" }],
    ["response.output_text.delta", { ...part, delta: "Hi" }],
    ["response.output_text.done", { ...part, text: "Hi" }],
    ["response.output_text.done", { item_id: "n", output_index: 1, content_index: 0, text: "!" }],
    ["response.completed", { response: { usage: { input_tokens: 3, output_tokens: 2 } } }],
  ]);
  await withServer({
    "/v1/responses": [stream, "text/event-stream"],
    "/cut/v1/responses": [
      stream.slice(0, stream.indexOf("event: response.completed")),
      "text/event-stream",
    ],
  }, async (base) => {
    const r = await request(base, "responses", true);
    assert.equal(r.error, null);
    assert.equal(r.outputText, "Hi!");
    assert.equal(r.reasoningText, "why");
    assert.deepEqual(r.responseReasoning, [true, false, false]);
    assert.deepEqual(r.usage, { promptTokens: 3, completionTokens: 2 });
    const cut = await request(base + "/cut", "responses", true);
    assert.equal(cut.error?.type, "StreamTruncated");
    assert.equal(cut.outputText, "Hi!");
  });
});

Deno.test("send + messages: usage from message_start merged with message_delta", async () => {
  const stream = sse([
    ["message_start", {
      message: { usage: { input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 1 } },
    }],
    ["ping", {}],
    ["content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hello" } }],
    ["message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 12 } }],
    ["message_stop", {}],
  ]);
  await withServer({ "/v1/messages": [stream, "text/event-stream"] }, async (base) => {
    const r = await request(base, "messages", true);
    assert.equal(r.error, null);
    assert.equal(r.outputText, "Hello");
    assert.deepEqual(r.usage, { promptTokens: 15, completionTokens: 12, promptCacheReadTokens: 5 });
  });
});

Deno.test("send + messages: an error event", async () => {
  const stream = sse([
    ["message_start", { message: { usage: { input_tokens: 1 } } }],
    ["error", { error: { type: "overloaded_error", message: "Overloaded" } }],
  ]);
  await withServer({ "/v1/messages": [stream, "text/event-stream"] }, async (base) => {
    const r = await request(base, "messages", true);
    assert.deepEqual(r.error, { code: 502, type: "SSEError", message: "Overloaded" });
  });
});

Deno.test("send + huggingface_generate: the streaming path, and no end marker needed", async () => {
  const tok = (text: string, special = false, extra = {}) =>
    `data:${
      JSON.stringify({
        token: { id: 1, text, logprob: 0, special },
        generated_text: null,
        ...extra,
      })
    }\n\n`;
  const stream = tok("a") + tok("b") +
    tok("</s>", true, { generated_text: "ab", details: { generated_tokens: 3 } });
  await withServer({
    "/generate_stream": [stream, "text/event-stream"],
    "/generate": [JSON.stringify({ generated_text: "whole" }), "application/json"],
  }, async (base) => {
    const r = await request(base, "huggingface_generate", true);
    assert.equal(r.error, null);
    assert.equal(r.outputText, "ab");
    assert.deepEqual(r.usage, { completionTokens: 3 });
    const w = await request(base, "huggingface_generate", false);
    assert.equal(w.outputText, "whole");
  });
});

Deno.test("send + raw: plain text bodies and rankings", async () => {
  await withServer({
    "/text": ["just words", "text/plain"],
    "/rank": [JSON.stringify([{ index: 0, score: 0.5 }]), "application/json"],
    "/empty": [JSON.stringify({ nothing: true }), "application/json"],
  }, async (base) => {
    const raw = getEndpoint("raw");
    const go = (path: string) =>
      send({
        url: base + path,
        headers: {},
        body: "{}",
        streaming: false,
        endpoint: raw,
        timeoutMs: 5000,
      });
    const text = await go("/text");
    assert.equal(text.error, null);
    assert.equal(text.outputText, "just words");
    const rank = await go("/rank");
    assert.equal(rank.error, null);
    assert.deepEqual([...rank.responsePerf], [rank.endPerf]);
    const empty = await go("/empty");
    assert.equal(empty.error?.type, "EmptyResponse");
  });
});

Deno.test("send + rankings: a readable answer is a success; a wrong shape is invalid", async () => {
  await withServer({
    "/v2/rerank": [
      JSON.stringify({ results: [{ index: 0, relevance_score: 0.1 }] }),
      "application/json",
    ],
    "/v1/ranking": [JSON.stringify({ results: [] }), "application/json"],
  }, async (base) => {
    const ok = await request(base, "cohere_rankings", false);
    assert.equal(ok.error, null);
    assert.equal(ok.responsePerf.length, 1);
    const bad = await request(base, "nim_rankings", false);
    assert.equal(bad.error?.type, "InvalidResponse");
    assert.match(bad.error!.message, /"rankings" array/);
  });
});
