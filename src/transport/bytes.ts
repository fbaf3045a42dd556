/** Byte-array helpers shared by the HTTP/1.1 client, its SSE reading, the mock's HTTP/1.1 server and its log. */

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
