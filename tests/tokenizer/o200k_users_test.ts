import assert from "node:assert/strict";
import { countTokens, decode, encode } from "gpt-tokenizer/encoding/o200k_base";
import { loadTokenizer, TOKEN_TEXTS } from "../../src/mock/tokens.ts";
import { PromptSource } from "../../src/dataset/prompts.ts";
import { hash32, mulberry32 } from "../../src/util/rng.ts";
import { SONNETS } from "../../src/dataset/corpus_sonnets.ts";
import { decodeO200k } from "../../src/tokenizer/o200k.ts";

// The runtime users of the built-in tokenizer behave as they did on gpt-tokenizer.

const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

/** PromptSource as written on gpt-tokenizer: the reference for the prompts of a seed. */
class ReferencePrompts {
  #tokens: number[];
  #rand: () => number;
  #seed: number;
  #blocks = new Map<string, string>();

  constructor(seed: number, corpus: string) {
    this.#seed = seed >>> 0;
    this.#rand = mulberry32(seed);
    this.#tokens = encode(corpus.replace(/\s+/g, " ").trim(), NO_SPECIAL);
  }

  prompt(tokens: number): string {
    return this.#slice(Math.floor(this.#rand() * this.#tokens.length), tokens);
  }

  block(id: number, tokens: number): string {
    const key = `${id}:${tokens}`;
    let text = this.#blocks.get(key);
    if (text === undefined) {
      text = this.#slice(hash32(this.#seed, id, 0x6b) % this.#tokens.length, tokens);
      this.#blocks.set(key, text);
    }
    return text;
  }

  #slice(start: number, want: number): string {
    if (want <= 0) return "";
    const n = this.#tokens.length;
    let take = want;
    let text = "";
    for (let i = 0; i < 16; i++) {
      const ids: number[] = new Array(take);
      for (let k = 0; k < take; k++) ids[k] = this.#tokens[(start + k) % n];
      text = decode(ids).trim();
      const got = countTokens(text, NO_SPECIAL);
      if (got === want) break;
      take = Math.max(1, take + (want - got));
    }
    return text;
  }
}

Deno.test("o200k users: prompts for a seed are the same as on gpt-tokenizer", () => {
  // Both decoders carry incomplete UTF-8 from one call to the next: start them alike.
  decode([61992]);
  decodeO200k([61992]);
  const mixed = "Le café coûte 3 €. 東京は大きな都市です。Москва — столица России. 😀👍🏽 emoji; " +
    "中文没有空格所以很长的一段话会成为一个片段。 \ufeffBOM text\n";
  for (const corpus of [SONNETS, mixed.repeat(30)]) {
    for (let seed = 0; seed < 12; seed++) {
      const got = new PromptSource(seed, corpus);
      const expected = new ReferencePrompts(seed, corpus);
      for (let k = 0; k < 30; k++) {
        const length = 1 + ((seed * 31 + k * 17) % 200);
        if (k % 4 === 0) {
          assert.equal(got.block(k % 7, length), expected.block(k % 7, length), `block ${k}`);
        } else assert.equal(got.prompt(length), expected.prompt(length), `prompt ${k}`);
      }
    }
  }
});

Deno.test("o200k users: the mock's counter is gpt-tokenizer's default countTokens", async () => {
  const tok = await loadTokenizer();
  const rand = mulberry32(11);
  const texts = ["", "hello", "a <|endoftext|> b", "<|im_start|>x<|endofprompt|>", "<|endoftext"];
  const words = ["hello", " world", "<|endoftext|>", "<|im_end|>", "中文", "😀", "\n", "'s", "<|"];
  for (let k = 0; k < 300; k++) {
    let text = "";
    for (let j = Math.floor(rand() * 8); j > 0; j--) {
      text += words[Math.floor(rand() * words.length)];
    }
    texts.push(text);
  }
  let rejected = 0;
  for (const text of texts) {
    let expected: number | string;
    try {
      expected = countTokens(text);
    } catch (e) {
      expected = (e as Error).message;
      rejected++;
    }
    let got: number | string;
    try {
      got = tok.count(text);
    } catch (e) {
      got = (e as Error).message;
    }
    assert.equal(got, expected, JSON.stringify(text));
  }
  assert.ok(rejected > 10, `${rejected} texts with special-token text`);
  TOKEN_TEXTS.forEach((t, k) => assert.deepEqual([tok.id(k)], encode(t)));
});
