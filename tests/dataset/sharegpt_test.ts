import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { loadDataset } from "../../src/dataset/mod.ts";
import { getEndpoint } from "../../src/endpoints/mod.ts";
import type { BodyFormat } from "../../src/dataset/build.ts";
import { forEachArrayElement } from "../../src/dataset/json_array.ts";
import { SHAREGPT_LIMITS, sharegptKeeps, sharegptPair } from "../../src/dataset/sharegpt.ts";
import { rejectsWith, withTempDir, write } from "./helpers.ts";

const format: BodyFormat = {
  endpoint: getEndpoint("chat"),
  options: {
    model: "m",
    streaming: false,
    extraInputs: {},
    useLegacyMaxTokens: false,
    useServerTokenCount: false,
  },
};

const tokens = (s: string) => countTokens(s);
/** Text of exactly `n` tokens: " a" is one o200k token, and repeats of it stay one each. */
const ofTokens = (n: number) => "x" + " a".repeat(n - 1);

const human = (value: unknown) => ({ from: "human", value });
const gpt = (value: unknown) => ({ from: "gpt", value });

async function elements(text: string): Promise<unknown[]> {
  return await withFile(text, async (path) => {
    const out: unknown[] = [];
    await forEachArrayElement(path, (v, i) => {
      assert.equal(i, out.length);
      out.push(v);
    });
    return out;
  });
}

async function withFile<T>(text: string, fn: (path: string) => Promise<T>): Promise<T> {
  let result: T;
  await withTempDir(async (dir) => {
    result = await fn(await write(dir, "data.json", text));
  });
  return result!;
}

Deno.test("array elements stream out whole, whatever strings and nesting they hold", async () => {
  const values = [
    { id: "a", s: 'quote " comma , bracket ] brace } \\ backslash', n: [1, [2, { x: "]" }]] },
    "a string, with ] in it",
    42,
    null,
    [],
    { big: "y".repeat(3 << 20) }, // spans several reads
  ];
  assert.deepEqual(await elements(JSON.stringify(values, null, 2)), values);
  assert.deepEqual(await elements("\ufeff[ ]\n"), []);
});

Deno.test("array reader names the element and line of bad input", async () => {
  await withFile('[\n {"a": 1},\n {"a": tru}\n]', async (p) => {
    await rejectsWith(
      forEachArrayElement(p, () => {}),
      p,
      "element [1] (line 3)",
      "not valid JSON",
    );
  });
  await withFile('{"data": []}', async (p) => {
    await rejectsWith(forEachArrayElement(p, () => {}), "line 1", "expected a JSON array");
  });
  await withFile('[{"a": 1}', async (p) => {
    await rejectsWith(forEachArrayElement(p, () => {}), "before the array is closed");
  });
  await withFile('[{"a": 1},]', async (p) => {
    await rejectsWith(forEachArrayElement(p, () => {}), "expected an element");
  });
  await withFile("[1]\n[2]", async (p) => {
    await rejectsWith(forEachArrayElement(p, () => {}), "line 2", "after the end of the array");
  });
  await withFile("  \n", async (p) => {
    await rejectsWith(forEachArrayElement(p, () => {}), "the file is empty");
  });
  await withFile("[1, 2\u0000]", async (p) => {
    await rejectsWith(forEachArrayElement(p, () => {}), "NUL byte");
  });
});

Deno.test("sharegptPair takes the first human prompt and the gpt answer right after it", () => {
  assert.deepEqual(sharegptPair([human("q1"), gpt("a1"), human("q2"), gpt("a2")]), ["q1", "a1"]);
  // A leading gpt message, a system message and an unanswered human are passed over.
  assert.deepEqual(
    sharegptPair([gpt("hello"), { from: "system", value: "s" }, human("q"), human("q2"), gpt("a")]),
    ["q2", "a"],
  );
  // A pair with an empty side does not count.
  assert.deepEqual(sharegptPair([human(""), gpt("a"), human("q"), gpt("b")]), ["q", "b"]);
  // Without roles: the first two messages.
  assert.deepEqual(sharegptPair([{ value: "p" }, { value: "c" }, { value: "d" }]), ["p", "c"]);
  assert.equal(sharegptPair([human("only")]), null);
  assert.equal(sharegptPair([gpt("a"), human("q")]), null);
  assert.throws(() => sharegptPair([human(3), gpt("a")]), /conversations\[0\]\.value is a number/);
});

