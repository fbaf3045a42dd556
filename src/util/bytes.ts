/**
 * Byte-array helpers shared by the HTTP/1.1 client, its SSE reading, the mock's HTTP/1.1 server
 * and its log, and the records file's writer.
 */

const LF = 10;

/** Anything written to a part at a time, as `Deno.Conn` and `Deno.FsFile` are. */
export interface PartialWriter {
  write(p: Uint8Array): Promise<number>;
}

/** Writes all of `bytes`, calling `w.write` again for what a write left. */
export async function writeAll(w: PartialWriter, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += await w.write(bytes.subarray(off));
}

/** `parts` joined into one array; a single part is returned as it is, not copied. */
export function concat<T extends ArrayBufferLike>(
  parts: Uint8Array<T>[],
): Uint8Array<T | ArrayBuffer> {
  if (parts.length === 1) return parts[0];
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/**
 * Where the first blank line (`\n\n`) in `b[from, to)` ends; -1 when none. Line ends are found
 * by `indexOf` (memchr), several times faster than a loop over an event's bytes; one past `to`
 * (`b` may be a whole read buffer) ends the search.
 */
export function blankLineEnd(b: Uint8Array, from: number, to: number): number {
  for (let i = b.indexOf(LF, from); i !== -1 && i + 1 < to; i = b.indexOf(LF, i + 1)) {
    if (b[i + 1] === LF) return i + 2;
  }
  return -1;
}

/** Pieces longer than this are copied by `set`, shorter ones byte by byte (cheaper for them). */
const SET_BYTES = 16;

/** Copies `src` into `out` at `at`; returns where it ends. */
export function putBytes(out: Uint8Array, at: number, src: Uint8Array): number {
  if (src.length > SET_BYTES) out.set(src, at);
  else for (let i = 0; i < src.length; i++) out[at + i] = src[i];
  return at + src.length;
}

/**
 * Writes `s`, a byte string (every character code below 256: ASCII, or a header value), a
 * character a byte at `at`; returns its end.
 */
export function putByteString(out: Uint8Array, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) out[at++] = s.charCodeAt(i);
  return at;
}

/** The bytes `lastView` views. */
let viewed: Uint8Array | null = null;
let lastView: DataView = new DataView(new ArrayBuffer(0));

/**
 * A view of `b` for reading four bytes at a time: the last one made, when it was for `b`. What
 * is compared in a read (its head, its events) lies in one connection's buffer, so a view serves
 * several comparisons; made for each, it would cost about half of what reading words saves.
 */
export function viewOf(b: Uint8Array): DataView {
  if (b !== viewed) {
    lastView = new DataView(b.buffer, b.byteOffset, b.byteLength);
    viewed = b;
  }
  return lastView;
}

/**
 * True when `b[from + i, from + n)` holds `bytes[i, n)` (all of `bytes[0, n)` by default): four
 * bytes at a time, then one by one. `view` is `bytes` viewed (`new DataView(bytes.buffer,
 * bytes.byteOffset)`), made once by the caller that keeps `bytes`.
 */
export function sameBytes(
  bytes: Uint8Array,
  view: DataView,
  b: Uint8Array,
  from: number,
  n: number,
  i = 0,
): boolean {
  const read = viewOf(b);
  for (; i + 4 <= n; i += 4) if (view.getInt32(i) !== read.getInt32(from + i)) return false;
  for (; i < n; i++) if (bytes[i] !== b[from + i]) return false;
  return true;
}
