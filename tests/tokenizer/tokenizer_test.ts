import assert from "node:assert/strict";
import { builtinTokenizer } from "../../src/tokenizer/tokenizer.ts";

Deno.test("builtinTokenizer", async (t) => {
  const tok = builtinTokenizer();

  await t.step("is AIPerf's builtin and shared", () => {
    assert.equal(tok.name, "builtin");
    assert.equal(builtinTokenizer(), tok);
  });

  await t.step("counts o200k_base tokens", () => {
    assert.equal(tok.count(""), 0);
    assert.equal(tok.count("hello"), 1);
    assert.equal(tok.count("Hello world"), 2);
    // A longer text costs more tokens than a shorter prefix of it.
    assert.ok(tok.count("The quick brown fox jumps over the lazy dog") > tok.count("The quick"));
  });

  await t.step("counts special-token text as plain text, adding no special tokens", () => {
    const n = tok.count("a <|endoftext|> b");
    assert.ok(n > 3, `expected the marker split into ordinary tokens, got ${n}`);
  });
});
