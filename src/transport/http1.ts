/**
 * An HTTP/1.1 client over `Deno.connect` / `Deno.connectTls`, with the same contract as
 * `send` in send.ts (never throws; one timestamp per network read, taken before parsing).
 *
 * Why it exists: Deno's `fetch` hands JavaScript one promise per streamed HTTP chunk, which caps
 * a thread at about 16k SSE events/s and inflates inter-token latency long before that. Here one
 * read fills a large buffer with many chunks, the chunked framing is removed in place, and all
 * the events a read completed are parsed at once.
 *
 * Connections are kept alive per origin; each request has one connection to itself and gives it
 * back only after its answer was read to the end (so a connection is never shared mid-answer).
 */

import {
  applyBody,
  emptyResult,
  errorText,
  EventReader,
  failure,
  finishAnswer,
  httpError,
  type OpenResult,
  type ReadState,
  resetResult,
  type ResultOwner,
  sealResult,
  type SendOptions,
  type SendResult,
  streamEnded,
} from "./send.ts";
import type { Endpoint } from "../endpoints/types.ts";
import { concat, putBytes, putByteString, sameBytes, writeAll } from "../util/bytes.ts";
import { SseParser } from "../answer/sse.ts";
import { type Cancelable, type SignalWatch, watchSignal } from "./signal_watch.ts";

/** A transport: `send` as in send.ts, plus `close` to drop the idle connections it keeps. */
export interface Transport {
  /** Sends one request and reads the whole answer. Never throws. */
  send(opts: SendOptions): Promise<SendResult>;
  /** Closes every idle connection; requests in flight finish on theirs, which are then closed. */
  close(): void;
  /**
   * Its requests waiting for the first bytes of their answer's body (a streamed answer's first
   * event): sent or being sent, and nothing of the body read yet. Absent where the transport does
   * not tell.
   */
  waiting?(): Waiting;
}

/** A transport's requests waiting for the first bytes of their answers (`Transport.waiting`). */
export interface Waiting {
  /** How many wait now. */
  readonly count: number;
  /**
   * Since when some have waited without a break (`performance.now()` ms): when the last request
   * to start while none waited started. Meaningless while none waits.
   */
  readonly since: number;
}

/** Options of {@link createHttp1Transport}. */
export interface Http1Options {
  /** Extra PEM root certificates trusted for `https://` (self-signed test servers). */
  caCerts?: string[];
  /**
   * Size of each connection's own read buffer; one read takes at most this many bytes, unless
   * the connection holds a large buffer lent from the transport's pool (see `Connection`).
   * Default: from `connections`.
   */
  readBufferBytes?: number;
  /** Size of the large buffers the pool lends. Default: from `connections`. */
  lentBufferBytes?: number;
  /**
   * How many connections this transport may hold open at once (its slots): the read buffers
   * are sized so that all of them together stay within a few MiB.
   */
  connections?: number;
  /**
   * Reads go straight to Deno's read op where this runtime exposes it (see `coreRead`); false
   * reads through `Conn.read`, as any runtime allows. Default true.
   */
  directReads?: boolean;
  /**
   * Opens the connection to `hostname:port` in place of `Deno.connect` / `Deno.connectTls`: the
   * Worker's warm-up answers from memory this way (`load/warm.ts`). Such a connection is read
   * through `Conn.read`.
   */
  connect?: (hostname: string, port: number, tls: boolean) => Promise<Deno.Conn>;
}

/** Headers larger than this are refused: a server sending more is not speaking HTTP to us. */
const MAX_HEAD_BYTES = 64 * 1024;
/**
 * Read buffers: every open connection holds a small one, waiting mostly for a few hundred bytes;
 * a connection whose read filled its buffer (more is waiting) borrows a large one from its
 * transport's pool, and gives it back once a read leaves it part empty. Most reads block on a
 * buffer for a while before any byte comes, so a large buffer for each connection would mostly
 * sit in such waits; lent ones are in reads that return at once. Sizes come from the number of
 * connections: at most 4 MiB of own buffers and 8 MiB of large ones, within these bounds. 4 MiB
 * gives a Worker's 512 connections 8 KiB each, room for the mock's 16-token chat answer (a 5 KB
 * body) in one read: with 4 KiB, such answers came in two reads, cut mid-event, and one thread of
 * 512 streams used 2-4 us more CPU per request.
 *
 * A large buffer is at least 64 KiB, as the baseline reader's reads: a fast stream's waiting bytes
 * then come in one read, where 16 KiB ones took four for the mock's 65 KB answer of 256 tokens
 * (each read is a system call and an async step). 8 MiB of them is 128 per transport; at 2,048
 * connections per Worker, up to 128 were lent at once and none was refused (bench/README.md,
 * "Lent buffers of 64 KiB").
 */
const MIN_OWN_BUFFER = 1024;
const MAX_OWN_BUFFER = 8 * 1024;
const MIN_LENT_BUFFER = 64 * 1024;
const MAX_LENT_BUFFER = 128 * 1024;
const OWN_BUDGET = 4 * 1024 * 1024;
const LENT_BUDGET = 8 * 1024 * 1024;
/** Large buffers lent at once, at the least: a few fast streams always find one. */
const MIN_LENT = 16;

/** A power of two in [lo, hi], at most `budget / connections`. */
function bufferSize(budget: number, connections: number, lo: number, hi: number): number {
  let size = hi;
  while (size > lo && size * connections > budget) size /= 2;
  return size;
}

const CR = 13;
const LF = 10;

const encoder = new TextEncoder();
const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder();

/** A request error that is the server's fault (malformed answer), not the network's. */
class ProtocolError extends Error {}

/**
 * The large read buffers a transport lends to its connections, made as they are first needed,
 * at most `max` of them.
 */
class LentBuffers {
  readonly size: number;
  #max: number;
  #spare: Uint8Array[] = [];
  /** Buffers made and not lost with a closed connection. */
  #made = 0;

