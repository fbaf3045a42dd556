/**
 * Incremental Server-Sent Events parser: bytes (or text) in, events out, usable without fetch.
 *
 * Follows the WHATWG event-stream rules (`\n`, `\r\n` and `\r` line ends, `:` comments, one
 * optional space after the field colon, multi-line data, a leading BOM dropped), with two
 * leniencies that keep a benchmark from losing answers:
 * - an event that names a type but has no `data:` (e.g. `event: error` with the reason in a
 *   comment) is still dispatched, so an error is never silently dropped;
 * - at the end of the stream, an event whose lines were all complete but whose closing blank
 *   line never came is dispatched; a last line cut off mid-way is dropped.
 */

import type { SseEvent } from "../endpoints/types.ts";
import { ownCopy } from "../endpoints/chunk_template.ts";
import { utf8Decoder } from "../util/utf8.ts";
import { blankLineEnd } from "../util/bytes.ts";
import { fast } from "../util/fast_paths.ts";

/** Receives each event as soon as the chunk completing it has been pushed. */
export type SseHandler = (event: SseEvent) => void;

/** Receives the events of a stream as methods of one object (no function is made per stream). */
export interface SseSink {
  /** Any event. */
  onEvent(event: SseEvent): void;
  /**
   * The common event, passed without building an {@link SseEvent}: one `data:` line, after one
   * `event:` line or none (`event` is then ""), and nothing else (no id or comment).
   */
  onTyped(event: string, data: string): void;
  /**
   * Optional: reads events where they lie in the chunk's text, without the parser. Called
   * between events, with `at` the start of a `data: ` or `event: ` line of `text`; reads as many
   * events as it can from there, each one `data:` line, after one `event:` line or none, and a
   * blank line (`\n` line ends), and returns where it stopped: the start of the next event, or
   * `at` when it read none. The parser reads what follows as usual.
   */
  readRun?(text: string, at: number): number;
  /**
   * Optional: `readRun` on the chunk's bytes, before they are decoded. Called between events
   * with `at` the start of an event (any line); reads as many events as it can from there and
   * returns where it stopped (`at` when it read none), or -1 when it reads no events at all for
   * now (the parser then decodes the rest of the chunk at once). The chunk is `bytes[from, to)`,
   * `at` and the answer are indexes of `bytes`. `fresh` is true for the first call with a chunk,
   * false when the same chunk is offered again further on (with the same `from` and `to`). The
   * parser decodes and reads only what the sink leaves: the bulk of a stream is never made into a
   * string.
   */
  readRunBytes?(bytes: Uint8Array, from: number, at: number, to: number, fresh: boolean): number;
}

/**
 * Decodes each piece on its own (no streaming state: a cut-off character is carried by the
 * parser), so one decoder serves every stream. The byte-order mark is dropped by hand, at a
 * stream's start only.
 */
const UTF8 = utf8Decoder;

const LF = 10;
const CR = 13;
const SPACE = 32;

/** True when `s` has `event: ` at `pos`. */
function startsWithEvent(s: string, pos: number): boolean {
  return s.charCodeAt(pos) === 101 && s.charCodeAt(pos + 1) === 118 &&
    s.charCodeAt(pos + 2) === 101 && s.charCodeAt(pos + 3) === 110 &&
    s.charCodeAt(pos + 4) === 116 && s.charCodeAt(pos + 5) === 58 &&
    s.charCodeAt(pos + 6) === SPACE;
}

/** True when `s` has `data: ` at `pos` (compared by character: no substring is made). */
function startsWithData(s: string, pos: number): boolean {
  return s.charCodeAt(pos) === 100 && s.charCodeAt(pos + 1) === 97 &&
    s.charCodeAt(pos + 2) === 116 && s.charCodeAt(pos + 3) === 97 &&
    s.charCodeAt(pos + 4) === 58 && s.charCodeAt(pos + 5) === SPACE;
}

/**
 * Events a sink that reads runs of bytes may decline to read at a stream's start, one by one,
 * before the rest of each chunk is decoded at once: a stream's text template is known from its
 * first text event on, and a sink that never reads runs is not asked event by event.
 */