Deno.test("sharegptKeeps applies AIPerf's bounds, inclusive", () => {
  const { minTokens, maxPromptTokens, maxTotalTokens } = SHAREGPT_LIMITS;
  assert.equal(sharegptKeeps(minTokens, minTokens), true);
  assert.equal(sharegptKeeps(minTokens - 1, 100), false);
  assert.equal(sharegptKeeps(100, minTokens - 1), false);
  assert.equal(sharegptKeeps(100, minTokens - 1, false), true);
  assert.equal(sharegptKeeps(maxPromptTokens, maxTotalTokens - maxPromptTokens), true);
  assert.equal(sharegptKeeps(maxPromptTokens + 1, 10), false);
  assert.equal(sharegptKeeps(1000, maxTotalTokens - 999), false);
});

/** The sample: each entry is named for what the filter must do with it. */
function sample(): unknown[] {
  return [
    { id: "keep-short", conversations: [human(ofTokens(4)), gpt(ofTokens(4))] },
    {
      id: "keep-first-pair",
      conversations: [human("What is the capital of France, please?"), gpt(ofTokens(37)), {
        from: "human",
        value: ofTokens(2000),
      }, gpt("later")],
    },
    { id: "one-turn", conversations: [human("a question that is long enough")] },
    { id: "no-conversations" },
    { id: "prompt-too-short", conversations: [human("Hi"), gpt(ofTokens(50))] },
    { id: "answer-too-short", conversations: [human(ofTokens(20)), gpt("Ok.")] },
    { id: "prompt-too-long", conversations: [human(ofTokens(1025)), gpt(ofTokens(10))] },
    { id: "keep-prompt-at-limit", conversations: [human(ofTokens(1024)), gpt(ofTokens(1024))] },
    { id: "total-too-long", conversations: [human(ofTokens(1000)), gpt(ofTokens(1049))] },
    { id: "keep-first-pair", conversations: [human(ofTokens(8)), gpt(ofTokens(6))] },
  ];
}

Deno.test("sharegpt keeps the entries AIPerf keeps, max tokens = the answer's length", async () => {
  assert.equal(tokens(ofTokens(1025)), 1025);
  await withTempDir(async (dir) => {
    const path = await write(dir, "ShareGPT_V3.json", JSON.stringify(sample(), null, 2));
    const ds = await loadDataset(path, { type: "sharegpt", format, seed: 1 });
    assert.equal(ds.type, "sharegpt");
    const kept = ds.conversations.map((c) => {
      assert.equal(c.turns.length, 1);
      const body = JSON.parse(c.turns[0].body);
      return [c.sessionId, body.messages.at(-1).content, body.max_completion_tokens];
    });
    assert.deepEqual(kept, [
      ["keep-short", ofTokens(4), 4],
      ["keep-first-pair", "What is the capital of France, please?", 37],
      ["keep-prompt-at-limit", ofTokens(1024), 1024],
      // A repeated id gets the entry's index, so sessions stay distinct.
      ["keep-first-pair-9", ofTokens(8), 6],
    ]);

    // With --osl, short answers pass, as in AIPerf.
    const withOsl = await loadDataset(path, {
      type: "sharegpt",
      format,
      seed: 1,
      outputTokensMean: 64,
    });
    const ids = withOsl.conversations.map((c) => c.sessionId);
    assert.ok(ids.includes("answer-too-short"));
    assert.ok(!ids.includes("prompt-too-short"));
  });
});

Deno.test("sharegpt rejects bad entries and a file with nothing to send", async () => {
  await withTempDir(async (dir) => {
    const load = (path: string) => loadDataset(path, { type: "sharegpt", format, seed: 1 });
    const notObject = await write(dir, "a.json", '[{"conversations": []},\n "text"]');
    await rejectsWith(load(notObject), notObject, "element [1] (line 2) is a string");
    const badList = await write(dir, "b.json", '[{"conversations": {"from": "human"}}]');
    await rejectsWith(load(badList), "element [0]", '"conversations" is an object');
    const badValue = await write(
      dir,
      "c.json",
      JSON.stringify([{ conversations: [human(["x"]), gpt("y")] }]),
    );
    await rejectsWith(load(badValue), "element [0]", "conversations[0].value is an array");
    const empty = await write(dir, "d.json", "[]");
    await rejectsWith(load(empty), "the array is empty");
    const filtered = await write(
      dir,
      "e.json",
      JSON.stringify([{ conversations: [human("Hi"), gpt("Hello")] }]),
    );
    await rejectsWith(load(filtered), "none of its 1 entries", "length filter");
    const embeddings = await write(dir, "f.json", JSON.stringify(sample()));
    await rejectsWith(
      loadDataset(embeddings, {
        type: "sharegpt",
        format: { ...format, endpoint: getEndpoint("raw") },
        seed: 1,
      }),
      "sharegpt datasets hold prompts",
    );
  });
});

Deno.test("array reader reports a mismatched bracket inside an element", async () => {
  await withFile('[\n {"a": [1, 2}},\n {"b": 1}\n]', async (p) => {
    await rejectsWith(forEachArrayElement(p, () => {}), "element [0] (line 2)", "not valid JSON");
  });
});