  constructor(size: number, max: number) {
    this.size = size;
    this.#max = max;
  }

  /** A large buffer, or null when all are lent. */
  take(): Uint8Array | null {
    const spare = this.#spare.pop();
    if (spare !== undefined) return spare;
    if (this.#made >= this.#max) return null;
    this.#made++;
    return new Uint8Array(this.size);
  }

  give(buf: Uint8Array): void {
    this.#spare.push(buf);
  }

  /** A lent buffer is not coming back (its connection closed, maybe in a read into it). */
  lost(): void {
    this.#made--;
  }
}

/**
 * Deno's own read of a resource, `(rid, buffer) => Promise<bytes read, 0 at its end>`, when this
 * runtime exposes it; null otherwise. `Conn.read` wraps it in an async function that also adds
 * its promise to a Set and deletes it after: per read, a generator, a second promise, more turns
 * of the microtask queue, and a hash table the Set makes anew on each delete. A read waits across
 * young collections, so these were about half of what the Worker's young collections kept and
 * moved to the old generation at 512 streams (a sampling heap profile of surviving objects), and
 * the Worker's full collections fell from 6 to 2 in a 100,000-request run without them. Reading
 * through the op directly skips all of that; `Conn.read` stays the fallback (`directReads`), and
 * a test checks the op is found.
 */
const coreRead: ((rid: number, buf: Uint8Array) => Promise<number>) | null = (() => {
  const internal = (Deno as unknown as Record<symbol, { core?: { read?: unknown } } | undefined>)[
    (Deno as unknown as { internal: symbol }).internal
  ];
  const read = internal?.core?.read;
  return typeof read === "function"
    ? read as (rid: number, buf: Uint8Array) => Promise<number>
    : null;
})();

/** The resource id of `conn`, where Deno keeps it for its own use; null when not found. */
function ridOf(conn: Deno.Conn): number | null {
  for (const sym of Object.getOwnPropertySymbols(conn)) {
    if (sym.description === "Deno.internal.rid") {
      const rid = (conn as unknown as Record<symbol, unknown>)[sym];
      return typeof rid === "number" ? rid : null;
    }
  }
  return null;
}

/**
 * True when reads of `conn` can go straight to Deno's op on this runtime (see `coreRead`); a
 * test checks it, so that a runtime without it is noticed rather than silently slower.
 */
export function readsDirectly(conn: Deno.Conn): boolean {
  return coreRead !== null && ridOf(conn) !== null;
}

/** One open connection and its read buffer. */
class Connection {
  conn: Deno.Conn;
  /** The buffer reads go to: the connection's own, or one lent by `#lent`. */
  buf: Uint8Array;
  /** Unread bytes are `buf[start, end)`. */
  start = 0;
  end = 0;
  closed = false;
  /** Requests answered on this connection (0 = fresh). */
  uses = 0;
  #own: Uint8Array;
  #pool: LentBuffers;
  /** `buf` is lent by the pool. */
  #lent = false;
  /** The last read filled the free space: more is likely waiting. */
  #full = false;

  /** Deno's id of the connection, for reads through the op; -1 to read through `conn.read`. */
  #rid: number;

  constructor(conn: Deno.Conn, bufferBytes: number, pool: LentBuffers, direct: boolean) {
    this.conn = conn;
    this.buf = this.#own = new Uint8Array(bufferBytes);
    this.#pool = pool;
    this.#rid = !direct || coreRead === null ? -1 : ridOf(conn) ?? -1;
  }

  /** Reads into `space()`: resolves with the bytes read, 0 or null at the end of the stream. */
  read(): Promise<number | null> {
    const into = this.space();
    return this.#rid === -1 ? this.conn.read(into) : coreRead!(this.#rid, into);
  }

  /**
   * Where the next read goes: after the unread bytes, moved to the front or into a bigger
   * buffer when needed. A read is `filled(await read())`: `read` returns the read's own promise,
   * with no async step of its own.
   */
  space(): Uint8Array {
    if (this.#full) {
      this.#full = false;
      if (!this.#lent && !this.closed) {
        const big = this.#pool.take();
        if (big !== null) this.#move(big, true);
      }
    } else if (this.#lent && this.end - this.start <= this.#own.length) {
      // The last read left room: the stream caught up, and its own buffer serves again.
      this.#giveBack();
    }
    if (this.start === this.end) {
      this.start = 0;
      this.end = 0;
    } else if (this.end === this.buf.length) {
      if (this.start === 0) {
        // Unread bytes fill the buffer (a huge header or chunk-size line): a bigger own one.
        const bigger = new Uint8Array(this.buf.length * 2);
        const lent = this.#lent;
        const old = this.#move(bigger, false);
        if (lent) this.#pool.give(old);
        this.#own = bigger;
      } else {
        this.buf.copyWithin(0, this.start, this.end);
        this.end -= this.start;
        this.start = 0;
      }
    }
    // Usually everything was consumed: the whole buffer, without making a view of it.
    return this.end === 0 ? this.buf : this.buf.subarray(this.end);
  }

  /** Makes `to` the buffer, its unread bytes moved to its front; returns the one it replaces. */
  #move(to: Uint8Array, lent: boolean): Uint8Array {
    const from = this.buf;
    const n = this.end - this.start;
    if (n > 0) to.set(from.subarray(this.start, this.end));
    this.buf = to;
    this.start = 0;
    this.end = n;
    this.#lent = lent;
    return from;
  }

  /** Takes the result of a read into `space()`; false at end of stream. */
  filled(n: number | null): boolean {
    if (n === null || n === 0) return false;
    if (n === this.buf.length - this.end) this.#full = true;
    this.end += n;
    return true;
  }

