/**
 * Fast, exact token counting for OpenAI's `o200k_base`.
 *
 * The tokenizer (o200k.ts) splits text into pieces with o200k's Unicode regex and encodes every
 * piece alone. Here a hand-written scanner finds the same pieces over char codes for ASCII text,
 * and a bounded cache maps each piece to its token count. Wherever a non-ASCII character could
 * affect a piece, the piece is taken by the original regex instead, so the pieces (and hence the
 * count) are always identical to gpt-tokenizer's
 * `countTokens(text, { disallowedSpecial: new Set() })`.
 *
 * The regex, in order of its alternatives:
 *
 *   1. [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(contraction)?
 *   2. [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(contraction)?
 *   3. \p{N}{1,3}
 *   4. ' '?[^\s\p{L}\p{N}]+[\r\n/]*
 *   5. \s*[\r\n]+
 *   6. \s+(?!\S)
 *   7. \s+
 *
 * where a contraction is an apostrophe followed by s, t, re, ve, m, ll or d in either case.
 * Every position is matched by one alternative and no match is empty, so the pieces tile the
 * text and can be found one after another from the start.
 */

import { O200K_SPLIT_PATTERN, o200kPieceTokenCount } from "./o200k.ts";

/** o200k's split regex, sticky: matches exactly one piece at `lastIndex`. */
const SPLIT = new RegExp(O200K_SPLIT_PATTERN, "uy");

// Character classes of the ASCII range, as the regex sees them.
const UPPER = 1; // \p{Lu}: A-Z
const LOWER = 2; // \p{Ll}: a-z
const DIGIT = 4; // \p{N}: 0-9
const SPACE = 8; // \s: \t \n \v \f \r and space
const NEWLINE = 16; // \r \n (also SPACE)
const OTHER = 32; // [^\s\p{L}\p{N}]: punctuation, symbols, control characters
const LETTER = UPPER | LOWER;

const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c >= 65 && c <= 90) CLASS[c] = UPPER;
  else if (c >= 97 && c <= 122) CLASS[c] = LOWER;
  else if (c >= 48 && c <= 57) CLASS[c] = DIGIT;
  else if (c === 10 || c === 13) CLASS[c] = SPACE | NEWLINE;
  else if (c === 9 || c === 11 || c === 12 || c === 32) CLASS[c] = SPACE;
  else CLASS[c] = OTHER;
}

const APOSTROPHE = 39;
const SLASH = 47;

/**
 * End of alternatives 1–2 for letters starting at `j`: uppercase letters, then lowercase ones,
 * then an optional contraction. -1 when a non-ASCII character could extend the letters.
 */
function lettersEnd(s: string, j: number, n: number): number {
  let p = j;
  let c = 0;
  while (p < n) {
    c = s.charCodeAt(p);
    if (c >= 128) return -1;
    if (CLASS[c] !== UPPER) break;
    p++;
  }
  while (p < n) {
    c = s.charCodeAt(p);
    if (c >= 128) return -1;
    if (CLASS[c] !== LOWER) break;
    p++;
  }
  if (p + 1 < n && s.charCodeAt(p) === APOSTROPHE) {
    // `| 0x20` lowercases an ASCII letter; no other char code lands on a letter compared here.
    const a = s.charCodeAt(p + 1) | 0x20;
    if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return p + 2; // s t m d
    if (p + 2 < n) {
      const b = s.charCodeAt(p + 2) | 0x20;
      if (a === 0x6c && b === 0x6c) return p + 3; // ll
      if ((a === 0x72 || a === 0x76) && b === 0x65) return p + 3; // re ve
    }
  }
  return p;
}

/**
 * End of alternative 4 whose run of punctuation continues at `j`: the rest of the run, then any
 * \r, \n and /. -1 when a non-ASCII character could extend the run.
 */
