import assert from "node:assert/strict";
import { relevance } from "../../src/mock/rankings.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { post } from "./helpers.ts";

const QUERY = "how tall is the eiffel tower";
const DOCS = [
  "Bananas are yellow.",
  "The Eiffel Tower is 330 metres tall.",
  "Paris has a tower.",
];

Deno.test("relevance favours passages sharing the query's words", () => {
  assert.ok(relevance(QUERY, DOCS[1]) > relevance(QUERY, DOCS[2]));
  assert.ok(relevance(QUERY, DOCS[2]) > relevance(QUERY, DOCS[0]));
  assert.equal(relevance(QUERY, DOCS[1]), relevance(QUERY, DOCS[1]));
  for (const d of DOCS) {
    const r = relevance(QUERY, d);
    assert.ok(r >= 0 && r <= 1);
  }
});

Deno.test("rankings in NIM, Cohere and TEI shapes", async (t) => {
  const server = await startMockServer();
  try {
    await t.step("NIM /v1/ranking", async () => {
      const json = await (await post(`${server.url}/v1/ranking`, {
        model: "nv-rerank",
        query: { text: QUERY },
        passages: DOCS.map((text) => ({ text })),
      })).json();
      assert.deepEqual(json.rankings.map((r: { index: number }) => r.index), [1, 2, 0]);
      assert.ok(json.rankings.every((r: { logit: unknown }) => typeof r.logit === "number"));
    });
    await t.step("Cohere /v2/rerank with top_n", async () => {
      const json = await (await post(`${server.url}/v2/rerank`, {
        model: "rerank-v3.5",
        query: QUERY,
        documents: DOCS,
        top_n: 2,
      })).json();
      assert.deepEqual(json.results.map((r: { index: number }) => r.index), [1, 2]);
      assert.ok(json.results[0].relevance_score > json.results[1].relevance_score);
      assert.equal(typeof json.id, "string");
    });
    await t.step("TEI /rerank", async () => {
      const json = await (await post(`${server.url}/rerank`, {
        query: QUERY,
        texts: DOCS,
        return_text: true,
      })).json();
      assert.ok(Array.isArray(json));
      assert.deepEqual(json.map((r: { index: number }) => r.index), [1, 2, 0]);
      assert.equal(json[0].text, DOCS[1]);
      assert.ok(json[0].score <= 1 && json[2].score >= 0);
    });
    await t.step("bad requests answer in each vendor's error shape", async () => {
      const nim = await post(`${server.url}/v1/ranking`, { query: "x" });
      assert.equal(nim.status, 422);
      assert.equal(typeof (await nim.json()).error.message, "string");
      const cohere = await post(`${server.url}/v2/rerank`, { query: "x" });
      assert.equal(cohere.status, 400);
      assert.equal(typeof (await cohere.json()).message, "string");
      const tei = await post(`${server.url}/rerank`, { texts: [] });
      assert.equal(tei.status, 422);
      assert.equal(typeof (await tei.json()).error, "string");
    });
  } finally {
    await server.close();
  }
});
