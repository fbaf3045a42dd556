import assert from "node:assert/strict";
import ranks from "gpt-tokenizer/bpeRanks/o200k_base";
import o200k, {
  countTokens,
  decode,
  encode,
  isWithinTokenLimit,
} from "gpt-tokenizer/encoding/o200k_base";
import {
  bytePairEncodeO200k,
  decodeO200k,
  encodeO200k,
  O200K_BUILD_MS,
  O200K_RANK_COUNT,
  O200K_SPECIAL_TOKENS,
  O200K_SPLIT_PATTERN,
  O200K_SPLIT_REGEX,
  o200kPieceTokenCount,
  o200kRank,
  o200kRankOfBytes,
  o200kTokenBytes,
} from "../../src/tokenizer/o200k.ts";
import { countO200k, isWithinO200kLimit } from "../../src/tokenizer/o200k_count.ts";
import { mulberry32 } from "../../src/util/rng.ts";
import { SONNETS } from "../../src/dataset/corpus_sonnets.ts";

/** The parts of gpt-tokenizer's encoder that the tests compare against. */
interface Core {
  tokenSplitRegex: RegExp;
  specialTokensEncoder: Map<string, number>;
  getBpeRankFromString(piece: string): number | undefined;
  bytePairMerge(bytes: Uint8Array): number[];
}
const core = (o200k as unknown as { bytePairEncodingCoreProcessor: Core })
  .bytePairEncodingCoreProcessor;
const RANKS = ranks as unknown as (string | number[])[];
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };
const utf8 = new TextEncoder();

/** A rank stored as bytes that ends in a line feed, so decoding it completes any pending text. */
const BOM_NEWLINE = 61992;

/**
 * Brings gpt-tokenizer's shared streaming decoder and ours to the same state: nothing pending and
 * past the start of the stream. Other test files may have decoded before.
 */
function resyncDecoders(): void {
  decode([BOM_NEWLINE]);
  decodeO200k([BOM_NEWLINE]);
}

function label(text: string): string {
  return JSON.stringify(text.length > 120 ? text.slice(0, 120) + "…" : text);
}

/** Asserts that `text` encodes, decodes back and counts exactly as with gpt-tokenizer. */
function assertSame(text: string): void {
  const expected = encode(text, NO_SPECIAL);
  const got = encodeO200k(text);
  assert.deepEqual(got, expected, `encode ${label(text)}`);
  assert.equal(decodeO200k(got), decode(expected), `decode ${label(text)}`);
  assert.equal(countO200k(text), expected.length, `count ${label(text)}`);
}

// Fragments across scripts and edge cases of the split regex and of byte-pair merging.
const FRAGMENTS = [
  ...["a", "the", " the", "The", "THE", "hello", " World", "iPhone", "McDonald", "x"],
  ...["'s", "'S", "'t", "'re", "'VE", "'m", "'ll", "'LL", "'d", "'x", "''", "don't", "I'M"],
  ...[" ", "  ", "   ", "\t", "\r", "\n", "\r\n", "\n\n", " \n", "\v", "\f", "\u0085"],
  ...["\u00a0", "\u2003", "\u3000", "\u2028", "\u200b", "\u200d"],
  ...["/", "//", ".", ",", "!", "?", "-", "---", "...", "(", ")", '"', "<", "|", ">", "_", "#"],
  ...["{", "}", "[", "]", ":", ";", "=", "=>", "&&", "\\", "`", "~", "@", "$", "%", "^", "*"],
  ...["0", "7", "12", "123", "4567", "3.14", "1,000", "٣", "²", "½", "Ⅻ", "۱۲۳", "१२"],
  ...["\x00", "\x1b", "\x7f", "\u0080", "\u00ff"],
  ...["é", "É", "ß", "ñ", "naïve", "CAFÉ", "Ærø", "ǅ", "ʰ", "Ω", "ω", "Ж", "жизнь", "Ελλάδα"],
  ...["中文", "日本語", "東京は大きな都市です", "한국어", "ภาษาไทย", "हिन्दी", "العربية", "עברית"],
  ...["中文没有空格所以很长的一段话会成为一个片段", "。", "，", "「", "」"],
  ...["😀", "👍🏽", "👨‍👩‍👧", "🇫🇷", "❤️", "🙂🙃", "𝔘𝔫𝔦", "𠀀"],
  ...["\u0301", "e\u0301", "a\u0308\u0301", "\ufe0f"],
  ...["\ud83d", "\ude00", "\udbff", "x\ud800y"],
  ...["\ufeff", "\ufeffusing", "\ufeff\n", "\ufeff\ufeff", "\ufeff//", "\ufeffnamespace", "\ufffd"],
  ...["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|fim_prefix|>", "<|endofprompt|>", "<|"],
];

