/** UTF-8 sizes of strings, and the decoder the transport reads UTF-8 bytes with. */

const encoder = new TextEncoder();

/**
 * Decodes whole UTF-8 sequences (the caller keeps a cut-off one for later), a leading byte-order
 * mark kept as U+FEFF; stateless, so one serves every stream. Also what ASCII bytes are decoded
 * with: the runtime decodes UTF-8 about four times as fast as latin1 (0.2 against 0.9 µs for a
 * 256-token answer's 1.2 KB, measured here).
 */
export const utf8Decoder = new TextDecoder("utf-8", { ignoreBOM: true });
// Anything outside ASCII: such a string's UTF-8 length differs from its length.
const NON_ASCII = /[\u0080-\uffff]/;

/** Bytes of `s` in UTF-8, as `TextEncoder` writes it (a lone surrogate as U+FFFD, 3 bytes). */
export function utf8Length(s: string): number {
  return NON_ASCII.test(s) ? encoder.encode(s).length : s.length;
}