  /** Between answers: a lent buffer goes back (nothing is unread on a reusable connection). */
  idle(): void {
    if (this.#lent && this.start === this.end) this.#giveBack();
  }

  /** Back to the own buffer, with the unread bytes (which fit in it); the lent one returns. */
  #giveBack(): void {
    this.#pool.give(this.#move(this.#own, false));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.#lent) {
      // A read may still hold it: it is not lent again. It stays `buf`: a cancellation can close
      // the connection while the bytes of its last read are still being handled.
      this.#pool.lost();
      this.#lent = false;
    }
    try {
      this.conn.close();
    } catch { /* already closed by the peer */ }
  }
}

/** A request URL as this transport uses it, parsed once per run rather than once per request. */
export interface Target {
  url: URL;
  origin: Origin;
  /** The request line, `POST /path?query HTTP/1.1\r\n`, as bytes. */
  line: Uint8Array;
  /** The `Host` header line, written unless the caller gives one. */
  hostLine: Uint8Array;
  /** The `Authorization` line from the URL's credentials (as fetch does); null without any. */
  authLine: Uint8Array | null;
}

/** Where requests go: one pool of idle connections per origin. */
interface Origin {
  key: string;
  tls: boolean;
  hostname: string;
  port: number;
  /** The `Host` header value. */
  host: string;
}

/** The parsed status line and the headers that decide how the body is read. */
interface Head {
  status: number;
  statusText: string;
  /** Content-Type says `text/event-stream`. */
  eventStream: boolean;
  /** Content-Type says `application/json`. */
  json: boolean;
  /** -1 when absent. */
  contentLength: number;
  chunked: boolean;
  /** The server keeps the connection open after this answer. */
  keepAlive: boolean;
}

/** Body framing: how many bytes to expect, or where the chunked decoder stands. */
const enum Chunk {
  SIZE,
  DATA,
  DATA_END,
  TRAILER,
  DONE,
}

/** Where a body's content goes: `stamp` as each read arrives, then `data` with its content. */
interface BodySink {
  /**
   * Stamps a read's arrival at `at` (`performance.now()` ms); true when the read should wait a
   * turn before `data` (see `read`).
   */
  stamp(at: number): boolean;
  /** Takes the content `buf[from, to)`, valid only during the call; false to stop reading. */
  data(buf: Uint8Array, from: number, to: number): boolean;
}

/** An SSE body: every event a read completes is stamped with the read's arrival. */
class SseBody implements BodySink {
  events: EventReader;
  parser: SseParser;
  constructor(events: EventReader) {
    this.events = events;
    this.parser = new SseParser(events);
  }
  stamp(at: number): boolean {
    return this.events.stamp(at);
  }
  data(buf: Uint8Array, from: number, to: number): boolean {
    this.parser.pushRange(buf, from, to);
    return !this.events.stop;
  }
}

/** A whole body, copied out of the read buffer piece by piece. */
class WholeBody implements BodySink {
  parts: Uint8Array[] = [];
  stamp(_at: number): boolean {
    return false;
  }
  data(buf: Uint8Array, from: number, to: number): boolean {
    this.parts.push(buf.slice(from, to));
    return true;
  }
}

/**
 * A body's framing on a connection: `next` passes the content of the bytes read so far (framing
 * removed) to a sink. The content handed over lives in the connection's buffer and is only valid
 * during the call. The reads themselves are awaited by the request (`send`), not here: an async
 * method would be one more suspended frame, with its promise and closures, for every stream in
 * flight.
 */
class BodyReader {
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
          throw new ProtocolError(`bad Content-Length: ${JSON.stringify(value)}`);
        }
        head.contentLength = n;
        break;
      }
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

/** Header names this transport writes itself (a user's value for them would break framing). */
const OWN_HEADERS = new Set(["content-length", "transfer-encoding", "connection"]);

/** A header name as this transport writes it: checked and encoded once. */
interface HeaderName {
  /** `name: ` as bytes. */
  lead: Uint8Array;
  /** One of OWN_HEADERS: not written. */
  own: boolean;
  host: boolean;
  auth: boolean;
  /** The last value checked for this name: the same string again is not checked again. */
  valid: string | null;
}

/**
 * Header names seen so far, null for an invalid one: the same few come with every request, so
 * each is checked, lower-cased and encoded once rather than per request.
 */
const headerNames = new Map<string, HeaderName | null>();

/** What `name` is to this transport; null when it is not a valid header name (an HTTP token). */
function headerName(name: string): HeaderName | null {
  let info = headerNames.get(name);
  if (info === undefined) {
    const lower = name.toLowerCase();
    info = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)
      ? {
        lead: encoder.encode(`${name}: `),
        own: OWN_HEADERS.has(lower),
        host: lower === "host",
        auth: lower === "authorization",
        valid: null,
      }
      : null;
    if (headerNames.size < 1024) headerNames.set(name, info);
  }
  return info;
}

/**
 * True when `value` can be sent as a header value: a byte string (each character below 256,
 * written as one byte, as fetch sends it) without CR, LF or NUL.
 */
function validValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (!validValueChar(value.charCodeAt(i))) return false;
  return true;
}

/** True when character code `c` can be in a header value (see `validValue`). */
function validValueChar(c: number): boolean {
  return c <= 255 && c !== 13 && c !== 10 && c !== 0;
}

function invalidHeader(name: string): TypeError {
  return new TypeError(`header ${JSON.stringify(name)} has an invalid name or value`);
}

const CONTENT_LENGTH = encoder.encode("content-length: ");

/** The header names' bytes and values `requestMessage` writes, noted while it checks them. */
const headerLeads: Uint8Array[] = [];
const headerValues: string[] = [];
/** For each header written, its place among the headers given. */
const headerPlaces: number[] = [];