const UNREAD_EVENTS = 4;

/** Fields up to this long are copied when their event goes on in the next chunk. */
const SHORT = 4096;

/**
 * Where a trailing, incomplete UTF-8 sequence starts in `bytes` (its length when there is none),
 * so that each piece can be decoded on its own: a streaming TextDecoder costs more per stream.
 */
function completeUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  // A sequence is at most 4 bytes: look at most 3 back for its lead byte.
  for (let i = n - 1, back = 0; i >= 0 && back < 4; i--, back++) {
    const b = bytes[i];
    if (b < 0x80) return n;
    if (b >= 0xc0) {
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return n - i < need ? i : n;
    }
  }
  return n;
}

/** Where `v` first is in `b[from, to)`; -1 when it is not. (Bounded: `b` may be a whole read buffer.) */
function indexOfByte(b: Uint8Array, v: number, from: number, to: number): number {
  for (let i = from; i < to; i++) if (b[i] === v) return i;
  return -1;
}

/** Where the first blank line (`\n\n`) in `b[from, to)` ends; `to` when none. */
function eventEnd(b: Uint8Array, from: number, to: number): number {
  const end = blankLineEnd(b, from, to);
  return end === -1 ? to : end;
}

/** The longest event start carried as bytes to the next chunk (longer ones are read as text). */
const MAX_CARRY = 16 * 1024;

/**
 * The parser state for one stream. Push chunks in arrival order, then call `end()` once.
 * Events are delivered synchronously from `push`, so a caller that stamps the time before
 * pushing a chunk knows every event that chunk completed.
 */
export class SseParser {
  #sink: SseSink;
  /** The start of a UTF-8 sequence the previous chunk cut off. */
  #pendingBytes: Uint8Array | null = null;
  /** The start of a line whose end has not arrived yet. */
  #partial = "";
  /** The previous chunk ended with `\r`: a `\n` opening the next one belongs to it. */
  #skipLF = false;
  #data = "";
  #hasData = false;
  #event = "";
  #id: string | undefined = undefined;
  #comment: string | undefined = undefined;
  #started = false;
  /** Events decoded because the sink could read none yet (see `#pushBytes`). */
  #unread = 0;
  /**
   * The start of an event the last chunk ended in, as bytes (`#carry[0, #carried)`), for a sink
   * that reads bytes: a read that ends mid-event (a small read buffer, many events waiting) would
   * otherwise have the event decoded, split into lines and parsed as text, in two pieces.
   */
  #carry: Uint8Array | null = null;
  #carried = 0;
  /**
   * Bytes go to the sink's `readRunBytes` (the WebAssembly scan), unless it has none or
   * `--plain-paths wasm-scan` turned it off: then every read is decoded and parsed as text.
   */
  #bytes: boolean;

  /** @param sink Called once per dispatched event, or an {@link SseSink} that receives them. */
  constructor(sink: SseHandler | SseSink) {
    this.#sink = typeof sink === "function"
      ? { onEvent: sink, onTyped: (event, data) => sink({ event, data }) }
      : sink;
    this.#bytes = this.#sink.readRunBytes !== undefined && fast("wasm-scan");
  }

  /** Readies the parser for another stream to the same sink, as if it were new. */
  reset(): void {
    this.#pendingBytes = null;
    this.#partial = "";
    this.#skipLF = false;
    this.#data = "";
    this.#hasData = false;
    this.#event = "";
    this.#id = undefined;
    this.#comment = undefined;
    this.#started = false;
    this.#unread = 0;
    this.#carried = 0;
    this.#bytes = this.#sink.readRunBytes !== undefined && fast("wasm-scan");
  }

  /** Feeds one chunk: raw bytes (UTF-8, characters may be split across chunks) or text. */
  push(chunk: Uint8Array | string): void {
    if (typeof chunk === "string") this.#pushText(chunk);
    else this.pushRange(chunk, 0, chunk.length);
  }

