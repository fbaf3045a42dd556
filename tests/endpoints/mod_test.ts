import assert from "node:assert/strict";
import { endpointPath, endpointTypes, getEndpoint, type Parsed } from "../../src/endpoints/mod.ts";

Deno.test("registry: every AIPerf endpoint type named in the brief is known", () => {
  for (
    const type of [
      "chat",
      "completions",
      "responses",
      "messages",
      "embeddings",
      "nim_rankings",
      "cohere_rankings",
      "hf_tei_rankings",
      "huggingface_generate",
      "raw",
    ]
  ) {
    assert.equal(getEndpoint(type).type, type);
  }
});

Deno.test("registry: an unknown type lists the known ones", () => {
  assert.throws(() => getEndpoint("chatt"), (e: Error) => {
    assert.match(e.message, /Unknown endpoint type "chatt"/);
    for (const t of endpointTypes) assert.ok(e.message.includes(t));
    return true;
  });
});

Deno.test("registry: raw takes a response_field", () => {
  const raw = getEndpoint("raw", { responseField: "a.b" });
  assert.deepEqual(raw.parseResponse({ a: { b: "x" } }), { text: "x" });
  assert.throws(() => getEndpoint("raw", { responseField: "a[" }), /response_field/);
});

Deno.test("registry: endpointPath", () => {
  assert.equal(endpointPath(getEndpoint("chat"), true), "/v1/chat/completions");
  assert.equal(endpointPath(getEndpoint("huggingface_generate"), true), "/generate_stream");
});

// One contract for every endpoint: facts are consistent and junk is handled, not crashed on.
Deno.test("contract: every endpoint", async (t) => {
  assert.equal(new Set(endpointTypes).size, endpointTypes.length);
  for (const type of endpointTypes) {
    await t.step(type, () => {
      const e = getEndpoint(type, type === "template" ? { payloadTemplate: "{}" } : {});
      assert.equal(typeof e.path, "string");
      assert.ok(e.path === "" || e.path.startsWith("/"));
      assert.ok(e.metricsTitle.length > 0);
      if (!e.supportsStreaming) assert.equal(e.streamingPath, undefined);
      // Keep-alive events carry nothing.
      assert.equal(e.parseEvent({ event: "", data: "" }, {}), null);
      // An error body is a Parsed.error.
      const p = e.parseResponse({ error: { message: "boom", code: 500 } });
      assert.deepEqual(p.error, { message: "boom", code: 500 });
      // Wrong shapes throw (→ InvalidResponse) or yield nothing, never text.
      for (const junk of [null, 42, true]) {
        let parsed: Parsed | undefined;
        try {
          parsed = e.parseResponse(junk);
        } catch (err) {
          assert.ok(err instanceof Error);
        }
        assert.equal(parsed?.text, undefined);
      }
    });
  }
});
