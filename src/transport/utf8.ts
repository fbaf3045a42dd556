/** UTF-8 sizes of strings. */

const encoder = new TextEncoder();
// Anything outside ASCII: such a string's UTF-8 length differs from its length.
const NON_ASCII = /[\u0080-\uffff]/;

/** Bytes of `s` in UTF-8, as `TextEncoder` writes it (a lone surrogate as U+FFFD, 3 bytes). */
export function utf8Length(s: string): number {
  return NON_ASCII.test(s) ? encoder.encode(s).length : s.length;
}