/**
 * An exchange's last request message, in the memory it keeps, and where its parts lie. A slot's
 * requests usually have the same headers but for a request id, and bodies of a like size: the
 * next message is then this one with the changed values, the length and the body written over
 * theirs, rather than written whole.
 *
 * What the next message is compared with lies in few objects: this one and one array. With
 * hundreds of streams, a message was last touched hundreds of requests ago, and each object read
 * again is a trip to memory: in a run of 512 streams, the comparison of headers kept in three
 * arrays took about a microsecond a request, against about 0.1 in a loop over one message.
 */
export class LastMessage {
  /** The message; null when none is kept. */
  bytes: Uint8Array | null = null;
  target: Target | null = null;
  body: string | Uint8Array | null = null;
  /**
   * Four entries per header, in the order the headers were given: its name; its value, or null
   * once it changed (see `rewrite`); where the value starts in `bytes` (-1 for a header not
   * written, one of OWN_HEADERS); the value's length.
   */
  headers: (string | number | null)[] = [];
  /** Where the content length's digits start, and how many there are. */
  lengthAt = 0;
  lengthDigits = 0;
  /** Where the body starts. */
  bodyAt = 0;
}

/** Entries of `LastMessage.headers` per header. */
const HEADER_ENTRIES = 4;

/**
 * `last`'s message with what differs written over it: the values of `headers` that changed, and
 * a body of bytes that is not the same object, with its length. Null when the message must be
 * written whole: another target, a body that is a string (not the same), a length with another
 * number of digits, a message longer than `room`, other header names or order, a changed value
 * that is not a string of the same length (values already written over stay, and are noted as
 * changed in `last`).
 * Throws, as `requestMessage`, on a value that could not be sent; `last` then holds no message.
 */
function rewrite(
  last: LastMessage,
  target: Target,
  headers: Record<string, string>,
  body: string | Uint8Array,
  room: Uint8Array,
): Uint8Array | null {
  let bytes = last.bytes;
  if (bytes === null || last.target !== target) return null;
  const sameBody = last.body === body;
  let length = "";
  if (!sameBody) {
    if (typeof body === "string" || last.bodyAt + body.length > room.length) return null;
    length = String(body.length);
    if (length.length !== last.lengthDigits) return null;
  }
  const kept = last.headers;
  let i = 0;
  for (const name in headers) {
    if (i === kept.length || name !== kept[i]) return null;
    const value = headers[name];
    const at = kept[i + 2] as number;
    // The same string as before costs no read of either; a value that changed is written
    // whatever it was, and is not kept: comparing a new string with the old one would read the
    // old one, and the value that changed (a request id) changes on every request.
    if (at >= 0 && value !== kept[i + 1]) {
      if (typeof value !== "string" || value.length !== kept[i + 3]) return null;
      // Checked while it is written.
      for (let k = 0; k < value.length; k++) {
        const c = value.charCodeAt(k);
        if (!validValueChar(c)) {
          last.bytes = null;
          throw invalidHeader(name);
        }
        bytes[at + k] = c;
      }
      kept[i + 1] = null;
    }
    i += HEADER_ENTRIES;
  }
  if (i !== kept.length) return null;
  if (sameBody) return bytes;
  const b = body as Uint8Array;
  putByteString(bytes, last.lengthAt, length);
  const total = last.bodyAt + b.length;
  if (total !== bytes.length) last.bytes = bytes = room.subarray(0, total);
  bytes.set(b, last.bodyAt);
  last.body = body;
  return bytes;
}

/**
 * The request's bytes, head and body, for one write; throws on a header that could not be sent
 * as is. The head's constant parts are bytes kept with the target and the header names; values
 * are written a character a byte, with no string built for the head. When `last` holds a
 * message of the same target and header names, what differs is written over it (`rewrite`):
 * in a loop of 1,000,000 messages with a new request id each, 125 ns a message rather than 350.
 * Otherwise the message is written whole: over `last`'s when it has the same length, else at the
 * start of `spare` when it fits, else into new memory; `last` then describes the message when it
 * is in `spare`'s memory, and holds none otherwise.
 */
export function requestMessage(
  target: Target,
  headers: Record<string, string>,
  body: string | Uint8Array,
  spare: Uint8Array | null = null,
  last: LastMessage | null = null,
): Uint8Array {
  if (last !== null && spare !== null) {
    const again = rewrite(last, target, headers, body, spare);
    if (again !== null) return again;
  }
  const bodyBytes = typeof body === "string" ? encoder.encode(body) : body;
  // Checked and measured first, written after: the message is made at its size. The headers to
  // write are noted as they are checked, so each name is looked up once.
  let size = target.line.length;
  let hasHost = false;
  let hasAuth = false;
  let count = 0;
  let given = 0;
  for (const name in headers) {
    const info = headerName(name);
    if (info === null) throw invalidHeader(name);
    given++;
    if (info.own) continue;
    const value = String(headers[name]);
    if (value !== info.valid) {
      if (!validValue(value)) throw invalidHeader(name);
      info.valid = value;
    }
    if (info.host) hasHost = true;
    if (info.auth) hasAuth = true;
    size += info.lead.length + value.length + 2;
    headerLeads[count] = info.lead;
    headerPlaces[count] = given - 1;
    headerValues[count++] = value;
  }
  const auth = hasAuth ? null : target.authLine;
  if (!hasHost) size += target.hostLine.length;
  if (auth !== null) size += auth.length;
  const length = String(bodyBytes.length);
  size += CONTENT_LENGTH.length + length.length + 4;

  const total = size + bodyBytes.length;
  const old = last?.bytes ?? null;
  const out = old !== null && old.length === total
    ? old
    : spare !== null && spare.length >= total
    ? spare.subarray(0, total)
    : new Uint8Array(total);
  const kept = last !== null && spare !== null && out.buffer === spare.buffer;
  if (kept) {
    last.bytes = out;
    last.target = target;
    last.body = body;
    const h = last.headers;
    h.length = 0;
    for (const name in headers) h.push(name, String(headers[name]), -1, 0);
  } else if (last !== null) last.bytes = null;
  let at = putBytes(out, 0, target.line);
  for (let i = 0; i < count; i++) {
    at = putBytes(out, at, headerLeads[i]);
    if (kept) {
      const k = headerPlaces[i] * HEADER_ENTRIES;
      last.headers[k + 2] = at;
      last.headers[k + 3] = headerValues[i].length;
    }
    at = putByteString(out, at, headerValues[i]);
    out[at++] = CR;
    out[at++] = LF;
  }
  if (!hasHost) at = putBytes(out, at, target.hostLine);
  if (auth !== null) at = putBytes(out, at, auth);
  at = putBytes(out, at, CONTENT_LENGTH);
  if (kept) {
    last.lengthAt = at;
    last.lengthDigits = length.length;
  }
  at = putByteString(out, at, length);
  out[at++] = CR;
  out[at++] = LF;
  out[at++] = CR;
  out[at++] = LF;
  if (kept) last.bodyAt = at;
  out.set(bodyBytes, at);
  return out;
}

