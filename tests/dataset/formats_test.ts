import assert from "node:assert/strict";
import { loadDataset } from "../../src/dataset/mod.ts";
import { getEndpoint } from "../../src/endpoints/mod.ts";
import type { BodyFormat } from "../../src/dataset/build.ts";
import { parseSeqDist } from "../../src/dataset/synthetic.ts";
import { rejectsWith, withTempDir, write } from "./helpers.ts";

const format = (type = "chat"): BodyFormat => ({
  endpoint: getEndpoint(type),
  options: {
    model: "m",
    streaming: false,
    extraInputs: {},
    useLegacyMaxTokens: false,
    useServerTokenCount: false,
  },
});

Deno.test("detection picks single_turn, multi_turn, mooncake_trace and random_pool", async () => {
  await withTempDir(async (dir) => {
    const st = await write(
      dir,
      "a.jsonl",
      `{"text":"hi","session_id":"s"}\n{"text":"next","session_id":"s","delay":5}\n`,
    );
    const d1 = await loadDataset(st, { format: format(), seed: 1 });
    assert.equal(d1.type, "single_turn");
    assert.equal(d1.conversations.length, 1);
    assert.equal(d1.conversations[0].turns[1].delayMs, 5);
    assert.ok(d1.conversations[0].live, "grouped turns get live history");
    const mt = await write(
      dir,
      "b.jsonl",
      `{"session_id":"x","turns":[{"role":"system","text":"be brief"},{"text":"q"}]}\n`,
    );
    const d2 = await loadDataset(mt, { format: format(), seed: 1 });
    assert.equal(d2.type, "multi_turn");
    assert.deepEqual(JSON.parse(d2.conversations[0].turns[0].body).messages, [
      { role: "system", content: "be brief" },
      { role: "user", content: "q" },
    ]);
    const mc = await write(dir, "c.jsonl", `{"timestamp":10,"text_input":"t","output_length":3}\n`);
    const d3 = await loadDataset(mc, { format: format(), seed: 1 });
    assert.equal(d3.type, "mooncake_trace");
    assert.equal(d3.conversations[0].turns[0].timestampMs, 10);
    const pool = await Deno.makeTempDir({ dir });
    await write(pool, "q.jsonl", `{"text":"query"}\n`);
    await write(pool, "p.jsonl", `{"texts":["p1","p2"]}\n`);
    const d4 = await loadDataset(pool, {
      format: format("completions"),
      seed: 1,
      numConversations: 2,
    });
    assert.equal(d4.type, "random_pool");
    assert.equal(d4.conversations.length, 2);
  });
});

Deno.test("prompt formats report bad records with file and line, and need a formatting endpoint", async () => {
  await withTempDir(async (dir) => {
    const bad = await write(dir, "bad.jsonl", `{"text":"ok"}\n{"text":5}\n`);
    await rejectsWith(
      loadDataset(bad, { type: "single_turn", format: format() }),
      bad,
      "line 2",
      `"text" must be a string`,
    );
    const none = await write(dir, "none.jsonl", `{"role":"user"}\n`);
    await rejectsWith(
      loadDataset(none, { type: "single_turn", format: format() }),
      "line 1",
      `expected "text"`,
    );
    const ok = await write(dir, "ok.jsonl", `{"text":"hi"}\n`);
    await rejectsWith(
      loadDataset(ok, { type: "single_turn", format: format("raw") }),
      "cannot build a request body from a prompt",
    );
    const trace = await write(dir, "t.jsonl", `{"hash_ids":[1]}\n`);
    await rejectsWith(
      loadDataset(trace, { type: "mooncake_trace", format: format() }),
      "line 1",
      `"input_length"`,
    );
  });
});

Deno.test("--seq-dist parses weights and stddevs", () => {
  const d = parseSeqDist("128,64:25;512|16,128:75");
  assert.deepEqual(d.map((e) => [e.isl, e.islStddev, e.osl, e.weight]), [[128, 0, 64, 0.25], [
    512,
    16,
    128,
    0.75,
  ]]);
  assert.throws(() => parseSeqDist("128:25"), /ISL/);
});

Deno.test("--osl and --osl-stddev reach a file dataset: turns without a length get draws", async () => {
  await withTempDir(async (dir) => {
    const lines = Array.from({ length: 40 }, (_, i) => `{"text":"q${i}"}`);
    lines.push('{"text":"fixed","output_length":7}');
    const path = await write(dir, "osl.jsonl", lines.join("\n") + "\n");
    const maxTokens = async (opts: { outputTokensMean?: number; outputTokensStddev?: number }) =>
      (await loadDataset(path, { type: "single_turn", format: format(), seed: 3, ...opts }))
        .conversations.map((c) => JSON.parse(c.turns[0].body).max_completion_tokens);
    const exact = await maxTokens({ outputTokensMean: 50 });
    assert.deepEqual(exact, [...Array(40).fill(50), 7]);
    const spread = await maxTokens({ outputTokensMean: 50, outputTokensStddev: 20 });
    // The turn that gives its length keeps it; the others are drawn around the mean.
    assert.equal(spread.at(-1), 7);
    const drawn = spread.slice(0, -1) as number[];
    assert.ok(new Set(drawn).size > 10, `draws: ${drawn}`);
    const mean = drawn.reduce((a, b) => a + b, 0) / drawn.length;
    assert.ok(Math.abs(mean - 50) < 15, `mean ${mean}`);
    // The same seed draws the same lengths.
    assert.deepEqual(await maxTokens({ outputTokensMean: 50, outputTokensStddev: 20 }), spread);
  });
});