function punctEnd(s: string, j: number, n: number): number {
  let c = 0;
  while (j < n) {
    c = s.charCodeAt(j);
    if (c >= 128) return -1;
    if (CLASS[c] !== OTHER) break;
    j++;
  }
  while (j < n) {
    c = s.charCodeAt(j);
    if (c !== 10 && c !== 13 && c !== SLASH) break;
    j++;
  }
  return j;
}

/**
 * End of alternatives 5–7 for the whitespace starting at `i`: up to its last line break if it has
 * one, else all of it at the end of the text, else all but its last character (which then
 * prefixes the next piece) unless it is a single character. -1 when a non-ASCII character could
 * extend the whitespace.
 */
function spaceEnd(s: string, i: number, n: number): number {
  let j = i;
  let lastBreak = -1;
  while (j < n) {
    const c = s.charCodeAt(j);
    if (c >= 128) return -1;
    const k = CLASS[c];
    if ((k & SPACE) === 0) break;
    if (k & NEWLINE) lastBreak = j;
    j++;
  }
  if (lastBreak >= 0) return lastBreak + 1;
  if (j === n) return n;
  return j - i >= 2 ? j - 1 : j;
}

/** `wordEnd`'s answer for a piece that only the regex can take. */
const BY_REGEX = -2;
/** FNV-1a hash over UTF-16 code units of the piece `wordEnd` found last. */
let wordHash = 0;
/** The first four characters of that piece packed as `shortPieceCount` keys them (no length). */
let wordKey = 0;

/**
 * End of the piece starting at `i` when it is the most common piece of prose, an optional space
 * and lowercase ASCII letters, with its hash in `wordHash` and its key in `wordKey`: found,
 * hashed and packed in one pass over its characters. An uppercase letter ends the run. For a
 * run that a non-ASCII letter or mark could extend, BY_REGEX (`pieceEnd` would give -1 too); -1
 * for any other piece, and for a run a contraction could extend.
 */
function wordEnd(s: string, i: number, n: number): number {
  let j = i;
  let c = s.charCodeAt(j);
  let hash = 0x811c9dc5 | 0;
  let key = 0;
  if (c === 32) {
    hash = Math.imul(hash ^ 32, 0x01000193);
    key = 32;
    c = ++j < n ? s.charCodeAt(j) : 0;
  }
  if (c < 97 || c > 122) return -1;
  do {
    hash = Math.imul(hash ^ c, 0x01000193);
    key |= c << (7 * (j - i));
    c = ++j < n ? s.charCodeAt(j) : 0;
  } while (c >= 97 && c <= 122);
  if (c >= 128) return BY_REGEX;
  if (c === APOSTROPHE) return -1;
  wordHash = hash;
  wordKey = key;
  return j;
}

/** End of the piece starting at `i`, or -1 when it must be taken by the regex. */
function pieceEnd(s: string, i: number, n: number): number {
  const c = s.charCodeAt(i);
  if (c >= 128) return -1;
  const k = CLASS[c];
  if (k & LETTER) return lettersEnd(s, i, n);
  if (k === DIGIT) {
    const stop = i + 3 < n ? i + 3 : n;
    let j = i + 1;
    while (j < stop) {
      const d = s.charCodeAt(j);
      if (d >= 128) return -1;
      if (CLASS[d] !== DIGIT) return j;
      j++;
    }
    return j;
  }
  if (k & NEWLINE) return spaceEnd(s, i, n);
  // Punctuation or a space, tab, \v or \f: it may prefix letters.
  if (i + 1 === n) return n;
  const c1 = s.charCodeAt(i + 1);
  if (c1 >= 128) return -1;
  const k1 = CLASS[c1];
  if (k1 & LETTER) return lettersEnd(s, i + 1, n);
  if (k === OTHER) return punctEnd(s, i + 1, n);
  if (c === 32 && k1 === OTHER) return punctEnd(s, i + 2, n);
  return spaceEnd(s, i, n);
}