  /**
   * Feeds the chunk `buf[from, to)`, read where it lies: `buf` (a connection's read buffer) is
   * not kept, and no view of it is made unless the chunk is read as text.
   */
  pushRange(buf: Uint8Array, from: number, to: number): void {
    if (this.#bytes) this.#pushBytes(buf, from, to);
    else this.#pushText(this.#decode(buf.subarray(from, to)));
  }

  /**
   * Bytes for a sink that reads events where they lie: between events, it reads what it can;
   * what it leaves is decoded up to the end of the event it stopped at (the first blank line,
   * `\n\n`: a complete character) and parsed as text, and the sink is offered what follows. An
   * event the chunk ends in waits as bytes for the next chunk (see `#carry`).
   */
  #pushBytes(chunk: Uint8Array, start: number, n: number): void {
    let pos = start;
    if (!this.#started) {
      // A byte-order mark is dropped at the stream's start; a start too short to tell, or
      // following a cut-off character, is read as text.
      if (this.#pendingBytes !== null || n - start < 3) {
        this.#pushText(this.#decode(chunk.subarray(start, n)));
        return;
      }
      this.#started = true;
      if (chunk[pos] === 0xef && chunk[pos + 1] === 0xbb && chunk[pos + 2] === 0xbf) pos += 3;
    }
    const sink = this.#sink;
    if (this.#carried > 0) {
      pos = this.#completeCarried(chunk, pos, n);
      if (pos === -1) return;
    }
    // The sink is offered the chunk from here on: its first offer copies that much of it.
    const from = pos;
    let fresh = true;
    while (pos < n) {
      let to = n;
      // Text the sink did not look at as bytes (it returned -1) is offered to its `readRun`;
      // an event it declined is no run it would read as text either (`onTyped` reads it).
      let textRuns = false;
      if (this.#pendingBytes === null && !this.#skipLF && this.#betweenEvents()) {
        const at = sink.readRunBytes!(chunk, from, pos, n, fresh);
        fresh = false;
        if (at >= n) return;
        if (at !== -1) {
          pos = at;
          const end = blankLineEnd(chunk, pos, n);
          if (end === -1 && n - pos <= MAX_CARRY && indexOfByte(chunk, CR, pos, n) === -1) {
            // The chunk ends mid-event: its start waits, as bytes, for the rest.
            this.#carryBytes(chunk, pos, n);
            return;
          }
          to = end === -1 ? n : end;
        } else {
          textRuns = true;
          if (this.#unread < UNREAD_EVENTS) {
            // The sink reads nothing yet (it learns from the stream's first events): one event
            // as text, then the sink is asked again; past the first few, the rest is text.
            this.#unread++;
            to = eventEnd(chunk, pos, n);
          }
        }
      } else {
        to = eventEnd(chunk, pos, n);
      }
      const text = this.#decode(
        pos === 0 && to === chunk.length ? chunk : chunk.subarray(pos, to),
      );
      if (text.length > 0) this.#feed(text, textRuns);
      pos = to;
    }
  }

  /** Appends `chunk[from, to)` to the carried bytes. */
  #carryBytes(chunk: Uint8Array, from: number, to: number): void {
    const need = this.#carried + (to - from);
    let carry = this.#carry;
    if (carry === null || carry.length < need) {
      const grown = new Uint8Array(Math.max(need, carry === null ? 512 : carry.length * 2));
      if (carry !== null) grown.set(carry.subarray(0, this.#carried));
      this.#carry = carry = grown;
    }
    const at = this.#carried;
    // A few bytes by a loop; past about 32, a view and \`set\` cost less than the loop.
    if (to - from <= 32) { for (let i = from; i < to; i++) carry[at + i - from] = chunk[i]; }
    else carry.set(chunk.subarray(from, to), at);
    this.#carried = need;
  }

  /**
   * Completes the carried event with the start of `chunk[start, n)` and reads it (as bytes, else
   * as text); returns where the chunk goes on after it, or -1 when the event does not end in the
   * chunk (then all of it was carried, or read as text when the event grew too long to carry).
   */
  #completeCarried(chunk: Uint8Array, start: number, n: number): number {
    // The blank line may begin in the carried bytes.
    const end = this.#carry![this.#carried - 1] === LF && chunk[start] === LF
      ? start + 1
      : blankLineEnd(chunk, start, n);
    const to = end === -1 ? n : end;
    if (indexOfByte(chunk, CR, start, to) !== -1) {
      // A line may end in `\r` here: the carried start is parsed as text, as it would have been.
      this.#feed(UTF8.decode(this.#carry!.subarray(0, this.#carried)), false);
      this.#carried = 0;
      return start;
    }
    if (end === -1 && this.#carried + (n - start) <= MAX_CARRY) {
      this.#carryBytes(chunk, start, n);
      return -1;
    }
    this.#carryBytes(chunk, start, to);
    const carry = this.#carry!;
    const length = this.#carried;
    this.#carried = 0;
    const at = this.#sink.readRunBytes!(carry, 0, 0, length, true);
    if (at === -1) this.#feed(UTF8.decode(carry.subarray(0, length)), false);
    else if (at < length) this.#feed(UTF8.decode(carry.subarray(at, length)), false);
    return end === -1 ? -1 : to;
  }

  /** Feeds decoded text (or text pushed as such). */
  #pushText(chunk: string): void {
    let text = chunk;
    if (text.length === 0) return;
    if (!this.#started) {
      // The decoder drops a byte-order mark; text pushed directly may still carry one.
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.length === 0) return;
    }
    this.#feed(text);
  }

  /** Decodes the chunk's complete characters; an incomplete last one waits for the next chunk. */
  #decode(chunk: Uint8Array): string {
    let bytes = chunk;
    if (this.#pendingBytes !== null) {
      bytes = new Uint8Array(this.#pendingBytes.length + chunk.length);
      bytes.set(this.#pendingBytes);
      bytes.set(chunk, this.#pendingBytes.length);
      this.#pendingBytes = null;
    }
    const cut = completeUtf8(bytes);
    if (cut < bytes.length) {
      this.#pendingBytes = bytes.slice(cut);
      bytes = bytes.subarray(0, cut);
    }
    return bytes.length === 0 ? "" : UTF8.decode(bytes);
  }

  /** Ends the stream: flushes the decoder and dispatches a complete but unterminated event. */
  end(): void {
    if (this.#carried > 0) {
      // An event the stream ended in, read as text as it would have been without the carry.
      const event = this.#carry!.subarray(0, this.#carried);
      this.#carried = 0;
      this.#feed(UTF8.decode(event), false);
    }
    // A sequence cut off by the stream's end decodes to U+FFFD, as a streaming decoder's flush does.
    const tail = this.#pendingBytes === null ? "" : UTF8.decode(this.#pendingBytes);
    this.#pendingBytes = null;
    if (tail.length > 0) {
      if (!this.#started) this.#started = true;
      this.#feed(tail);
    }
    this.#partial = "";
    this.#dispatch();
  }

  /** Parses `s`; `runs`: the sink's `readRun` may be offered what it holds (see `#pushBytes`). */
  #feed(s: string, runs = true): void {
    const n = s.length;
    let pos = 0;
    if (this.#skipLF) {
      this.#skipLF = false;
      if (s.charCodeAt(0) === LF) pos = 1;
    }
    // Most streams use `\n` only: look for `\r` once and again only after passing it. (`includes`
    // first: V8's indexOf that finds nothing in a long string costs about 2 ns a character.)
    let cr = s.includes("\r") ? s.indexOf("\r", pos) : -1;
    const sink = this.#sink;
    while (pos < n) {
      // A run read by the sink leaves the parser between events, as it found it.
      const between = this.#betweenEvents();
      if (
        between && runs && sink.readRun !== undefined &&
        (startsWithData(s, pos) || startsWithEvent(s, pos))
      ) {
        pos = sink.readRun(s, pos);
        if (pos >= n) break;
      }
      if (cr !== -1 && cr < pos) cr = s.indexOf("\r", pos);
      const lf = s.indexOf("\n", pos);
      // Between events, the common ones are read at once: `data: …` alone and a blank line, or
      // the same after an `event:` line (typed streams: Anthropic, Responses).
      if (lf !== -1 && between) {
        if (s.charCodeAt(lf + 1) === LF && (cr === -1 || cr > lf) && startsWithData(s, pos)) {
          sink.onTyped("", s.slice(pos + 6, lf));
          pos = lf + 2;
          continue;
        }
        if (startsWithEvent(s, pos) && startsWithData(s, lf + 1)) {
          const lf2 = s.indexOf("\n", lf + 1);
          if (lf2 !== -1 && s.charCodeAt(lf2 + 1) === LF && (cr === -1 || cr > lf2)) {
            sink.onTyped(s.slice(pos + 7, lf), s.slice(lf + 7, lf2));
            pos = lf2 + 2;
            continue;
          }
        }
      }
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr + 1 < n) {
          next = s.charCodeAt(cr + 1) === LF ? cr + 2 : cr + 1;
        } else {
          next = n;
          this.#skipLF = true;
        }
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else {
        break;
      }
      if (this.#partial.length > 0) {
        const line = this.#partial + s.slice(pos, end);
        this.#partial = "";
        this.#line(line);
      } else {
        this.#line(pos === end ? "" : s.slice(pos, end));
      }
      pos = next;
    }
    // What waits for the next chunk is kept as copies: a slice would keep this whole chunk's text
    // alive until then, through the young collections that run meanwhile. (A long data field is
    // most of its chunk anyway, and copying it at every chunk would cost more than it saves.)
    if (pos < n) this.#partial += pos === 0 ? s : ownCopy(s.slice(pos));
    if (this.#event.length > 0) this.#event = ownCopy(this.#event);
    if (this.#id !== undefined) this.#id = ownCopy(this.#id);
    if (this.#comment !== undefined && this.#comment.length < SHORT) {
      this.#comment = ownCopy(this.#comment);
    }
    if (this.#hasData && this.#data.length < SHORT) this.#data = ownCopy(this.#data);
  }

  /** No line or field of an event is pending: the next line starts an event. */
  #betweenEvents(): boolean {
    return this.#partial.length === 0 && !this.#hasData && this.#event === "" &&
      this.#id === undefined && this.#comment === undefined;
  }

  #line(line: string): void {
    if (line.length === 0) {
      this.#dispatch();
      return;
    }
    const colon = line.indexOf(":");
    if (colon === 0) {
      const text = line.charCodeAt(1) === SPACE ? line.slice(2) : line.slice(1);
      this.#comment = this.#comment === undefined ? text : this.#comment + "\n" + text;
      return;
    }
    let field: string;
    let value: string;
    if (colon === -1) {
      field = line;
      value = "";
    } else {
      field = line.slice(0, colon);
      const from = line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1;
      value = line.slice(from);
    }
    switch (field) {
      case "data":
        if (this.#hasData) this.#data += "\n" + value;
        else {
          this.#data = value;
          this.#hasData = true;
        }
        break;
      case "event":
        this.#event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.#id = value;
        break;
        // `retry` and unknown fields carry nothing a benchmark needs.
    }
  }

  #dispatch(): void {
    if (this.#hasData || this.#event !== "") {
      const event: SseEvent = { event: this.#event, data: this.#data };
      if (this.#id !== undefined) event.id = this.#id;
      if (this.#comment !== undefined) event.comment = this.#comment;
      this.#sink.onEvent(event);
    }
    this.#data = "";
    this.#hasData = false;
    this.#event = "";
    this.#id = undefined;
    this.#comment = undefined;
  }
}

/**
 * Parses a whole stream given as chunks; convenient for tests and for small bodies.
 * @returns the events in order.
 */
export function parseSse(chunks: Iterable<Uint8Array | string>): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = new SseParser((e) => events.push(e));
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return events;
}

/**
 * A `TransformStream` from body bytes (or text) to events, for callers that prefer
 * `pipeThrough`. The transport itself uses a reader loop over `SseParser`, which is cheaper.
 */
export function sseTransform(): TransformStream<Uint8Array | string, SseEvent> {
  let parser: SseParser;
  return new TransformStream<Uint8Array | string, SseEvent>({
    start(controller) {
      parser = new SseParser((e) => controller.enqueue(e));
    },
    transform(chunk) {
      parser.push(chunk);
    },
    flush() {
      parser.end();
    },
  });
}