/** A random string of up to `maxParts` fragments. */
function randomFragments(rand: () => number, maxParts: number): string {
  const parts = Math.floor(rand() * (maxParts + 1));
  let s = "";
  for (let k = 0; k < parts; k++) s += FRAGMENTS[Math.floor(rand() * FRAGMENTS.length)];
  return s;
}

// Code point ranges to draw from: ASCII, Latin, Cyrillic, Arabic, Devanagari, CJK, Hangul,
// symbols, private use, emoji, lone surrogates, and the supplementary planes.
const RANGES: [number, number][] = [
  [0x00, 0x7f],
  [0x20, 0x7e],
  [0xa0, 0x24f],
  [0x300, 0x36f],
  [0x400, 0x4ff],
  [0x600, 0x6ff],
  [0x900, 0x97f],
  [0x2000, 0x206f],
  [0x3000, 0x30ff],
  [0x4e00, 0x9fff],
  [0xac00, 0xd7a3],
  [0xd800, 0xdfff],
  [0xe000, 0xf8ff],
  [0xfe00, 0xffff],
  [0x1f300, 0x1faff],
  [0x10000, 0x10ffff],
];

/** A random string of up to `maxLength` code points from random ranges. */
function randomCodePoints(rand: () => number, maxLength: number): string {
  const length = Math.floor(rand() * (maxLength + 1));
  let s = "";
  for (let k = 0; k < length; k++) {
    const [lo, hi] = RANGES[Math.floor(rand() * RANGES.length)];
    const c = lo + Math.floor(rand() * (hi - lo + 1));
    s += c >= 0xd800 && c <= 0xdfff ? String.fromCharCode(c) : String.fromCodePoint(c);
  }
  return s;
}

/** A random run of one character class, long enough to need many merges. */
function randomRun(rand: () => number): string {
  const units = [" ", "-", "=", "\n", "x", "ab", "中", "😀", "\ufeff", "1", "é", "\t "];
  const unit = units[Math.floor(rand() * units.length)];
  return (rand() < 0.5 ? " " : "") + unit.repeat(1 + Math.floor(rand() * 200));
}

Deno.test("o200k: split regex, special tokens and vocabulary size match gpt-tokenizer", () => {
  assert.equal(O200K_SPLIT_PATTERN, core.tokenSplitRegex.source);
  assert.equal(O200K_SPLIT_REGEX.source, core.tokenSplitRegex.source);
  assert.equal(O200K_SPLIT_REGEX.flags, core.tokenSplitRegex.flags);
  assert.deepEqual([...O200K_SPECIAL_TOKENS], [...core.specialTokensEncoder]);
  assert.equal(O200K_RANK_COUNT, RANKS.length);
  // A measured duration, shown by bench/; how fast it is is measured there, not asserted here.
  assert.ok(Number.isFinite(O200K_BUILD_MS) && O200K_BUILD_MS >= 0, `${O200K_BUILD_MS}`);
});

