import assert from "node:assert/strict";
import o200k, { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { countO200k, splitO200k } from "../../src/tokenizer/o200k_count.ts";
import { mulberry32 } from "../../src/util/rng.ts";
import { SONNETS } from "../../src/dataset/corpus_sonnets.ts";

// gpt-tokenizer's own split regex, the reference for the pieces.
const SPLIT = (o200k as unknown as { bytePairEncodingCoreProcessor: { tokenSplitRegex: RegExp } })
  .bytePairEncodingCoreProcessor.tokenSplitRegex;
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

function referencePieces(text: string): string[] {
  return [...text.matchAll(SPLIT)].map((m) => m[0]);
}

function referenceCount(text: string): number {
  return countTokens(text, NO_SPECIAL);
}

/** Asserts that `text` is split and counted exactly as gpt-tokenizer does. */
function assertSame(text: string): void {
  const label = JSON.stringify(text.length > 200 ? text.slice(0, 200) + "…" : text);
  assert.deepEqual(splitO200k(text), referencePieces(text), `pieces of ${label}`);
  assert.equal(countO200k(text), referenceCount(text), `count of ${label}`);
}

// Fragments that stress the split regex: letters of both cases, contractions, digits, every
// ASCII space, line breaks, slashes, punctuation, control characters, and non-ASCII letters,
// marks, digits and spaces.
const FRAGMENTS = [
  "a",
  "b",
  "e",
  "l",
  "s",
  "x",
  "z",
  "A",
  "E",
  "L",
  "S",
  "Q",
  "Z",
  "the",
  "The",
  "THE",
  "hello",
  "World",
  "iPhone",
  "McDonald",
  "'",
  "'s",
  "'S",
  "'t",
  "'T",
  "'re",
  "'RE",
  "'Re",
  "'ve",
  "'VE",
  "'m",
  "'M",
  "'ll",
  "'LL",
  "'lL",
  "'d",
  "'D",
  "'x",
  "'l",
  "'r",
  "'v",
  "''",
  " ",
  " ",
  " ",
  "  ",
  "   ",
  "\t",
  "\t\t",
  "\r",
  "\n",
  "\r\n",
  "\n\n",
  " \n",
  "\n ",
  "\v",
  "\f",
  "/",
  "//",
  "./",
  "/\n",
  ".",
  ",",
  "!",
  "?",
  "-",
  "--",
  "...",
  "(",
  ")",
  '"',
  "<",
  "|",
  ">",
  "_",
  "#",
  "$",
  "%",
  "&",
  "*",
  "+",
  "=",
  "@",
  "[",
  "\\",
  "]",
  "^",
  "`",
  "{",
  "}",
  "~",
  ";",
  ":",
  "0",
  "1",
  "7",
  "12",
  "123",
  "4567",
  "\x00",
  "\x1b",
  "\x1f",
  "\x7f",
  "é",
  "É",
  "ß",
  "ñ",
  "中文",
  "日本",
  "😀",
  "👍🏽",
  "\u0301",
  "e\u0301",
  "\u00a0",
  "\u2003",
  "\u3000",
  "\u2028",
  "٣",
  "²",
  "½",
  "’",
  "‘",
  "“",
  "”",
  "—",
  "…",
  "«",
  "»",
  "ǅ",
  "ʰ",
  "Ω",
  "ω",
  "Ж",
  "ж",
  "\ud83d",
  "\ude00",
  "<|endoftext|>",
  "<|im_start|>",
];

/** A random string of up to `maxParts` fragments. */
function randomText(rand: () => number, maxParts: number): string {
  const parts = Math.floor(rand() * (maxParts + 1));
  let s = "";
  for (let k = 0; k < parts; k++) s += FRAGMENTS[Math.floor(rand() * FRAGMENTS.length)];
  return s;
}

/** A random string of ASCII characters only, weighted toward letters and whitespace. */
function randomAscii(rand: () => number, maxLength: number): string {
  const pool = "aAbBsStTlLdDmMvVrReE''' \t\r\n\n\v\f//..,!-09";
  const length = Math.floor(rand() * (maxLength + 1));
  let s = "";
  for (let k = 0; k < length; k++) {
    s += rand() < 0.9
      ? pool[Math.floor(rand() * pool.length)]
      : String.fromCharCode(Math.floor(rand() * 128));
  }
  return s;
}

Deno.test("o200k count: edge cases match gpt-tokenizer", () => {
  const cases = [
    "",
    " ",
    "  ",
    "  a",
    "a  ",
    "a ",
    " a",
    "\n",
    "\n\n",
    " \n ",
    "\n \n  x",
    "  \n  ",
    "\t.",
    " .",
    "  .",
    "\t\tx",
    " 1",
    "  12",
    "I'm",
    "i'M",
    "DON'T",
    "don't",
    "don’t",
    "we'll",
    "THEY'RE",
    "you've",
    "she'd",
    "it's",
    "'s",
    "'sx",
    "x'",
    "x'l",
    "x'll",
    "x'LLx",
    "HELLOworld",
    "helloWorld",
    "HELLO'S",
    "123456",
    "1234567",
    "12a",
    "a12",
    "<|endoftext|>",
    "a <|endoftext|> b",
    "<|endoftext|><|im_start|>",
    "http://example.com/a/b//c",
    "x.\n/\r\n/y",
    "a\r\n\r\nb",
    "a \r\n b",
    "end.   ",
    "x\u00a0\u00a0y",
    " \u2003x",
    "é",
    " é",
    "café",
    "CAFÉ",
    "naïve",
    "中文 text",
    "emoji 😀!",
    "٣٣٣٣",
    "e\u0301e",
    "\ud83d",
    "x\ude00 ",
    "a".repeat(100),
    "A".repeat(100),
    " ".repeat(100) + "a",
    ".".repeat(100),
    "\n".repeat(40),
    "ab".repeat(50) + "'s",
    "9".repeat(100),
    "x" + " \t".repeat(50) + "y",
  ];
  for (const text of cases) assertSame(text);
});

Deno.test("o200k count: a run of lowercase letters, then any character, matches gpt-tokenizer", () => {
  // The scan that takes " abc" in one pass must stop where the regex does: before an uppercase
  // letter, and never before a contraction or a non-ASCII letter or mark that extends the run.
  const after: string[] = [];
  for (let c = 0; c < 128; c++) after.push(String.fromCharCode(c));
  after.push("é", "\u0301", "ß", "ʼ", "中", "١", "\u00a0", "😀", "'s", "'ll", "'x");
  for (const run of ["a", " a", "the", " the", " which", "abcdefghij", " " + "q".repeat(300)]) {
    for (const next of after) {
      assertSame(run + next + "z");
      assertSame("X" + run + next);
    }
  }
});

Deno.test("o200k count: seeded random strings match gpt-tokenizer", () => {
  const rand = mulberry32(20240601);
  for (let k = 0; k < 3000; k++) assertSame(randomText(rand, 24));
  for (let k = 0; k < 2000; k++) assertSame(randomAscii(rand, 40));
});

Deno.test("o200k count: prose matches gpt-tokenizer", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  for (const text of [SONNETS, SONNETS.toUpperCase(), SONNETS.replaceAll("\n", "\r\n"), readme]) {
    assertSame(text);
    // Every line alone, as streamed output arrives in pieces.
    for (const line of text.split("\n")) assert.equal(countO200k(line), referenceCount(line));
  }
});

