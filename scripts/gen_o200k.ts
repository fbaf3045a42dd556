/**
 * Writes src/tokenizer/o200k_data.ts, the compact `o200k_base` vocabulary that
 * src/tokenizer/o200k.ts loads, from gpt-tokenizer's rank table:
 *
 *   deno run --allow-read --allow-write=src/tokenizer scripts/gen_o200k.ts
 *
 * gpt-tokenizer's table is an array whose index is the rank and whose entry is the token's text,
 * or its bytes (a number[]) when they do not survive decoding as text: invalid UTF-8, and a few
 * tokens that start with a byte order mark. The generated module keeps, per rank, its bytes (as
 * the two lower ranks they join) and whether it was stored as bytes, which is all that o200k.ts
 * needs to look ranks up exactly as gpt-tokenizer does, given what the generator checks (and
 * refuses to write otherwise): every text entry is well-formed and does not start with a byte
 * order mark, no two ranks share bytes, an entry stored as bytes is valid UTF-8 if and only if
 * it starts with a byte order mark, and every single byte is a token.
 */

import o200k from "gpt-tokenizer/encoding/o200k_base";
import ranks from "gpt-tokenizer/bpeRanks/o200k_base";

/** One entry of gpt-tokenizer's rank table: the token's text, or its bytes. */
export type RankEntry = string | readonly number[];

/** Where the generated module goes, relative to the repository root. */
export const DATA_PATH = "src/tokenizer/o200k_data.ts";

/** The longest token o200k.ts looks up, in bytes. */
const MAX_TOKEN_BYTES = 128;
/** Base64 characters per line of the generated module. */
const LINE_CHARS = 96;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** `bytes` in base64, as a template literal's lines (base64 decoders skip the line breaks). */
function base64Lines(bytes: Uint8Array): string {
  const text = bytes.toBase64();
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += LINE_CHARS) lines.push(text.slice(i, i + LINE_CHARS));
  return lines.join("\n");
}

/** Appends `value` (a non-negative integer) as an unsigned LEB128 varint. */
function pushVarint(out: number[], value: number): void {
  while (value >= 0x80) {
    out.push((value & 0x7f) | 0x80);
    value = Math.floor(value / 0x80);
  }
  out.push(value);
}

/** A prime below 2^26: a hash times a power of HASH_BASE stays exact in a double. */
const HASH_MOD = 67_108_859;
const HASH_BASE = 257;

/** Ranks by their bytes, found by a polynomial hash of any byte range (no copy is made). */
class RankIndex {
  #bytes: Uint8Array[] = [];
  #byHash = new Map<number, number[]>();

  /** The hash of `b[start, end)`. */
  static hash(b: Uint8Array, start = 0, end = b.length): number {
    let h = 0;
    for (let j = start; j < end; j++) h = (h * HASH_BASE + b[j]) % HASH_MOD;
    return h;
  }

  /** The rank with the bytes `b[start, end)`, whose hash is `hash`, if any. */
  find(b: Uint8Array, start: number, end: number, hash: number): number | undefined {
    for (const rank of this.#byHash.get(hash) ?? []) {
      const t = this.#bytes[rank];
      if (t.length !== end - start) continue;
      let j = 0;
      while (j < t.length && t[j] === b[start + j]) j++;
      if (j === t.length) return rank;
    }
    return undefined;
  }

  /** Adds the next rank, whose bytes hash to `hash`. */
  add(bytes: Uint8Array, hash: number): void {
    const rank = this.#bytes.length;
    this.#bytes.push(bytes);
    const same = this.#byHash.get(hash);
    if (same) same.push(rank);
    else this.#byHash.set(hash, [rank]);
  }
}

/**
 * The two ranks already in `index` whose bytes joined are `bytes`, with the longest first one,
 * or null.
 */
function splitInTwo(index: RankIndex, bytes: Uint8Array): [number, number] | null {
  const n = bytes.length;
  // prefix[k]: the hash of bytes[0, k); power[k]: HASH_BASE^k, both mod HASH_MOD.
  const prefix = [0];
  const power = [1];
  for (let k = 0; k < n; k++) {
    prefix.push((prefix[k] * HASH_BASE + bytes[k]) % HASH_MOD);
    power.push((power[k] * HASH_BASE) % HASH_MOD);
  }
  for (let k = n - 1; k > 0; k--) {
    const a = index.find(bytes, 0, k, prefix[k]);
    if (a === undefined) continue;
    const rest = (prefix[n] - ((prefix[k] * power[n - k]) % HASH_MOD) + HASH_MOD) % HASH_MOD;
    const b = index.find(bytes, k, n, rest);
    if (b !== undefined) return [a, b];
  }
  return null;
}

/**
 * The text of src/tokenizer/o200k_data.ts for a rank table and the special tokens (text, id).
 * Throws when the table cannot be keyed by bytes exactly as gpt-tokenizer looks it up, or when a
 * token of several bytes is not two lower-ranked tokens joined.
 *
 * Every rank's bytes are written as the two lower ranks they join (a byte-pair vocabulary is
 * built that way), which takes half the space of the bytes themselves.
 */
