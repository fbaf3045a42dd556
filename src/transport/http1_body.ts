/**
 * An HTTP/1.1 body's framing (Content-Length, chunked, or until the connection closes), removed
 * from a connection's buffered bytes in place.
 */

import type { BodySink } from "./wire.ts";
import type { Connection } from "./http1_connection.ts";
import { CR, type Head, LF, ProtocolError } from "./http1_head.ts";

/** Body framing: how many bytes to expect, or where the chunked decoder stands. */
const enum Chunk {
  SIZE,
  DATA,
  DATA_END,
  TRAILER,
  DONE,
}

/**
 * A body's framing on a connection: `next` passes the content of the bytes read so far (framing
 * removed) to a sink. The content handed over lives in the connection's buffer and is only valid
 * during the call. The reads themselves are awaited by the request (`send`), not here: an async
 * method would be one more suspended frame, with its promise and closures, for every stream in
 * flight.
 */
export class BodyReader {
  #c: Connection;
  #head: Head;
  /** Bytes still expected: a Content-Length body's rest, or the current chunk's. */
  #remaining: number;
  #chunk: Chunk = Chunk.SIZE;
  /** The body has no length and ends when the server closes the connection. */
  untilClose: boolean;

  constructor(c: Connection, head: Head) {
    this.#c = c;
    this.#head = head;
    this.#remaining = head.chunked ? 0 : head.contentLength;
    this.untilClose = !head.chunked && head.contentLength < 0;
  }

  /** Reads another answer's body, as a new reader would. */
  reset(c: Connection, head: Head): void {
    this.#c = c;
    this.#head = head;
    this.#remaining = head.chunked ? 0 : head.contentLength;
    this.#chunk = Chunk.SIZE;
    this.untilClose = !head.chunked && head.contentLength < 0;
  }

  /** True when the body was read to its end (the connection may be reused). */
  get complete(): boolean {
    return this.#head.chunked ? this.#chunk === Chunk.DONE : this.#remaining === 0;
  }

  /** True when nothing more is to be read: the body ended (not one read until close). */
  get ended(): boolean {
    return !this.untilClose && this.complete;
  }

  /** Passes the content of the buffered bytes to `sink`; false when `sink.data` asked to stop. */
  next(sink: BodySink): boolean {
    const c = this.#c;
    const buf = c.buf;
    const from = c.start;
    const to = this.#head.chunked ? this.#dechunk() : this.#plain(this.untilClose);
    return to === from || sink.data(buf, from, to);
  }

  /** Takes the buffered bytes of a plain body; returns where its content (from `c.start`) ends. */
  #plain(untilClose: boolean): number {
    const c = this.#c;
    let n = c.end - c.start;
    if (!untilClose && n > this.#remaining) n = this.#remaining;
    c.start += n;
    if (!untilClose) this.#remaining -= n;
    return c.start;
  }

  /**
   * Removes chunk framing from the buffered bytes in place; returns where the content found
   * (moved down to start where the unread bytes did) ends.
   */
  #dechunk(): number {
    const c = this.#c;
    const buf = c.buf;
    const from = c.start;
    let w = from;
    let p = from;
    const end = c.end;
    while (p < end && this.#chunk !== Chunk.DONE) {
      if (this.#chunk === Chunk.DATA) {
        let n = end - p;
        if (n > this.#remaining) n = this.#remaining;
        if (w !== p) buf.copyWithin(w, p, p + n);
        w += n;
        p += n;
        this.#remaining -= n;
        if (this.#remaining === 0) this.#chunk = Chunk.DATA_END;
        continue;
      }
      // The other states read whole lines; an incomplete one waits for the next read.
      const lf = buf.indexOf(LF, p);
      if (lf === -1 || lf >= end) break;
      const lineEnd = lf > p && buf[lf - 1] === CR ? lf - 1 : lf;
      if (this.#chunk === Chunk.SIZE) {
        const size = parseChunkSize(buf, p, lineEnd);
        p = lf + 1;
        if (size === 0) this.#chunk = Chunk.TRAILER;
        else {
          this.#remaining = size;
          this.#chunk = Chunk.DATA;
        }
      } else if (this.#chunk === Chunk.DATA_END) {
        if (lineEnd !== p) {
          throw new ProtocolError("malformed chunked body: no line end after a chunk");
        }
        p = lf + 1;
        this.#chunk = Chunk.SIZE;
      } else {
        // Trailer fields are ignored; the empty line ends the body.
        if (lineEnd === p) this.#chunk = Chunk.DONE;
        p = lf + 1;
      }
    }
    // An incomplete framing line stays at `buf[p, end)` for the next read; the content was
    // moved down to `buf[from, w)`, which is never past it.
    c.start = p;
    return w;
  }
}

/** Parses a chunk-size line (hex digits, optional `;extensions`). */
function parseChunkSize(buf: Uint8Array, from: number, to: number): number {
  let size = 0;
  let digits = 0;
  for (let i = from; i < to; i++) {
    const ch = buf[i];
    let v: number;
    if (ch >= 48 && ch <= 57) v = ch - 48;
    else if (ch >= 97 && ch <= 102) v = ch - 87;
    else if (ch >= 65 && ch <= 70) v = ch - 55;
    else if (ch === 59 || ch === 32 || ch === 9) break; // `;ext` or whitespace
    else throw new ProtocolError("malformed chunked body: bad chunk size");
    size = size * 16 + v;
    digits++;
  }
  if (digits === 0 || digits > 12) {
    throw new ProtocolError("malformed chunked body: bad chunk size");
  }
  return size;
}