Deno.test("o200k: every rank's bytes are gpt-tokenizer's and look up to that rank", () => {
  let storedAsBytes = 0;
  for (let rank = 0; rank < RANKS.length; rank++) {
    const entry = RANKS[rank];
    const bytes = o200kTokenBytes(rank);
    const expected = typeof entry === "string" ? utf8.encode(entry) : Uint8Array.from(entry);
    if (bytes.length !== expected.length || !bytes.every((b, i) => b === expected[i])) {
      assert.fail(`bytes of rank ${rank}: ${bytes} !== ${expected}`);
    }
    if (o200kRankOfBytes(bytes) !== rank) assert.fail(`lookup of rank ${rank}'s bytes`);
    if (typeof entry === "string") {
      if (o200kRank(entry) !== rank) assert.fail(`lookup of rank ${rank}'s text`);
    } else storedAsBytes++;
  }
  assert.ok(storedAsBytes > 1000, `${storedAsBytes} ranks stored as bytes`);
  assert.throws(() => o200kTokenBytes(RANKS.length), RangeError);
  assert.throws(() => o200kTokenBytes(-1), RangeError);
  assert.equal(o200kRankOfBytes(utf8.encode("x".repeat(129))), -1);
  assert.equal(o200kRankOfBytes(new Uint8Array(0)), -1);
});

Deno.test("o200k: ranks stored as bytes although valid UTF-8 are never whole pieces", () => {
  // gpt-tokenizer keeps a few tokens that start with a byte order mark as bytes, and looks whole
  // pieces up by text only: those pieces are merged from bytes instead.
  const bomRanks = RANKS.flatMap((e, r) =>
    typeof e !== "string" && e[0] === 0xef && e[1] === 0xbb && e[2] === 0xbf ? [r] : []
  );
  assert.ok(bomRanks.length > 0);
  for (const rank of bomRanks) {
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(o200kTokenBytes(rank));
    assert.equal(o200kRank(text), core.getBpeRankFromString(text) ?? -1, label(text));
    assert.equal(o200kRank(text), -1);
    assert.deepEqual(encodeO200k(text), encode(text, NO_SPECIAL), label(text));
  }
});

Deno.test("o200k: a whole piece is looked up before it is merged", () => {
  // " \ufeff" is a token that merging its bytes never reaches (its byte order mark is looked up
  // as text without it), so only the lookup of the whole piece finds it.
  const piece = " \ufeff";
  const rank = core.getBpeRankFromString(piece);
  assert.ok(rank !== undefined);
  assert.equal(o200kRank(piece), rank);
  assert.deepEqual(encodeO200k(piece), [rank]);
  assert.deepEqual(encode(piece, NO_SPECIAL), [rank]);
  assert.deepEqual(bytePairEncodeO200k(piece), core.bytePairMerge(utf8.encode(piece)));
  assert.notDeepEqual(bytePairEncodeO200k(piece), [rank]);
  assert.equal(countO200k(`x${piece}`), countTokens(`x${piece}`, NO_SPECIAL));
});

Deno.test("o200k: decoding every rank alone matches gpt-tokenizer", () => {
  resyncDecoders();
  for (let rank = 0; rank < RANKS.length; rank++) {
    const got = decodeO200k([rank]);
    const expected = decode([rank]);
    if (got !== expected) assert.fail(`decode([${rank}]): ${label(got)} !== ${label(expected)}`);
  }
  for (const [text, id] of O200K_SPECIAL_TOKENS) {
    assert.equal(decodeO200k([id]), text);
    assert.equal(decode([id]), text);
  }
});

Deno.test("o200k: decoding random token sequences matches gpt-tokenizer", () => {
  const rand = mulberry32(7);
  const asBytes = RANKS.flatMap((e, r) => (typeof e === "string" ? [] : [r]));
  const specials = [...O200K_SPECIAL_TOKENS.values()];
  resyncDecoders();
  for (let k = 0; k < 2000; k++) {
    const ids: number[] = [];
    const length = Math.floor(rand() * 12);
    for (let j = 0; j < length; j++) {
      const p = rand();
      if (p < 0.5) ids.push(asBytes[Math.floor(rand() * asBytes.length)]);
      else if (p < 0.9) ids.push(Math.floor(rand() * RANKS.length));
      else ids.push(specials[Math.floor(rand() * specials.length)]);
    }
    assert.equal(decodeO200k(ids), decode(ids), `decode ${JSON.stringify(ids)}`);
  }
});

