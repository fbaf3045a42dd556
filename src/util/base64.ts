/** Base64 of bytes, for the media a request body carries as text. */

/**
 * `bytes` in base64 (the standard alphabet, padded): the same text as Node's
 * `Buffer#toString("base64")`, but as an ordinary string of the JavaScript heap. Node's is an
 * external string whose memory the collector does not see grow: making a thousand images of a
 * megabyte each left some 250 MB of dead strings held outside the heap (measured here).
 */
export function base64(bytes: Uint8Array): string {
  return bytes.toBase64();
}