/** End of the piece starting at `i`, as the regex finds it. */
function regexEnd(s: string, i: number): number {
  SPLIT.lastIndex = i;
  if (SPLIT.exec(s) === null) throw new Error(`o200k split found no piece at ${i}`);
  return SPLIT.lastIndex;
}

/** Appends the pieces o200k's split regex cuts `text` into, in order. */
export function splitO200k(text: string, out: string[] = []): string[] {
  const n = text.length;
  let i = 0;
  while (i < n) {
    let e = wordEnd(text, i, n);
    if (e === -1) e = pieceEnd(text, i, n);
    if (e < 0) e = regexEnd(text, i);
    out.push(text.slice(i, e));
    i = e;
  }
  return out;
}

/**
 * Pieces longer than this are counted without being cached. Long pieces (runs of spaces, dashes
 * or CJK) are the ones most costly to merge, so they are cached up to this length.
 */
const MAX_CACHED_LENGTH = 256;
/** The cache is emptied when it holds this many pieces… */
const MAX_CACHED_PIECES = 100_000;
/** …or when their code units would not fit in this many (8 MiB). */
const MAX_CACHED_UNITS = 1 << 22;

// The cache of piece → token count: an open-addressing hash table probed linearly, kept under 40%
// full. Pieces are looked up by their position in the text, so a hit needs no substring: each
// slot is four integers side by side (one cache line to read), a piece's hash, its length, where
// its UTF-16 code units start in `units`, and its count. An empty slot has length -1.
const SLOT_BITS = 18;
const SLOT_MASK = (1 << SLOT_BITS) - 1;
const SLOT_SHIFT = 32 - SLOT_BITS; // a slot is the top bits of the hash times 2^32/φ
const slots = new Int32Array(4 << SLOT_BITS);
emptySlots();
let cachedPieces = 0;
let units = new Uint16Array(1 << 16);
let unitsUsed = 0;

// Pieces of up to four ASCII characters (most of prose: " the", " of", ",") have a table of their
// own, keyed by the piece itself packed into an integer: seven bits a character and its length
// above them, never 0. A lookup is one product and one comparison, with no hash to compute over
// the characters and none to compare them against. A slot is a key and its count, side by side.
// The table is emptied when half full.
const SHORT_BITS = 16;
const SHORT_MASK = (1 << SHORT_BITS) - 1;
const SHORT_SHIFT = 32 - SHORT_BITS;
const SHORT_MAX = 1 << (SHORT_BITS - 1);
const shorts = new Int32Array(2 << SHORT_BITS);
let shortPieces = 0;

/** Counts the short ASCII piece `s.slice(i, e)` packed as `key`, from its table or by merging. */
function shortPieceCount(s: string, i: number, e: number, key: number): number {
  let slot = Math.imul(key, 0x9e3779b1) >>> SHORT_SHIFT;
  for (let k = shorts[2 * slot]; k !== 0; k = shorts[2 * slot]) {
    if (k === key) return shorts[2 * slot + 1];
    slot = (slot + 1) & SHORT_MASK;
  }
  const count = o200kPieceTokenCount(s, i, e);
  if (shortPieces >= SHORT_MAX) {
    shorts.fill(0);
    shortPieces = 0;
    slot = Math.imul(key, 0x9e3779b1) >>> SHORT_SHIFT;
  }
  shorts[2 * slot] = key;
  shorts[2 * slot + 1] = count;
  shortPieces++;
  return count;
}

/** Counts the piece `s.slice(i, e)`, not found in the cache at `slot`, and caches it there. */
function countAndCache(s: string, i: number, e: number, hash: number, slot: number): number {
  const count = o200kPieceTokenCount(s, i, e);
  const length = e - i;
  if (cachedPieces >= MAX_CACHED_PIECES || unitsUsed + length > MAX_CACHED_UNITS) {
    emptySlots();
    cachedPieces = 0;
    unitsUsed = 0;
    slot = Math.imul(hash, 0x9e3779b1) >>> SLOT_SHIFT;
  }
  if (unitsUsed + length > units.length) {
    const grown = new Uint16Array(units.length * 2);
    grown.set(units);
    units = grown;
  }
  for (let j = 0; j < length; j++) units[unitsUsed + j] = s.charCodeAt(i + j);
  slots[4 * slot] = hash;
  slots[4 * slot + 1] = length;
  slots[4 * slot + 2] = unitsUsed;
  slots[4 * slot + 3] = count;
  unitsUsed += length;
  cachedPieces++;
  return count;
}

