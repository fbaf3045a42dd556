import assert from "node:assert/strict";
import { startMockServer } from "../../src/mock/server.ts";
import { mockServerOptions } from "../../src/config/options.ts";
import type { MockOptions } from "../../src/mock/options.ts";
import { resolveMockOptions } from "../../src/mock/options.ts";
import { post } from "./helpers.ts";

Deno.test("invalid JSON and non-object bodies answer 400 with an OpenAI error", async () => {
  const server = await startMockServer({ errorRate: 1 });
  try {
    for (const body of ["{not json", "[1,2]", "null", ""]) {
      const res = await post(`${server.url}/v1/chat/completions`, body);
      assert.equal(res.status, 400, `body ${JSON.stringify(body)}`);
      const json = await res.json();
      assert.equal(json.error.type, "invalid_request_error");
      assert.equal(typeof json.error.message, "string");
    }
    const res = await post(`${server.url}/v1/chat/completions`, "{}");
    assert.equal(res.status, 500, "a valid body meets the injected error");
    await res.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("a chat request without messages answers 400", async () => {
  const server = await startMockServer();
  try {
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m" });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error.param, "messages");
  } finally {
    await server.close();
  }
});

Deno.test("models, health, unknown routes and stats", async () => {
  const server = await startMockServer();
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(server.port > 0);
    const models = async () => (await fetch(`${server.url}/v1/models`)).json();
    let list = await models();
    assert.equal(list.object, "list");
    assert.deepEqual(Object.keys(list.data[0]).sort(), ["created", "id", "object", "owned_by"]);
    assert.equal(list.data[0].id, "mock-model");
    assert.equal(list.data[0].object, "model");
    const chat = await post(`${server.url}/v1/chat/completions`, {
      model: "my-llm",
      messages: [{ role: "user", content: "hi" }],
    });
    await chat.body?.cancel();
    list = await models();
    assert.equal(list.data[0].id, "my-llm");

    const health = await fetch(`${server.url}/health`);
    assert.equal(health.status, 200);
    await health.body?.cancel();

    const missing = await fetch(`${server.url}/nope?x=1`);
    assert.equal(missing.status, 404);
    assert.equal(typeof (await missing.json()).error.message, "string");

    assert.deepEqual(server.stats(), {
      requests: 5,
      byPath: { "/v1/models": 2, "/v1/chat/completions": 1, "/health": 1, "/nope": 1 },
      faults: {},
    });
    const served = await (await fetch(`${server.url}/mock/stats`)).json();
    assert.deepEqual(served, server.stats(), "GET /mock/stats answers the same, uncounted");
  } finally {
    await server.close();
  }
});

Deno.test("close ends answers still streaming and is idempotent", async () => {
  const server = await startMockServer({ ttftMs: 0, itlMs: 1000, outputTokens: 50 });
  const res = await post(`${server.url}/v1/chat/completions`, {
    messages: [{ role: "user", content: "hi" }],
    stream: true,
  });
  const reader = res.body!.getReader();
  await reader.read();
  const t0 = performance.now();
  await Promise.all([server.close(), server.close()]);
  // The rest of the body ends (closed or failed) instead of running for 50 s.
  try {
    while (!(await reader.read()).done) { /* drain */ }
  } catch { /* a cut connection is fine too */ }
  assert.ok(performance.now() - t0 < 5000);
});

Deno.test("resolveMockOptions: undefined fields take defaults, the port is any", () => {
  const o = resolveMockOptions({ port: undefined, ttftMs: undefined, seed: 5 });
  assert.equal(o.port, 0);
  assert.equal(o.ttftMs, 0);
  assert.equal(o.outputTokens, 16);
  assert.equal(o.seed, 5);
  assert.equal(typeof resolveMockOptions().seed, "number");
});

Deno.test("invalid options are rejected with the field named", async () => {
  await assert.rejects(() => startMockServer({ errorRate: 2 }), /errorRate/);
  await assert.rejects(() => startMockServer({ outputTokens: -1 }), /outputTokens/);
});

Deno.test("the mock's defaults and ranges are the mock-server flags' own", () => {
  assert.deepEqual({ ...resolveMockOptions({ seed: 1 }), port: undefined }, {
    host: "127.0.0.1",
    port: undefined,
    http: "deno",
    ttftMs: 0,
    itlMs: 0,
    outputTokens: 16,
    jitterMs: 0,
    errorRate: 0,
    dropRate: 0,
    truncateRate: 0,
    fault: [],
    faultStallMs: 30000,
    faultEventBytes: 10 * 1024 * 1024,
    faultHeadMs: 2000,
    faultIdleMs: 5000,
    reasoningTokens: 0,
    seed: 1,
    metricsFormat: "vllm",
    dcgm: false,
    prefillUsPerToken: 50,
    decodeMs: 10,
    decodeMsPerSeq: 1,
    kvCacheTokens: 65536,
  });
  for (const [key, spec] of Object.entries(mockServerOptions)) {
    assert.ok(spec.help.length > 10, key);
    if (spec.default !== undefined && key !== "port") {
      assert.equal(resolveMockOptions()[key as keyof MockOptions], spec.default, key);
    }
  }
  assert.throws(() => resolveMockOptions({ dropRate: 1.5 }), /dropRate.*fraction from 0 to 1/);
  assert.throws(
    () => resolveMockOptions({ http: "h2" as "deno" }),
    /"http": must be one of deno, direct/,
  );
});
