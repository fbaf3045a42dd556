/**
 * The built-in `o200k_base` tokenizer against gpt-tokenizer, its reference: counting with the
 * scanner in src/tokenizer/o200k_count.ts on the mock server's output (256 words, each with a
 * leading space, as one text and as 256 one-word chunks) and on English prose, then encoding and
 * decoding prose with src/tokenizer/o200k.ts.
 *
 *   deno bench --allow-read bench/tokenizer_bench.ts
 */

import { countTokens, decode, encode } from "gpt-tokenizer/encoding/o200k_base";
import { decodeO200k, encodeO200k } from "../src/tokenizer/o200k.ts";
import { countO200k } from "../src/tokenizer/o200k_count.ts";
import { tokensText, tokenText } from "../src/mock/tokens.ts";
import { SONNETS } from "../src/dataset/corpus_sonnets.ts";

const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

const texts: [string, string][] = [
  ["mock output, 256 words", tokensText(0, 256)],
  ["prose, sonnets", SONNETS],
  ["prose, README.md", await Deno.readTextFile(new URL("../README.md", import.meta.url))],
];

for (const [name, text] of texts) {
  const expected = countTokens(text, NO_SPECIAL);
  const got = countO200k(text);
  if (got !== expected) throw new Error(`${name}: counted ${got} tokens, expected ${expected}`);

  Deno.bench({
    name: `gpt-tokenizer countTokens (${text.length} chars)`,
    group: name,
    baseline: true,
    fn: () => {
      countTokens(text, NO_SPECIAL);
    },
  });
  Deno.bench({
    name: `countO200k (${text.length} chars)`,
    group: name,
    fn: () => {
      countO200k(text);
    },
  });
}

const chunks = Array.from({ length: 256 }, (_, k) => tokenText(k));
Deno.bench({
  name: "gpt-tokenizer countTokens (256 calls)",
  group: "mock output, 256 one-word chunks",
  baseline: true,
  fn: () => {
    for (const chunk of chunks) countTokens(chunk, NO_SPECIAL);
  },
});
Deno.bench({
  name: "countO200k (256 calls)",
  group: "mock output, 256 one-word chunks",
  fn: () => {
    for (const chunk of chunks) countO200k(chunk);
  },
});

const readme = texts[2][1];
const readmeTokens = encode(readme, NO_SPECIAL);
if (JSON.stringify(encodeO200k(readme)) !== JSON.stringify(readmeTokens)) {
  throw new Error("README.md: encodeO200k differs from gpt-tokenizer");
}
Deno.bench({
  name: `gpt-tokenizer encode (${readme.length} chars)`,
  group: "encode README.md",
  baseline: true,
  fn: () => {
    encode(readme, NO_SPECIAL);
  },
});
Deno.bench({
  name: `encodeO200k (${readme.length} chars)`,
  group: "encode README.md",
  fn: () => {
    encodeO200k(readme);
  },
});
Deno.bench({
  name: `gpt-tokenizer decode (${readmeTokens.length} tokens)`,
  group: "decode README.md",
  baseline: true,
  fn: () => {
    decode(readmeTokens);
  },
});
Deno.bench({
  name: `decodeO200k (${readmeTokens.length} tokens)`,
  group: "decode README.md",
  fn: () => {
    decodeO200k(readmeTokens);
  },
});