/** Longest request message whose memory an exchange keeps for the next one. */
const MAX_KEPT_MESSAGE = 16 * 1024;

/** The longest time between two checks of the requests' deadlines. */
const MAX_DEADLINE_TICK_MS = 250;

/** A request with a deadline, as `Deadlines` keeps it. */
export interface Timed {
  /** When it times out (`performance.now()` ms). */
  deadline: number;
  /** Its place in the list; -1 when it is in none. Set by `Deadlines` only. */
  deadlineAt: number;
}

/**
 * The requests' timeouts, checked by one timer per transport: a timer per request would cost a
 * timer object, closures and their contexts for as long as each request lasts, with thousands
 * in flight. Deadlines are checked every twentieth of the shortest timeout (at most every 250 ms),
 * so a request times out at most that much late.
 */
export class Deadlines<T extends Timed> {
  /**
   * The requests with a deadline; each knows its place (`deadlineAt`), as in SignalWatch. The
   * two keep their own code rather than share a list keyed by the field's name: a shared one,
   * its field read by name or through accessors, cost 5-7 times as much per add and remove
   * (1,024 of each at 512 members: 3.4 us here, 17-25 us shared), as much as a Set.
   */
  #pending: T[] = [];
  #timer: ReturnType<typeof setInterval> | undefined = undefined;
  #tick = MAX_DEADLINE_TICK_MS;
  #timeUp: (c: T) => void;

  /** @param timeUp called with a request once its deadline has passed (it has left the list). */
  constructor(timeUp: (c: T) => void) {
    this.#timeUp = timeUp;
  }

  /** Requests with a deadline now. */
  get size(): number {
    return this.#pending.length;
  }

  /** `c` times out `timeoutMs` after `now` (`performance.now()`, read by the caller). */
  add(c: T, timeoutMs: number, now = performance.now()): void {
    c.deadline = now + timeoutMs;
    if (c.deadlineAt === -1) {
      c.deadlineAt = this.#pending.length;
      this.#pending.push(c);
    }
    const tick = Math.max(1, Math.min(MAX_DEADLINE_TICK_MS, timeoutMs / 20));
    if (this.#timer !== undefined && tick >= this.#tick) return;
    this.#tick = tick;
    clearInterval(this.#timer);
    this.#timer = setInterval(() => this.#check(), tick);
  }

  /** Takes `c` from the list (its place goes to the last one); the timer stops with the last. */
  delete(c: T): void {
    const list = this.#pending;
    const at = c.deadlineAt;
    if (at === -1 || list[at] !== c) return;
    const last = list.pop()!;
    if (last !== c) {
      list[at] = last;
      last.deadlineAt = at;
    }
    c.deadlineAt = -1;
    if (list.length > 0) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#tick = MAX_DEADLINE_TICK_MS;
  }

  #check(): void {
    const now = performance.now();
    // A copy: a request timed out leaves the list.
    for (const c of this.#pending.slice()) {
      if (c.deadline <= now) {
        this.delete(c);
        this.#timeUp(c);
      }
    }
  }
}

/** What the transport's requests share: its connections, targets, deadlines and heads. */
interface Client {
  lent: LentBuffers;
  bufferBytes: number;
  /** Connections read through Deno's op where they can (`Http1Options.directReads`). */
  directReads: boolean;
  caCerts: string[] | undefined;
  connect: Http1Options["connect"];
  deadlines: Deadlines<Exchange>;
  heads: HeadCache;
  targetOf(raw: string): Target;
  takeIdle(o: Origin): Connection | undefined;
  giveBack(o: Origin, c: Connection): void;
  /** An exchange whose result was given back, for the next request. */
  spare(x: Exchange): void;
  /** Requests whose answer's body has not begun (`Transport.waiting`). */
  waiting: { count: number; since: number };
}

async function connect(o: Origin, client: Client): Promise<Connection> {
  if (client.connect !== undefined) {
    const own = await client.connect(o.hostname, o.port, o.tls);
    return new Connection(own, client.bufferBytes, client.lent, false);
  }
  const conn = o.tls
    ? await Deno.connectTls({ hostname: o.hostname, port: o.port, caCerts: client.caCerts })
    : await Deno.connect({ hostname: o.hostname, port: o.port });
  if (!o.tls) (conn as Deno.TcpConn).setNoDelay(true);
  return new Connection(conn, client.bufferBytes, client.lent, client.directReads);
}

/**
 * One request and its answer, and, once its result is given back (`recycleResult`), the next
 * one's: the result, the body's framing, the SSE parser and event reader are the same objects from
 * one request to the next.
 *
 * A request is a chain of callbacks on the connection's pending operation (connect, write, read),
 * not an async function: such a function's suspended frame and its locals, and the objects each
 * request made, lived as long as the request, and with thousands in flight a request outlives
 * several young collections, so all of it was moved to the old generation, to be marked and
 * collected there (bench/README.md). The callbacks are made once per exchange.
 *
 * It is also the request's cancellation, by its timeout or the caller's signal: closing the
 * request's connection is how a pending operation is interrupted; a connect under way fails the
 * request at once (the connection, once open, is closed). Built without an AbortController or
 * closures (the caller's signal is watched once for all the requests under it, the deadline is
 * checked with all others).
 */
class Exchange implements Cancelable, ResultOwner {
  readonly r: OpenResult = emptyResult();
  #client: Client;
  #resolve: ((r: SendResult) => void) | null = null;