Deno.test("o200k count: stays exact after its cache is emptied", () => {
  // More distinct pieces than the cache holds (100,000): " ba", " ca", …, each word different.
  const words: string[] = [];
  for (let k = 0; k < 100_500; k++) {
    let w = "";
    for (let v = k + 26; v > 0; v = Math.floor(v / 26)) w += String.fromCharCode(97 + (v % 26));
    words.push(" " + w);
  }
  const text = words.join("");
  assert.equal(countO200k(text), referenceCount(text));
  // The first words again, no longer cached.
  const start = words.slice(0, 2000).join("");
  assert.equal(countO200k(start), referenceCount(start));
  assert.equal(countO200k(start), referenceCount(start));
});

Deno.test("o200k count: stays exact after its table of short pieces is emptied", () => {
  // More distinct pieces of four characters than that table holds (32,768): " abc", ",abd", …
  const pieces: string[] = [];
  for (const prefix of [" ", ",", ".", ";"]) {
    for (let k = 0; k < 26 ** 3; k++) {
      pieces.push(
        prefix +
          String.fromCharCode(97 + k % 26, 97 + Math.floor(k / 26) % 26, 97 + Math.floor(k / 676)),
      );
    }
  }
  const text = pieces.join("");
  assert.equal(countO200k(text), referenceCount(text));
  // The first pieces again, no longer in the table, and then from it.
  const start = pieces.slice(0, 3000).join("");
  assert.equal(countO200k(start), referenceCount(start));
  assert.equal(countO200k(start), referenceCount(start));
});

Deno.test("o200k count: long pieces are cached and stay exact", () => {
  // Pieces of 33 to 256 characters are cached, longer ones are merged every time.
  const texts = [
    "x" + "-".repeat(40) + "y",
    " " + "=".repeat(255),
    " " + "=".repeat(300),
    "a" + " ".repeat(200) + "b",
    "中文没有空格所以很长的一段话会成为一个片段".repeat(5),
    "😀".repeat(100),
  ];
  for (let round = 0; round < 2; round++) {
    for (const text of texts) assertSame(text);
    assertSame(texts.join("\n"));
  }
});