export function o200kDataModule(
  table: ArrayLike<RankEntry | undefined>,
  specials: Iterable<readonly [string, number]>,
): string {
  const encoder = new TextEncoder();
  const count = table.length;
  const pairs: number[] = [];
  const byteRanks: number[] = [];
  /** The ranks so far. */
  const index = new RankIndex();
  let total = 0;
  let lastByteRank = 0;
  for (let rank = 0; rank < count; rank++) {
    const entry = table[rank];
    if (entry === undefined) throw new Error(`rank ${rank} has no token`);
    let bytes: Uint8Array;
    if (typeof entry === "string") {
      if (!entry.isWellFormed()) throw new Error(`rank ${rank} is not well-formed text`);
      bytes = encoder.encode(entry);
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
        throw new Error(`rank ${rank} is stored as text but starts with a byte order mark`);
      }
    } else {
      if (!entry.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
        throw new Error(`rank ${rank} has a value that is not a byte`);
      }
      bytes = Uint8Array.from(entry);
      // gpt-tokenizer looks valid UTF-8 up as text with a leading byte order mark dropped, and
      // the rest by bytes. o200k.ts tells the two apart by the mark alone.
      const mark = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
      if (mark !== isUtf8(bytes)) {
        throw new Error(
          `rank ${rank} is stored as bytes, ${mark ? "starts" : "does not start"} with a byte ` +
            `order mark and is ${mark ? "not " : ""}valid UTF-8`,
        );
      }
      pushVarint(byteRanks, rank - lastByteRank);
      lastByteRank = rank;
    }
    if (bytes.length < 1 || bytes.length > MAX_TOKEN_BYTES) {
      throw new Error(`rank ${rank} has ${bytes.length} bytes`);
    }
    const hash = RankIndex.hash(bytes);
    const other = index.find(bytes, 0, bytes.length, hash);
    if (other !== undefined) throw new Error(`ranks ${other} and ${rank} have the same bytes`);
    if (bytes.length === 1) {
      pushVarint(pairs, 0);
      pushVarint(pairs, bytes[0]);
    } else {
      const split = splitInTwo(index, bytes);
      if (split === null) throw new Error(`rank ${rank} is not two lower ranks joined`);
      pushVarint(pairs, split[0] + 1);
      pushVarint(pairs, split[1]);
    }
    index.add(bytes, hash);
    total += bytes.length;
  }
  // Byte-pair merging starts from single bytes: each must be a token. (The checks above make a
  // lookup by bytes find it: ASCII is stored as text, any other byte, alone, as bytes.)
  for (let b = 0; b < 256; b++) {
    const one = Uint8Array.of(b);
    if (index.find(one, 0, 1, RankIndex.hash(one)) === undefined) {
      throw new Error(`byte ${b} is not a token`);
    }
  }
  const specialList = [...specials].sort((a, b) => a[1] - b[1]);
  for (const [text, id] of specialList) {
    if (!Number.isInteger(id) || id < count) throw new Error(`special token ${text} has id ${id}`);
  }
  const specialLines = specialList.map(([text, id]) => `  [${JSON.stringify(text)}, ${id}],`);
  return [
    "// Generated by scripts/gen_o200k.ts from gpt-tokenizer's o200k_base rank table. Do not edit;",
    "// regenerate with: deno run --allow-read --allow-write=src/tokenizer scripts/gen_o200k.ts",
    "",
    "/** Number of ranks with bytes: 0 to RANK_COUNT - 1. */",
    `export const RANK_COUNT = ${count};`,
    "",
    "/** Total length of all ranks' bytes. */",
    `export const RANK_BYTE_COUNT = ${total};`,
    "",
    "/** The special tokens as [text, id]; decoding turns their ids into their text. */",
    "export const SPECIAL_TOKENS: readonly (readonly [string, number])[] = [",
    ...specialLines,
    "];",
    "",
    "/**",
    " * Base64 of unsigned LEB128 varints: the ranks that gpt-tokenizer's table holds as bytes",
    " * rather than as text, in order, each as its difference from the previous one (the first",
    " * from 0).",
    " */",
    "export const BYTE_RANKS = `",
    base64Lines(Uint8Array.from(byteRanks)),
    "`;",
    "",
    "/**",
    " * Base64 of unsigned LEB128 varints, rank after rank: 0 and then the byte for a token of one",
    " * byte, else a + 1 and then b for a token whose bytes are rank a's followed by rank b's, two",
    " * lower ranks.",
    " */",
    "export const RANK_PAIRS = `",
    base64Lines(Uint8Array.from(pairs)),
    "`;",
    "",
  ].join("\n");
}

/** The module for the installed gpt-tokenizer's `o200k_base`. */
export function currentO200kDataModule(): string {
  const specials = (o200k as unknown as { specialTokensEncoder: Map<string, number> })
    .specialTokensEncoder;
  return o200kDataModule(ranks as unknown as RankEntry[], specials);
}

if (import.meta.main) {
  const path = new URL(`../${DATA_PATH}`, import.meta.url);
  await Deno.writeTextFile(path, currentO200kDataModule());
  console.error(`wrote ${DATA_PATH}`);
}