  // The request.
  #endpoint: Endpoint | null = null;
  #streaming = false;
  #signal: AbortSignal | undefined = undefined;
  timeoutMs = 0;
  #origin: Origin | null = null;
  /** Kept only until the answer's head arrived (a retry sends it again). */
  #message: Uint8Array | null = null;
  /** The memory messages are written in, kept from one request to the next. */
  #messageBytes: Uint8Array | null = null;
  /** The last message written in that memory, which the next one is written over. */
  #last = new LastMessage();
  #attempt = 0;
  /** The connection was kept alive from an earlier request. */
  #reused = false;
  /** Counted in the client's `waiting`: started, and no byte of the answer's body read yet. */
  #waiting = false;

  // Its cancellation.
  timedOut = false;
  cancelled = false;
  reason: unknown = undefined;
  /** When the request times out (`performance.now()` ms); Infinity for never. */
  deadline = Infinity;
  /** Its place in the transport's `Deadlines`; -1 when it has none. */
  deadlineAt = -1;
  /** Its place under the caller's signal (`SignalWatch`); -1 when it is under none. */
  watchedAt = -1;
  #watch: SignalWatch | null = null;
  /** The connect under way, until it settles or the request ends. */
  #connecting: Promise<Connection> | null = null;
  /** The connection the request is using. */
  conn: Connection | null = null;

  // The answer.
  #head: Head | null = null;
  #phase: "stream" | "body" | null = null;
  #ok = false;
  #first = true;
  #state: ReadState = { done: false, answered: false };
  #body: BodyReader | null = null;
  #events: EventReader | null = null;
  #sse: SseBody | null = null;
  #whole = new WholeBody();
  /** Where the body's content goes: `#sse` or `#whole`. */
  #sink: BodySink = this.#whole;

  // The callbacks, made once.
  #onWritten = (n: number): void => this.#written(n);
  #onWrittenAll = (): void => this.#readHead();
  #onHeadRead = (n: number | null): void => this.#headRead(n);
  #onSendError = (e: unknown): void => this.#sendFailed(e);
  #onBodyRead = (n: number | null): void => this.#bodyRead(n);
  #onBodyError = (e: unknown): void => this.#bodyFailed(e);
  #onParse = (): void => this.#parse();

  constructor(client: Client) {
    this.#client = client;
    this.r.owner = this;
  }

  /** Sends `opts` and reads the answer; resolves with `this.r`. Never rejects. */
  start(opts: SendOptions): Promise<SendResult> {
    const r = this.r;
    resetResult(r);
    const done = new Promise<SendResult>((resolve) => this.#resolve = resolve);
    this.#endpoint = opts.endpoint;
    this.#streaming = opts.streaming;
    this.#signal = opts.signal;
    this.timeoutMs = opts.timeoutMs;
    this.timedOut = false;
    this.cancelled = false;
    this.reason = undefined;
    this.#attempt = 0;
    this.#phase = null;
    this.#head = null;
    const now = r.startPerf = performance.now();
    this.#waiting = true;
    const waiting = this.#client.waiting;
    if (waiting.count++ === 0) waiting.since = now;
    // No limit at all means no deadline.
    const timeoutMs = opts.timeoutMs;
    if (Number.isFinite(timeoutMs) && timeoutMs > 0) {
      this.#client.deadlines.add(this, timeoutMs, now);
    }
    const external = opts.signal;
    if (external) {
      if (external.aborted) this.cancel(external.reason);
      else this.#watch = watchSignal(external, this);
    }
    try {
      if (this.cancelled) throw this.reason;
      const target = this.#client.targetOf(opts.url);
      this.#origin = target.origin;
      const message = requestMessage(
        target,
        opts.headers,
        opts.body,
        this.#messageBytes,
        this.#last,
      );
      // A message made anew (it did not fit the kept memory) is kept in its place.
      if (message.buffer !== this.#messageBytes?.buffer && message.length <= MAX_KEPT_MESSAGE) {
        this.#messageBytes = message;
      }
      this.#message = message;
    } catch (e) {
      this.#fail(e);
      return done;
    }
    this.#open();
    return done;
  }

  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.reason = reason;
    this.conn?.close();
    if (this.#connecting !== null) {
      // Connecting cannot be cancelled: the request fails now, the connection once it opens.
      this.#connecting = null;
      this.#fail(reason);
    }
  }

