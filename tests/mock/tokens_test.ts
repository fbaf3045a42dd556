import assert from "node:assert/strict";
import { countTokens, decode, encode } from "gpt-tokenizer/encoding/o200k_base";
import {
  loadTokenizer,
  REASONING_OFFSET,
  TOKEN_TEXTS,
  tokensText,
  tokenText,
} from "../../src/mock/tokens.ts";

Deno.test("every mock token is exactly one o200k_base token", () => {
  for (const t of TOKEN_TEXTS) {
    const ids = encode(t);
    assert.equal(ids.length, 1, `${JSON.stringify(t)} is ${ids.length} tokens`);
    assert.equal(decode(ids), t);
  }
  assert.equal(new Set(TOKEN_TEXTS).size, TOKEN_TEXTS.length, "tokens are distinct");
});

Deno.test("N concatenated mock tokens count as exactly N", () => {
  for (const n of [1, 2, 7, 16, 100, TOKEN_TEXTS.length, TOKEN_TEXTS.length + 5, 1000]) {
    assert.equal(countTokens(tokensText(0, n)), n, `answer of ${n}`);
    assert.equal(countTokens(tokensText(REASONING_OFFSET, n)), n, `reasoning of ${n}`);
  }
  let s = "";
  for (let k = 0; k < 50; k++) s += tokenText(k);
  assert.equal(s, tokensText(0, 50));
});

Deno.test("loadTokenizer counts prompts and maps token ids", async () => {
  const tok = await loadTokenizer();
  assert.equal(tok.count(""), 0);
  assert.equal(tok.count("Hello world, how are you?"), countTokens("Hello world, how are you?"));
  assert.deepEqual([tok.id(0), tok.id(1)], [encode(" the")[0], encode(" of")[0]]);
  assert.equal(await loadTokenizer(), tok, "loaded once");
});