/** Marks every slot of the cache empty. */
function emptySlots(): void {
  for (let q = 1; q < slots.length; q += 4) slots[q] = -1;
}

/**
 * Counts the piece `s.slice(i, e)`, whose FNV-1a hash over UTF-16 code units is `hash`: from the
 * cache, else by merging (and caching it, unless it is too long).
 */
function hashedPieceCount(s: string, i: number, e: number, hash: number): number {
  const length = e - i;
  if (length > MAX_CACHED_LENGTH) return o200kPieceTokenCount(s, i, e);
  let slot = Math.imul(hash, 0x9e3779b1) >>> SLOT_SHIFT;
  for (let l = slots[4 * slot + 1]; l >= 0; l = slots[4 * slot + 1]) {
    if (l === length && slots[4 * slot] === hash) {
      const start = slots[4 * slot + 2];
      let j = 0;
      while (j < length && units[start + j] === s.charCodeAt(i + j)) j++;
      if (j === length) return slots[4 * slot + 3];
    }
    slot = (slot + 1) & SLOT_MASK;
  }
  return countAndCache(s, i, e, hash, slot);
}

/**
 * Number of `o200k_base` tokens in `text`, special-token text such as "<|endoftext|>" counted as
 * ordinary text: the same as gpt-tokenizer's `countTokens(text, { disallowedSpecial: new Set() })`.
 */
export function countO200k(text: string): number {
  return countUpTo(text, Number.MAX_SAFE_INTEGER);
}

/**
 * Number of `o200k_base` tokens in `text` when it is at most `limit`, else false; counting stops
 * once past the limit. Special-token text counts as ordinary text: the same as gpt-tokenizer's
 * `isWithinTokenLimit(text, limit, { disallowedSpecial: new Set() })`.
 */
export function isWithinO200kLimit(text: string, limit: number): number | false {
  const count = countUpTo(text, limit);
  // Like gpt-tokenizer, which checks the limit after each piece: "" is 0 whatever the limit.
  return count > limit && text !== "" ? false : count;
}

/** Tokens in `text`, or some number above `limit` once the count passes it. */
function countUpTo(text: string, limit: number): number {
  const n = text.length;
  let count = 0;
  let i = 0;
  while (i < n) {
    if (count > limit) return count;
    const w = wordEnd(text, i, n);
    if (w >= 0) {
      count += w - i <= 4
        ? shortPieceCount(text, i, w, wordKey | ((w - i) << 28))
        : hashedPieceCount(text, i, w, wordHash);
      i = w;
      continue;
    }
    let e = w === BY_REGEX ? -1 : pieceEnd(text, i, n);
    if (e < 0) e = regexEnd(text, i);
    const length = e - i;
    if (length <= 4) {
      // Every character of a piece the scanner found is ASCII; one the regex found may not be.
      let key = length << 28;
      let j = 0;
      for (; j < length; j++) {
        const c = text.charCodeAt(i + j);
        if (c >= 128) break;
        key |= c << (7 * j);
      }
      if (j === length) {
        count += shortPieceCount(text, i, e, key);
        i = e;
        continue;
      }
    }
    let hash = 0x811c9dc5 | 0; // FNV-1a over UTF-16 code units
    for (let j = i; j < e; j++) hash = Math.imul(hash ^ text.charCodeAt(j), 0x01000193);
    count += hashedPieceCount(text, i, e, hash);
    i = e;
  }
  return count;
}
