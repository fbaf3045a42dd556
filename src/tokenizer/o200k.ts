/**
 * OpenAI's `o200k_base` tokenizer, built from the compact vocabulary in o200k_data.ts when the
 * module loads (some 30 ms): every rank's bytes in one Uint8Array, their offsets, and an
 * open-addressing hash table from bytes to rank, 4.4 MB of typed arrays in all.
 *
 * The results are exactly gpt-tokenizer's (the reference the data comes from), including where
 * gpt-tokenizer departs from tiktoken:
 *
 * - While merging byte pairs, gpt-tokenizer looks up a byte sequence that is valid UTF-8 as text,
 *   decoded with a leading byte order mark (EF BB BF) dropped, and any other sequence as bytes.
 *   So a sequence that starts with a byte order mark gets the rank of the rest, and the few
 *   tokens stored as bytes although valid UTF-8 (they start with one) are never merged into.
 * - A whole piece is looked up as text, so a piece with a lone surrogate is never one token; its
 *   UTF-8 (with U+FFFD for the surrogate) is byte-pair encoded.
 * - Decoding turns each run of tokens stored as bytes into text with one streaming TextDecoder
 *   shared by every call, never flushed: an incomplete UTF-8 sequence at the end of a run is held
 *   back and comes out (or becomes U+FFFD) at the start of the next run decoded, in this call or
 *   a later one.
 *
 * Special-token text such as "<|endoftext|>" is encoded as ordinary text; decoding a special
 * token's id gives its text.
 */

import {
  BYTE_RANKS,
  RANK_BYTE_COUNT,
  RANK_COUNT,
  RANK_PAIRS,
  SPECIAL_TOKENS,
} from "./o200k_data.ts";

const CONTRACTION = String.raw`(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?`;
const NOT_LETTER_OR_DIGIT = String.raw`[^\r\n\p{L}\p{N}]?`;
const UPPER = String.raw`[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`;
const LOWER = String.raw`[\p{Ll}\p{Lm}\p{Lo}\p{M}]`;