Deno.test("o200k: decoding an unknown id throws as gpt-tokenizer does", () => {
  for (const id of [RANKS.length, 200_007, -1, 1.5, NaN, 1e12]) {
    resyncDecoders();
    let expected = "";
    try {
      decode([1, id]);
    } catch (e) {
      expected = (e as Error).message;
    }
    assert.match(expected, /is not in the byte pair encoder/);
    assert.throws(() => decodeO200k([1, id]), { message: expected });
  }
  assert.equal(decodeO200k([]), "");
});

Deno.test("o200k: byte-pair encoding matches gpt-tokenizer's merge", () => {
  const rand = mulberry32(99);
  const pieces = [
    "",
    "x",
    " ".repeat(300),
    "-".repeat(1000),
    " " + "=".repeat(257),
    "中文没有空格所以很长的一段话会成为一个片段".repeat(8),
    "\ufeff".repeat(90),
    "\ufeffusing\ufeffnamespace\ufeff//".repeat(12),
    "😀".repeat(70),
    "ab".repeat(200),
  ];
  for (let k = 0; k < 300; k++) pieces.push(randomRun(rand));
  for (let k = 0; k < 300; k++) pieces.push(randomCodePoints(rand, 120));
  for (const piece of pieces) {
    const expected = core.bytePairMerge(utf8.encode(piece));
    assert.deepEqual(bytePairEncodeO200k(piece), expected, `merge of ${label(piece)}`);
    const whole = core.getBpeRankFromString(piece);
    assert.equal(o200kRank(piece), whole ?? -1, `rank of ${label(piece)}`);
    assert.equal(
      o200kPieceTokenCount(` ${piece} `, 1, piece.length + 1),
      whole === undefined ? expected.length : 1,
      `count of ${label(piece)}`,
    );
  }
});

Deno.test("o200k: seeded random strings encode, decode and count as with gpt-tokenizer", () => {
  resyncDecoders();
  const rand = mulberry32(20240611);
  for (let k = 0; k < 2500; k++) assertSame(randomFragments(rand, 30));
  for (let k = 0; k < 1500; k++) assertSame(randomCodePoints(rand, 40));
  for (let k = 0; k < 200; k++) assertSame(randomRun(rand) + randomFragments(rand, 4));
});

Deno.test("o200k: edge cases encode, decode and count as with gpt-tokenizer", () => {
  resyncDecoders();
  for (const fragment of FRAGMENTS) assertSame(fragment);
  for (
    const text of [
      "",
      "<|endoftext|>",
      "a <|endoftext|> b<|im_start|>user<|im_sep|>",
      "\ufeffusing System;\n",
      "x\ufeff\ufeffy",
      "\ud800",
      "\ud83d\ude00\ud83d",
      " ".repeat(5000),
      "\n".repeat(300) + "x",
      "a".repeat(3000),
      "9".repeat(100),
      "x" + " \t".repeat(300) + "y",
    ]
  ) assertSame(text);
});

Deno.test("o200k: real text encodes, decodes and counts as with gpt-tokenizer", async () => {
  resyncDecoders();
  const root = new URL("../../", import.meta.url);
  const files = [
    "README.md",
    "bench/README.md",
    "examples/payloads.jsonl",
    "src/tokenizer/o200k.ts",
    "src/dataset/sharegpt.ts",
  ];
  const texts = [SONNETS, SONNETS.replaceAll("\n", "\r\n"), SONNETS.toUpperCase()];
  for (const file of files) texts.push(await Deno.readTextFile(new URL(file, root)));
  for (const text of texts) {
    assertSame(text);
    for (const line of text.split("\n")) assertSame(line);
  }
});

Deno.test("o200k: the limit check matches gpt-tokenizer's isWithinTokenLimit", () => {
  const rand = mulberry32(5);
  const texts = ["", "hello world", "a <|endoftext|> b", SONNETS.slice(0, 2000)];
  for (let k = 0; k < 300; k++) texts.push(randomFragments(rand, 20));
  for (const text of texts) {
    const total = countTokens(text, NO_SPECIAL);
    for (const limit of [-1, 0, 1, total - 1, total, total + 1, Math.floor(rand() * 40)]) {
      assert.equal(
        isWithinO200kLimit(text, limit),
        isWithinTokenLimit(text, limit, NO_SPECIAL),
        `${label(text)} within ${limit}`,
      );
    }
  }
});
