/**
 * The HTTP/1.1 response head: found in a connection's unread bytes, parsed, and remembered by its
 * bytes (a server sends the same head again and again).
 */

import type { ResponseHead } from "./wire.ts";
import type { Connection } from "./http1_connection.ts";
import { sameBytes } from "../util/bytes.ts";

/** Headers larger than this are refused: a server sending more is not speaking HTTP to us. */
const MAX_HEAD_BYTES = 64 * 1024;

/** Carriage return and line feed, the bytes that end HTTP lines. */
export const CR = 13;
/** Line feed (see `CR`). */
export const LF = 10;

const latin1 = new TextDecoder("latin1");

/** A request error that is the server's fault (malformed answer), not the network's. */
export class ProtocolError extends Error {}

/** The parsed status line and the headers that decide how the body is read. */
export interface Head extends ResponseHead {
  status: number;
  statusText: string;
  eventStream: boolean;
  json: boolean;
  /** -1 when absent. */
  contentLength: number;
  chunked: boolean;
  /** The server keeps the connection open after this answer. */
  keepAlive: boolean;
}

/**
 * Finds `\r\n\r\n` (or `\n\n`) in `buf[from, to)`; returns the index after it, or -1. A loop
 * bounded by `to`: `indexOf` would search on into the stale bytes past it.
 */
function headEnd(buf: Uint8Array, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    if (buf[i] !== LF) continue;
    const next = i + 1;
    if (next < to && buf[next] === LF) return next + 1;
    if (next + 1 < to && buf[next] === CR && buf[next + 1] === LF) return next + 2;
  }
  return -1;
}

/**
 * The error of an answer with a `Content-Encoding` (the request asked for `identity`): an answer
 * is read as it comes, never decoded, on either transport (docs/errors.md).
 */
export function encodedAnswer(encoding: string): ProtocolError {
  return new ProtocolError(
    `the answer is encoded (Content-Encoding: ${encoding.slice(0, 20)}) though the request ` +
      `asked for identity`,
  );
}

/** Parses the status line and headers in `text` (without the final blank line). */
function parseHead(text: string): Head {
  const lines = text.split(/\r?\n/);
  const m = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(lines[0]);
  if (!m) {
    throw new ProtocolError(`not an HTTP/1.x answer: ${JSON.stringify(lines[0].slice(0, 60))}`);
  }
  const http10 = m[1] === "0";
  const head: Head = {
    status: Number(m[2]),
    statusText: m[3] ?? "",
    eventStream: false,
    json: false,
    contentLength: -1,
    chunked: false,
    keepAlive: !http10,
  };
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line.length === 0) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) {
      throw new ProtocolError(`malformed header line: ${JSON.stringify(line.slice(0, 60))}`);
    }
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    switch (name) {
      case "content-type":
        // Kept as flags: a substring of the head would keep all of it for the whole answer.
        head.eventStream = value.includes("text/event-stream");
        head.json = value.includes("application/json");
        break;
      case "content-length": {
        const n = Number(value);
        if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) {
          throw new ProtocolError(`bad Content-Length: ${JSON.stringify(value.slice(0, 40))}`);
        }
        if (head.contentLength >= 0 && head.contentLength !== n) {
          throw new ProtocolError("two differing Content-Length headers");
        }
        head.contentLength = n;
        break;
      }
      case "content-encoding":
        if (value !== "" && value.toLowerCase() !== "identity") throw encodedAnswer(value);
        break;
      case "transfer-encoding":
        if (value.toLowerCase().split(",").map((s) => s.trim()).includes("chunked")) {
          head.chunked = true;
        }
        break;
      case "connection": {
        const tokens = value.toLowerCase().split(",").map((s) => s.trim());
        if (tokens.includes("close")) head.keepAlive = false;
        else if (tokens.includes("keep-alive")) head.keepAlive = true;
        break;
      }
    }
  }
  // No body by definition: 1xx, 204, 304.
  if (head.status === 204 || head.status === 304 || head.status < 200) {
    head.contentLength = 0;
    head.chunked = false;
  }
  // A body that ends with the connection cannot leave it reusable.
  if (!head.chunked && head.contentLength < 0) head.keepAlive = false;
  return head;
}

/** Heads longer than this are parsed every time rather than remembered. */
const MAX_CACHED_HEAD = 2048;

/**
 * The last final response head parsed, by its bytes: a server answers every request with the
 * same head (its `Date` changes once a second), and comparing bytes costs far less than parsing.
 * A {@link Head} is never changed once parsed, so one object serves every answer it matches.
 */
export class HeadCache {
  #bytes = new Uint8Array(0);
  #view = new DataView(this.#bytes.buffer);
  #head: Head | null = null;

  /**
   * The head kept, when `buf` holds its bytes from `from` (before `end`); null otherwise. Its
   * bytes end with the blank line that ended it, so they are a whole head: the caller goes on
   * after them, without looking for the head's end.
   */
  match(buf: Uint8Array, from: number, end: number): Head | null {
    const bytes = this.#bytes;
    if (this.#head === null || end - from < bytes.length) return null;
    return sameBytes(bytes, this.#view, buf, from, bytes.length) ? this.#head : null;
  }

  /** Bytes of the head kept. */
  get length(): number {
    return this.#bytes.length;
  }

  set(buf: Uint8Array, from: number, to: number, head: Head): void {
    if (to - from > MAX_CACHED_HEAD) return;
    this.#bytes = buf.slice(from, to);
    this.#view = new DataView(this.#bytes.buffer);
    this.#head = head;
  }
}

/**
 * The response head, parsed from the connection's unread bytes, skipping `100 Continue`-style
 * interim answers; null while it is incomplete (read more and call again).
 */
export function headOf(c: Connection, cache: HeadCache): Head | null {
  for (;;) {
    // Most answers repeat the last head byte for byte: compared first, not searched for its end.
    const known = cache.match(c.buf, c.start, c.end);
    if (known !== null) {
      c.start += cache.length;
      return known;
    }
    const endAt = headEnd(c.buf, c.start, c.end);
    if (endAt === -1) {
      if (c.end - c.start > MAX_HEAD_BYTES) {
        throw new ProtocolError(`response headers larger than ${MAX_HEAD_BYTES} bytes`);
      }
      return null;
    }
    const from = c.start;
    c.start = endAt;
    const text = latin1.decode(c.buf.subarray(from, endAt)).replace(/\r?\n\r?\n$/, "");
    const head = parseHead(text);
    if (head.status >= 100 && head.status < 200 && head.status !== 101) continue;
    cache.set(c.buf, from, endAt, head);
    return head;
  }
}