/** o200k's split pattern: text is cut into the pieces it matches, each encoded alone. */
export const O200K_SPLIT_PATTERN: string = [
  `${NOT_LETTER_OR_DIGIT}${UPPER}*${LOWER}+${CONTRACTION}`,
  `${NOT_LETTER_OR_DIGIT}${UPPER}+${LOWER}*${CONTRACTION}`,
  String.raw`\p{N}{1,3}`,
  String.raw` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
  String.raw`\s*[\r\n]+`,
  String.raw`\s+(?!\S)`,
  String.raw`\s+`,
].join("|");

/** o200k's split regex, global and Unicode-aware (flags "gu"), for `matchAll`. */
export const O200K_SPLIT_REGEX: RegExp = new RegExp(O200K_SPLIT_PATTERN, "gu");

/** Number of ranks with bytes (0 … O200K_RANK_COUNT - 1). */
export const O200K_RANK_COUNT: number = RANK_COUNT;

/** The special tokens' texts and ids. */
export const O200K_SPECIAL_TOKENS: ReadonlyMap<string, number> = new Map(SPECIAL_TOKENS);

const specialText = new Map<number, string>(SPECIAL_TOKENS.map(([text, id]) => [id, text]));

// ---- The vocabulary ----------------------------------------------------------------------------

/** Longest token, in bytes: no longer sequence needs a lookup. */
const MAX_TOKEN_BYTES = 128;

/** A rank table's bytes: every rank's bytes in rank order, and where each starts. */
export interface RankBytes {
  /** Every rank's bytes, concatenated in rank order. */
  bytes: Uint8Array;
  /** Where each rank's bytes start in `bytes`; the entry after the last rank is the end. */
  offsets: Int32Array;
}

/**
 * Unpacks the bytes of `count` ranks, `byteCount` in all, from o200k_data.ts's RANK_PAIRS format:
 * varints, per rank, 0 and a byte, or a + 1 and b for the bytes of ranks a and b (both lower)
 * joined. Throws when `pairs` does not hold exactly that.
 */
export function unpackRankBytes(pairs: Uint8Array, count: number, byteCount: number): RankBytes {
  const bytes = new Uint8Array(byteCount);
  const offsets = new Int32Array(count + 1);
  const end = pairs.length;
  let p = 0;
  let at = 0;
  for (let r = 0; r < count; r++) {
    offsets[r] = at;
    // Two varints of up to 3 bytes each (ranks stay below 2^21).
    let a = -1;
    let b = 0;
    for (let k = 0; k < 2; k++) {
      let value = 0;
      let shift = 0;
      let byte = 0x80;
      while (byte >= 0x80) {
        if (p >= end || shift > 14) throw new Error("o200k data: bad rank pairs");
        byte = pairs[p++];
        value |= (byte & 0x7f) << shift;
        shift += 7;
      }
      if (k === 0) a = value - 1;
      else b = value;
    }
    if (a < 0) {
      // A single byte, where b would be.
      if (b > 0xff || at >= byteCount) throw new Error("o200k data: bad rank pairs");
      bytes[at++] = b;
      continue;
    }
    if (a >= r || b >= r) throw new Error(`o200k data: rank ${r} joins a rank not before it`);
    const aStart = offsets[a];
    const aEnd = offsets[a + 1];
    const bStart = offsets[b];
    const bEnd = offsets[b + 1];
    if (
      aEnd - aStart + bEnd - bStart > MAX_TOKEN_BYTES ||
      at + aEnd - aStart + bEnd - bStart > byteCount
    ) {
      throw new Error(`o200k data: rank ${r} is too long`);
    }
    for (let j = aStart; j < aEnd; j++) bytes[at++] = bytes[j];
    for (let j = bStart; j < bEnd; j++) bytes[at++] = bytes[j];
  }
  offsets[count] = at;
  if (at !== byteCount || p !== end) throw new Error("o200k data: rank pairs left over");
  return { bytes, offsets };
}

/**
 * Flags, one per rank of `count`, set for the ranks listed in o200k_data.ts's BYTE_RANKS format:
 * varints, each a rank's difference from the one before (the first from 0). Throws when a rank
 * is out of range or `list` ends inside a varint.
 */
export function unpackByteRanks(list: Uint8Array, count: number): Uint8Array {
  const flags = new Uint8Array(count);
  let rank = 0;
  let delta = 0;
  let shift = 0;
  for (const b of list) {
    delta += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b >= 0x80) continue;
    rank += delta;
    if (rank >= count) throw new Error(`o200k data: rank ${rank} stored as bytes is out of range`);
    flags[rank] = 1;
    delta = 0;
    shift = 0;
  }
  if (shift !== 0) throw new Error("o200k data: truncated ranks stored as bytes");
  return flags;
}

// Open-addressing hash table of ranks, probed linearly: 2^19 slots for 200k ranks (38% full).
const TABLE_BITS = 19;
const TABLE_MASK = (1 << TABLE_BITS) - 1;
const TABLE_SHIFT = 32 - TABLE_BITS;
const table = new Int32Array(1 << TABLE_BITS).fill(-1);

/** The table slot to start probing at for `b[start, end)`: FNV-1a, then its top bits × 2^32/φ. */
function slotOf(b: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5 | 0;
  for (let j = start; j < end; j++) h = Math.imul(h ^ b[j], 0x01000193);
  return Math.imul(h, 0x9e3779b1) >>> TABLE_SHIFT;
}

const started = performance.now();
/** Every rank's bytes, in rank order, and where each starts. */
const { bytes: tokenBytes, offsets } = unpackRankBytes(
  Uint8Array.fromBase64(RANK_PAIRS),
  RANK_COUNT,
  RANK_BYTE_COUNT,
);
/** 1 for a rank that gpt-tokenizer's table holds as bytes rather than as text. */
const storedAsBytes = unpackByteRanks(Uint8Array.fromBase64(BYTE_RANKS), RANK_COUNT);
for (let r = 0; r < RANK_COUNT; r++) {
  let slot = slotOf(tokenBytes, offsets[r], offsets[r + 1]);
  while (table[slot] >= 0) slot = (slot + 1) & TABLE_MASK;
  table[slot] = r;
}

/** Milliseconds spent building the vocabulary's tables when this module loaded. */
export const O200K_BUILD_MS: number = performance.now() - started;

/** Rank whose bytes are `b[start, end)`, however stored, or -1. */
function tableRank(b: Uint8Array, start: number, end: number): number {
  const length = end - start;
  if (length > MAX_TOKEN_BYTES) return -1;
  let slot = slotOf(b, start, end);
  for (let r = table[slot]; r >= 0; r = table[slot]) {
    const o = offsets[r];
    if (offsets[r + 1] - o === length) {
      let j = 0;
      while (j < length && tokenBytes[o + j] === b[start + j]) j++;
      if (j === length) return r;
    }
    slot = (slot + 1) & TABLE_MASK;
  }
  return -1;
}

/** Rank of the token whose text has the UTF-8 `b[start, end)`, or -1 (a lookup by text). */
function textRank(b: Uint8Array, start: number, end: number): number {
  const r = tableRank(b, start, end);
  return r >= 0 && storedAsBytes[r] === 0 ? r : -1;
}

/**
 * Rank of `b[start, end)` as byte-pair merging looks it up, or -1: valid UTF-8 by its text with a
 * leading byte order mark dropped, anything else by its bytes. The mark alone tells which lookup
 * applies (scripts/gen_o200k.ts checks this): without one, the bytes match a rank stored as text
 * only if valid and one stored as bytes only if not; with one, what follows it is looked up by
 * text, which finds nothing unless valid, and no rank with a mark is invalid UTF-8.
 */
function mergeRank(b: Uint8Array, start: number, end: number): number {
  if (end - start > MAX_TOKEN_BYTES + 3) return -1;
  if (end - start >= 3 && b[start] === 0xef && b[start + 1] === 0xbb && b[start + 2] === 0xbf) {
    return textRank(b, start + 3, end);
  }
  return tableRank(b, start, end);
}

/** The bytes of rank `rank` (a view: do not modify). */
export function o200kTokenBytes(rank: number): Uint8Array {
  if (!(Number.isInteger(rank) && rank >= 0 && rank < RANK_COUNT)) {
    throw new RangeError(`${rank} is not an o200k_base rank`);
  }
  return tokenBytes.subarray(offsets[rank], offsets[rank + 1]);
}

/** Rank of the token with exactly these bytes, however a lookup would reach it, or -1. */
export function o200kRankOfBytes(bytes: Uint8Array): number {
  return tableRank(bytes, 0, bytes.length);
}

// ---- Pieces ------------------------------------------------------------------------------------

/** UTF-8 of the piece being encoded. */
let utf8 = new Uint8Array(1024);
/** Whether the piece in `utf8` had a lone surrogate (written as U+FFFD). */
let loneSurrogate = false;

/** Writes the UTF-8 of `text[start, end)` to `utf8`, as TextEncoder would; its length. */
function toUtf8(text: string, start: number, end: number): number {
  if ((end - start) * 3 > utf8.length) utf8 = new Uint8Array((end - start) * 6);
  const b = utf8;
  let n = 0;
  loneSurrogate = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      b[n++] = c;
    } else if (c < 0x800) {
      b[n++] = 0xc0 | (c >> 6);
      b[n++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      b[n++] = 0xe0 | (c >> 12);
      b[n++] = 0x80 | ((c >> 6) & 0x3f);
      b[n++] = 0x80 | (c & 0x3f);
    } else {
      const d = i + 1 < end ? text.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        const p = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        b[n++] = 0xf0 | (p >> 18);
        b[n++] = 0x80 | ((p >> 12) & 0x3f);
        b[n++] = 0x80 | ((p >> 6) & 0x3f);
        b[n++] = 0x80 | (p & 0x3f);
        i++;
      } else {
        loneSurrogate = true;
        b[n++] = 0xef;
        b[n++] = 0xbf;
        b[n++] = 0xbd;
      }
    }
  }
  return n;
}

/** A pair rank that never merges. */
const NO_RANK = 0x7fffffff;
/** Where each part of the piece being merged starts; entry `parts` is the end. */
let partStart = new Int32Array(256);
/** Rank of each part joined with the next one, or NO_RANK. */
let pairRank = new Int32Array(256);

function pairRankOf(b: Uint8Array, start: number, end: number): number {
  const r = mergeRank(b, start, end);
  return r < 0 ? NO_RANK : r;
}

/** Pieces of more bytes than this are merged with a heap rather than by scanning every pair. */
const MAX_SCANNED_BYTES = 256;

/**
 * Byte-pair encodes `utf8[0, n)`: from single bytes, merges the adjacent pair with the lowest
 * rank (the leftmost on a tie) until no pair is a token. Appends the ranks to `out` when given;
 * returns their number.
 */
function mergeBytes(n: number, out: number[] | null): number {
  if (n > MAX_SCANNED_BYTES) return mergeBytesWithHeap(n, out);
  const b = utf8;
  if (n + 1 > partStart.length) {
    partStart = new Int32Array(2 * n + 2);
    pairRank = new Int32Array(2 * n + 2);
  }
  const starts = partStart;
  const ranks = pairRank;
  for (let i = 0; i <= n; i++) starts[i] = i;
  for (let i = 0; i + 1 < n; i++) ranks[i] = pairRankOf(b, i, i + 2);
  let parts = n;
  while (parts > 1) {
    let min = NO_RANK;
    let at = -1;
    for (let i = 0; i < parts - 1; i++) {
      if (ranks[i] < min) {
        min = ranks[i];
        at = i;
      }
    }
    if (at < 0) break;
    // Part at+1 joins part at: drop its start and the pair rank of at.
    for (let i = at + 1; i < parts; i++) starts[i] = starts[i + 1];
    for (let i = at; i < parts - 2; i++) ranks[i] = ranks[i + 1];
    parts--;
    if (at < parts - 1) ranks[at] = pairRankOf(b, starts[at], starts[at + 2]);
    if (at > 0) ranks[at - 1] = pairRankOf(b, starts[at - 1], starts[at + 1]);
  }
  if (out !== null) {
    for (let i = 0; i < parts; i++) {
      const r = mergeRank(b, starts[i], starts[i + 1]);
      if (r < 0) throw new Error("o200k byte-pair encoding left a part that is no token");
      out.push(r);
    }
  }
  return parts;
}

// The heap's state for long pieces, indexed by the byte where a part starts.
let nextPart = new Int32Array(0);
let prevPart = new Int32Array(0);
/** Rank of the pair that the part starting here begins, NO_RANK if none or not a part. */
let pairAt = new Int32Array(0);
/** A binary min-heap of pairs, each rank × 2^32 + start: the lowest rank, then the leftmost. */
let heap = new Float64Array(0);

/**
 * {@link mergeBytes} in O(n log n): pairs wait in a heap ordered as the scan picks them. An entry
 * is stale once its part is gone or the part's pair changed; a pair's rank tells its bytes (no
 * two pairs from one start have the same rank), so an entry whose rank differs from the part's
 * current pair is skipped.
 */
function mergeBytesWithHeap(n: number, out: number[] | null): number {
  const b = utf8;
  if (n + 1 > nextPart.length) {
    nextPart = new Int32Array(n + 1);
    prevPart = new Int32Array(n + 1);
    pairAt = new Int32Array(n + 1);
    heap = new Float64Array(2 * n + 2);
  }
  const next = nextPart;
  const prev = prevPart;
  const pair = pairAt;
  const h = heap;
  let size = 0;
  const push = (key: number) => {
    let i = size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent] <= key) break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = key;
  };
  const pop = (): number => {
    const top = h[0];
    const last = h[--size];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && h[child + 1] < h[child]) child++;
      if (h[child] >= last) break;
      h[i] = h[child];
      i = child;
    }
    h[i] = last;
    return top;
  };
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
    const r = i + 2 <= n ? pairRankOf(b, i, i + 2) : NO_RANK;
    pair[i] = r;
    if (r !== NO_RANK) push(r * 0x100000000 + i);
  }
  let parts = n;
  while (size > 0) {
    const key = pop();
    const rank = Math.floor(key / 0x100000000);
    const p = key - rank * 0x100000000;
    if (pair[p] !== rank) continue;
    // Part q joins part p.
    const q = next[p];
    const r = next[q];
    next[p] = r;
    if (r < n) prev[r] = p;
    pair[q] = NO_RANK;
    parts--;
    const mine = r < n ? pairRankOf(b, p, next[r]) : NO_RANK;
    pair[p] = mine;
    if (mine !== NO_RANK) push(mine * 0x100000000 + p);
    if (p > 0) {
      const o = prev[p];
      const left = pairRankOf(b, o, r);
      pair[o] = left;
      if (left !== NO_RANK) push(left * 0x100000000 + o);
    }
  }
  if (out !== null) {
    for (let p = 0; p < n; p = next[p]) {
      const r = mergeRank(b, p, next[p]);
      if (r < 0) throw new Error("o200k byte-pair encoding left a part that is no token");
      out.push(r);
    }
  }
  return parts;
}

/** Rank of the piece `text[start, end)` when it is one token, else -1. */
function pieceRankAt(text: string, start: number, end: number): number {
  const n = toUtf8(text, start, end);
  return loneSurrogate ? -1 : textRank(utf8, 0, n);
}

/** Rank of `piece` when it is one token (looked up by its text), else -1. */
export function o200kRank(piece: string): number {
  return pieceRankAt(piece, 0, piece.length);
}

/** The byte-pair encoding of `piece`'s UTF-8 (not first looked up whole). */
export function bytePairEncodeO200k(piece: string): number[] {
  const out: number[] = [];
  mergeBytes(toUtf8(piece, 0, piece.length), out);
  return out;
}

/** Number of tokens in the piece `text[start, end)`: 1 when it is a token, else its merge. */
export function o200kPieceTokenCount(text: string, start: number, end: number): number {
  const n = toUtf8(text, start, end);
  if (!loneSurrogate && textRank(utf8, 0, n) >= 0) return 1;
  return mergeBytes(n, null);
}

/** Appends the tokens of the piece `text[start, end)` to `out`. */
function encodePiece(text: string, start: number, end: number, out: number[]): void {
  const n = toUtf8(text, start, end);
  const r = loneSurrogate ? -1 : textRank(utf8, 0, n);
  if (r >= 0) out.push(r);
  else mergeBytes(n, out);
}

// ---- Text --------------------------------------------------------------------------------------

/**
 * The `o200k_base` tokens of `text`, special-token text encoded as ordinary text: the same as
 * gpt-tokenizer's `encode(text, { disallowedSpecial: new Set() })`.
 */
export function encodeO200k(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(O200K_SPLIT_REGEX)) {
    encodePiece(text, m.index, m.index + m[0].length, out);
  }
  return out;
}

/** Decodes tokens stored as bytes; shared and never flushed (see the module comment). */
const streamDecoder = new TextDecoder("utf-8");
/** Decodes tokens stored as text, whose bytes are always valid UTF-8. */
const textDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
let decodeBuffer = new Uint8Array(4096);

/**
 * The text of `ids`: the same as gpt-tokenizer's `decode(ids)`. A special token's id gives its
 * text. Throws when an id is neither a rank nor a special token.
 */
export function decodeO200k(ids: Iterable<number>): string {
  let decoded = "";
  let used = 0;
  /** Whether the run of tokens in `decodeBuffer` is of tokens stored as bytes. */
  let runAsBytes = false;
  const flush = () => {
    const run = decodeBuffer.subarray(0, used);
    decoded += runAsBytes ? streamDecoder.decode(run, { stream: true }) : textDecoder.decode(run);
    used = 0;
  };
  for (const id of ids) {
    if (Number.isInteger(id) && id >= 0 && id < RANK_COUNT) {
      const asBytes = storedAsBytes[id] === 1;
      if (asBytes !== runAsBytes) {
        if (used > 0) flush();
        runAsBytes = asBytes;
      }
      const start = offsets[id];
      const length = offsets[id + 1] - start;
      if (used + length > decodeBuffer.length) {
        const grown = new Uint8Array(2 * (used + length));
        grown.set(decodeBuffer.subarray(0, used));
        decodeBuffer = grown;
      }
      const buffer = decodeBuffer;
      for (let j = 0; j < length; j++) buffer[used + j] = tokenBytes[start + j];
      used += length;
    } else {
      const text = specialText.get(id);
      if (text === undefined) throw new Error(`Token ${id} is not in the byte pair encoder.`);
      if (used > 0) flush();
      decoded += text;
    }
  }
  if (used > 0) flush();
  return decoded;
}
