import assert from "node:assert/strict";
import {
  cohereRankingsEndpoint,
  hfTeiRankingsEndpoint,
  nimRankingsEndpoint,
} from "../../src/endpoints/rankings.ts";

Deno.test("rankings: each API's answer shape", async (t) => {
  await t.step("nim", () => {
    assert.equal(nimRankingsEndpoint.path, "/v1/ranking");
    assert.deepEqual(
      nimRankingsEndpoint.parseResponse({
        rankings: [{ index: 1, logit: 0.5 }, { index: 0, logit: -2 }],
      }),
      { answered: true },
    );
    assert.throws(() => nimRankingsEndpoint.parseResponse({ results: [] }), /"rankings" array/);
  });
  await t.step("cohere", () => {
    assert.equal(cohereRankingsEndpoint.path, "/v2/rerank");
    assert.deepEqual(
      cohereRankingsEndpoint.parseResponse({
        id: "x",
        results: [{ index: 0, relevance_score: 0.9 }],
        meta: { billed_units: { search_units: 1 }, tokens: { input_tokens: 20 } },
      }),
      { answered: true, usage: { promptTokens: 20 } },
    );
  });
  await t.step("hf tei: a bare list or results", () => {
    assert.equal(hfTeiRankingsEndpoint.path, "/rerank");
    assert.deepEqual(hfTeiRankingsEndpoint.parseResponse([{ index: 0, score: 0.3 }]), {
      answered: true,
    });
    assert.deepEqual(hfTeiRankingsEndpoint.parseResponse({ results: [{ index: 0, score: 0.3 }] }), {
      answered: true,
    });
    assert.throws(() => hfTeiRankingsEndpoint.parseResponse({ scores: [] }), /JSON array/);
  });
  await t.step("errors and facts", () => {
    assert.deepEqual(cohereRankingsEndpoint.parseResponse({ message: "x", error: "bad query" }), {
      error: { message: "bad query" },
    });
    for (const e of [nimRankingsEndpoint, cohereRankingsEndpoint, hfTeiRankingsEndpoint]) {
      assert.equal(e.producesTokens, false);
    }
  });
});
