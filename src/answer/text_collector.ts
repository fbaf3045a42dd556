/** An answer's output text, collected piece by piece. */

import { ownCopy, plainJsonChar, plainJsonText } from "../endpoints/chunk_template.ts";
import { utf8Decoder } from "../util/utf8.ts";
import { Spares } from "./spares.ts";

/**
 * An answer's output text, collected piece by piece and read once at the end. While every piece
 * is ASCII its characters go into one byte buffer, so the pieces die young instead of being kept
 * (and moved to the old generation by the garbage collector) for the whole stream; the first
 * other piece switches to a list of strings.
 */
export class TextCollector {
  #bytes: Uint8Array | null = null;
  #length = 0;
  #parts: string[] | null = null;

  add(text: string): void {
    if (this.#parts === null) {
      const at = this.#length;
      const bytes = this.#room(text.length);
      let i = 0;
      for (; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c >= 128) break;
        bytes[at + i] = c;
      }
      if (i === text.length) {
        this.#length = at + i;
        return;
      }
      // Not ASCII: what was collected becomes the first part, the rest stays text.
      this.#parts = at > 0 ? [ascii.decode(bytes.subarray(0, at))] : [];
      spareBytes.give(bytes);
      this.#bytes = null;
      this.#length = 0;
    }
    // A slice of 13 characters or more shares its chunk's text (V8 copies shorter ones): kept
    // for the whole stream, it would keep every chunk of the answer alive.
    this.#parts.push(text.length < 13 ? text : ownCopy(text));
  }

  /**
   * Adds `s.slice(from, to)`, read where it lies, when it is plain JSON text (no quote,
   * backslash or control character); returns false, adding nothing, when it is not.
   */
  addPlain(s: string, from: number, to: number): boolean {
    if (this.#parts === null) {
      const at = this.#length;
      const bytes = this.#room(to - from);
      let i = from;
      for (let j = at; i < to; i++, j++) {
        const c = s.charCodeAt(i);
        if (c >= 128) break;
        if (!plainJsonChar(c)) return false;
        bytes[j] = c;
      }
      if (i === to) {
        this.#length = at + (to - from);
        return true;
      }
    }
    // Not ASCII: added as a string. (Bytes written past the collected length above are unused.)
    const text = s.slice(from, to);
    if (!plainJsonText(text)) return false;
    this.add(text);
    return true;
  }

  /** Adds the text whose bytes, all ASCII, are `src[from, from + length)`. */
  addAscii(src: Uint8Array, from: number, length: number): void {
    if (this.#parts === null) {
      const bytes = this.#room(length);
      const at = this.#length;
      // A word or a few by a loop; past about 32 bytes, a view and \`set\` cost less than the loop.
      if (length <= 32) { for (let i = 0; i < length; i++) bytes[at + i] = src[from + i]; }
      else bytes.set(src.subarray(from, from + length), at);
      this.#length = at + length;
    } else this.#parts.push(ascii.decode(src.subarray(from, from + length)));
  }

  /** The byte buffer, with room for `n` more bytes after what it holds. */
  #room(n: number): Uint8Array {
    const at = this.#length;
    let bytes = this.#bytes;
    if (bytes === null) this.#bytes = bytes = spareBytes.take();
    if (at + n > bytes.length) {
      const grown = new Uint8Array(Math.max(bytes.length * 2, at + n));
      // The outgrown buffer is left to the collector (see TimeLog's).
      grown.set(bytes.subarray(0, at));
      this.#bytes = bytes = grown;
    }
    return bytes;
  }

  /** The text collected since the last call, which starts a new collection. */
  take(): string {
    let text = "";
    if (this.#parts !== null) text = this.#parts.join("");
    else if (this.#bytes !== null) {
      text = ascii.decode(this.#bytes.subarray(0, this.#length));
      spareBytes.give(this.#bytes, this.#length);
    }
    this.#bytes = null;
    this.#length = 0;
    this.#parts = null;
    return text;
  }
}

/** Byte buffers that answers' text was collected in. */
const FIRST_BUFFER = 256;
const spareBytes = new Spares<Uint8Array>((n) => new Uint8Array(n), FIRST_BUFFER, 64 * 1024);

/** Decodes the collector's bytes, which are all ASCII: as UTF-8, the same characters, faster. */
const ascii = utf8Decoder;