  /** The caller is done with the result (`recycleResult`): the next request may reuse both. */
  recycle(): void {
    if (this.#resolve !== null) return;
    resetResult(this.r);
    this.#endpoint = null;
    this.#signal = undefined;
    this.#client.spare(this);
  }

  /** A connection for the request: a kept-alive one, or a new one. */
  #open(): void {
    const o = this.#origin!;
    const c = this.#client.takeIdle(o);
    this.#reused = c !== undefined;
    if (c !== undefined) {
      this.#send(c);
      return;
    }
    const pending = connect(o, this.#client);
    this.#connecting = pending;
    pending.then((c) => {
      // The request was cancelled (and ended) meanwhile.
      if (this.#connecting !== pending) c.close();
      else {
        this.#connecting = null;
        this.#send(c);
      }
    }, (e) => {
      if (this.#connecting !== pending) return;
      this.#connecting = null;
      this.#fail(e);
    });
  }

  /** Writes the request on `c`. */
  #send(c: Connection): void {
    this.conn = c;
    if (this.cancelled) {
      this.#sendFailed(this.reason);
      return;
    }
    c.conn.write(this.#message!).then(this.#onWritten, this.#onSendError);
  }

  #written(n: number): void {
    const message = this.#message!;
    // Usually one write takes it all: no extra async step for the rest.
    if (n < message.length) {
      writeAll(this.conn!.conn, message.subarray(n)).then(this.#onWrittenAll, this.#onSendError);
    } else this.#readHead();
  }

  /** The head, a read at a time. */
  #readHead(): void {
    const c = this.conn!;
    let head: Head | null;
    try {
      head = headOf(c, this.#client.heads);
    } catch (e) {
      this.#sendFailed(e);
      return;
    }
    if (head === null) c.read().then(this.#onHeadRead, this.#onSendError);
    else this.#answer(c, head);
  }

  #headRead(n: number | null): void {
    const c = this.conn!;
    if (c.filled(n)) this.#readHead();
    else {
      this.#sendFailed(
        new Error(
          c.end === c.start
            ? "the server closed the connection without answering"
            : "the server closed the connection in the middle of the headers",
        ),
      );
    }
  }

  /**
   * Writing the request or reading the head failed. A kept-alive connection the server closed
   * meanwhile fails before any answer byte: that one attempt is retried on a fresh connection.
   */
  #sendFailed(e: unknown): void {
    const c = this.conn!;
    if (this.#reused && this.#attempt === 0 && c.start === c.end && !this.cancelled) {
      c.close();
      this.conn = null;
      this.#attempt++;
      this.#open();
    } else this.#fail(e);
  }

  /** The head arrived: the body is read as SSE or whole. */
  #answer(c: Connection, head: Head): void {
    const r = this.r;
    this.#message = null;
    c.uses++;
    r.ackPerf = performance.now();
    r.httpStatus = head.status;
    this.#head = head;
    if (this.#body === null) this.#body = new BodyReader(c, head);
    else this.#body.reset(c, head);
    const state = this.#state;
    state.done = false;
    state.answered = false;
    const ok = head.status >= 200 && head.status < 300;
    this.#ok = ok;
    // The answer's own type wins, as in send.ts.
    const sse = ok && (head.eventStream || (this.#streaming && !head.json));
    if (sse) {
      if (this.#events === null) {
        this.#events = new EventReader(r, state, this.#endpoint!);
        this.#sse = new SseBody(this.#events);
      } else {
        this.#events.reset(r, state, this.#endpoint!);
        this.#sse!.parser.reset();
      }
      this.#sink = this.#sse!;
    } else {
      this.#whole.parts.length = 0;
      this.#sink = this.#whole;
    }
    this.#phase = sse ? "stream" : "body";
    // Bytes that came with the head are handled first, stamped now: they arrived with it.
    this.#first = true;
    this.#readBody();
  }

  /** The body, a read at a time. */
  #readBody(): void {
    const c = this.conn!;
    if (!this.#first || c.start === c.end) {
      // What comes next arrives with a read of its own.
      this.#first = false;
      if (this.#body!.ended) {
        this.#bodyDone(true);
        return;
      }
      c.read().then(this.#onBodyRead, this.#onBodyError);
      return;
    }
    this.#arrived();
  }

  #bodyRead(n: number | null): void {
    if (this.conn!.filled(n)) this.#arrived();
    else if (this.#body!.untilClose) this.#bodyDone(true);
    else this.#bodyFailed(new Error("the server closed the connection before the answer ended"));
  }

  /**
   * A read arrived: stamped now, parsed a turn later when the sink asks (EventReader.stamp). Bytes
   * that came with the head arrived when it did: they take its time, read once.
   */
  #arrived(): void {
    const at = this.#first ? this.r.ackPerf! : performance.now();
    this.#bodyBegun();
    this.#first = false;
    if (this.#sink.stamp(at)) queueMicrotask(this.#onParse);
    else this.#parse();
  }

  #parse(): void {
    const body = this.#body!;
    let more: boolean;
    try {
      more = body.next(this.#sink);
    } catch (e) {
      this.#bodyFailed(e);
      return;
    }
    if (!more) this.#bodyDone(false);
    else if (body.ended) this.#bodyDone(true);
    else this.#readBody();
  }

  /** Reading the body failed: what was read is kept. */
  #bodyFailed(e: unknown): void {
    this.#events?.finish();
    this.#fail(e);
  }

  /**
   * The body was read (`finished`), or its reading stopped (an error event, an unreadable
   * answer): the answer is made into the result, and the connection is kept or closed.
   */
  #bodyDone(finished: boolean): void {
    const r = this.r;
    const events = this.#sink === this.#sse ? this.#events! : null;
    // The time reading ended: the last events' arrival and the request's end, read once.
    const now = performance.now();
    try {
      if (finished && events !== null) {
        events.at = now;
        this.#sse!.parser.end();
      }
    } catch (e) {
      this.#bodyFailed(e);
      return;
    }
    events?.finish();
    r.endPerf = now;
    const endpoint = this.#endpoint!;
    const head = this.#head!;
    if (events !== null) {
      if (!events.stop) streamEnded(r, this.#state, endpoint);
      finished = finished && !events.stop;
    } else {
      const text = utf8.decode(concat(this.#whole.parts));
      this.#whole.parts.length = 0;
      if (this.#ok) applyBody(r, this.#state, endpoint, text);
      else httpError(r, head.status, head.statusText, text);
    }
    if (this.#ok) finishAnswer(r, this.#state, endpoint);
    // The connection is no longer this request's to close.
    const c = this.conn!;
    this.conn = null;
    // Reuse only a connection whose answer was read to its end.
    if (finished && this.#body!.complete && head.keepAlive && c.start === c.end) {
      this.#client.giveBack(this.#origin!, c);
    } else {
      c.close();
    }
    this.#end();
  }

  /** The request failed: its connection, if any, is closed. */
  #fail(e: unknown): void {
    const r = this.r;
    r.endPerf = performance.now();
    const c = this.conn;
    if (c !== null) {
      c.close();
      this.conn = null;
    }
    if (e instanceof ProtocolError && !this.cancelled) {
      r.error = { code: 502, type: "InvalidResponse", message: e.message };
    } else {
      r.error = failure(
        e instanceof Error ? e : new Error(errorText(e)),
        this,
        this.#signal,
        this.timeoutMs,
        r,
        this.#phase,
      );
    }
    this.#end();
  }

  /** The answer's body began, or the request ended without one: it no longer waits. */
  #bodyBegun(): void {
    if (this.#waiting) {
      this.#waiting = false;
      this.#client.waiting.count--;
    }
  }

  /** The request ended: its deadline and its place under the caller's signal go. */
  #end(): void {
    this.#bodyBegun();
    this.#client.deadlines.delete(this);
    this.#watch?.remove(this);
    this.#watch = null;
    this.#message = null;
    this.#whole.parts.length = 0;
    const resolve = this.#resolve!;
    this.#resolve = null;
    resolve(sealResult(this.r));
  }
}

function timeUp(x: Exchange): void {
  x.timedOut = true;
  x.cancel(new DOMException(`no answer within ${x.timeoutMs} ms`, "TimeoutError"));
}

/** Exchanges kept for reuse, at the most, beyond the transport's connections. */
const SPARE_EXCHANGES = 64;

/** Creates an HTTP/1.1 transport with its own keep-alive connection pools. */
export function createHttp1Transport(options: Http1Options = {}): Transport {
  const connections = Math.max(1, options.connections ?? 1);
  const bufferBytes = options.readBufferBytes ??
    bufferSize(OWN_BUDGET, connections, MIN_OWN_BUFFER, MAX_OWN_BUFFER);
  const lentBytes = Math.max(
    bufferBytes,
    options.lentBufferBytes ??
      bufferSize(LENT_BUDGET, connections, MIN_LENT_BUFFER, MAX_LENT_BUFFER),
  );
  const lent = new LentBuffers(lentBytes, Math.max(MIN_LENT, Math.floor(LENT_BUDGET / lentBytes)));
  const idle = new Map<string, Connection[]>();
  const origins = new Map<string, Origin>();
  let closed = false;
  const targets = new Map<string, Target>();
  const spares: Exchange[] = [];

  function targetOf(raw: string): Target {
    let t = targets.get(raw);
    if (t === undefined) {
      const url = new URL(raw);
      const origin = originOf(url);
      let authLine: Uint8Array | null = null;
      if (url.username || url.password) {
        // As fetch does: credentials in the URL become Basic authentication.
        const cred = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
        authLine = encoder.encode(
          `authorization: Basic ${btoa(String.fromCharCode(...encoder.encode(cred)))}\r\n`,
        );
      }
      t = {
        url,
        origin,
        // The path and query are percent-encoded by URL, the host punycoded: ASCII.
        line: encoder.encode(`POST ${url.pathname}${url.search} HTTP/1.1\r\n`),
        hostLine: encoder.encode(`host: ${origin.host}\r\n`),
        authLine,
      };
      // A run sends to one URL or a few: the map only grows without bound if misused.
      if (targets.size >= 256) targets.clear();
      targets.set(raw, t);
    }
    return t;
  }

  function originOf(url: URL): Origin {
    const key = `${url.protocol}//${url.host}`;
    let o = origins.get(key);
    if (!o) {
      const tls = url.protocol === "https:";
      if (!tls && url.protocol !== "http:") {
        throw new TypeError(`unsupported URL scheme ${JSON.stringify(url.protocol)}`);
      }
      // URL keeps IPv6 hosts in brackets; the socket wants them bare.
      const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
      o = {
        key,
        tls,
        hostname,
        port: url.port ? Number(url.port) : tls ? 443 : 80,
        host: url.host,
      };
      origins.set(key, o);
    }
    return o;
  }

  const client: Client = {
    lent,
    bufferBytes,
    directReads: options.directReads ?? true,
    caCerts: options.caCerts,
    connect: options.connect,
    deadlines: new Deadlines<Exchange>(timeUp),
    heads: new HeadCache(),
    targetOf,
    takeIdle(o) {
      const list = idle.get(o.key);
      while (list && list.length > 0) {
        const c = list.pop()!;
        if (!c.closed) return c;
      }
      return undefined;
    },
    giveBack(o, c) {
      if (closed || c.closed) {
        c.close();
        return;
      }
      c.idle();
      let list = idle.get(o.key);
      if (!list) idle.set(o.key, list = []);
      list.push(c);
    },
    spare(x) {
      if (spares.length < connections + SPARE_EXCHANGES) spares.push(x);
    },
    waiting: { count: 0, since: 0 },
  };

  return {
    send(opts: SendOptions): Promise<SendResult> {
      return (spares.pop() ?? new Exchange(client)).start(opts);
    },
    close() {
      closed = true;
      for (const list of idle.values()) for (const c of list) c.close();
      idle.clear();
    },
    waiting: () => client.waiting,
  };
}

/** Heads longer than this are parsed every time rather than remembered. */
const MAX_CACHED_HEAD = 2048;

/**
 * The last final response head parsed, by its bytes: a server answers every request with the
 * same head (its `Date` changes once a second), and comparing bytes costs far less than parsing.
 * A {@link Head} is never changed once parsed, so one object serves every answer it matches.
 */
class HeadCache {
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
function headOf(c: Connection, cache: HeadCache): Head | null {
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
