/** Byte-array helpers shared by the HTTP/1.1 client and the mock's HTTP/1.1 server. */

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
