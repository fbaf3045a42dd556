/**
 * Sends one request and reads its answer, stamping when each piece arrived.
 *
 * `send` never throws: every way a request can go wrong (refused connection, timeout, HTTP
 * error, invalid or truncated answer, an error event) comes back as `SendResult.error`, with
 * whatever was read before it. The contract is transport-neutral: only `SendResult` leaves here.
 */

import { type Cancelable, type SignalWatch, watchSignal } from "./signal_watch.ts";
import type { Endpoint, Parsed, SseEvent, StreamState } from "../endpoints/types.ts";
import type { RecordError, Usage } from "../record/record.ts";
import { SseParser, type SseSink } from "../answer/sse.ts";
import {
  type ChunkTemplate,
  digitsEnd,
  ownCopy,
  plainJsonChar,
  plainJsonText,
} from "../endpoints/chunk_template.ts";
import { serverMessage, truncate } from "../endpoints/server_message.ts";
import {
  releaseSlot,
  scanned,
  scanRun,
  takeSlot,
  writeJoint,
  writeJointBytes,
} from "../answer/sse_scan.ts";
import { utf8Decoder, utf8Length } from "../util/utf8.ts";
import { blankLineEnd } from "../util/bytes.ts";
import { DATA_LEAD, type KnownEvents, knownEventsFor } from "../answer/known_events.ts";

/** What to send and how to read the answer. */
export interface SendOptions {
  /** Full URL (base + endpoint path). */
  url: string;
  /**
   * Complete request headers (Content-Type, auth, X-Request-ID, …), read when the request is
   * sent: the caller may change the object once `send` has returned.
   */
  headers: Record<string, string>;
  /** Sent as is, byte for byte. Bytes may be a view on shared memory: only read. */
  body: string | Uint8Array;
  /** Read the answer as SSE (unless the server answers with a JSON body). */
  streaming: boolean;
  /** Parses JSON bodies and SSE events. */
  endpoint: Endpoint;
  /** Whole-request timeout, from the call to the last byte; `Infinity` or 0 for none. */
  timeoutMs: number;
  /** External cancellation (Ctrl+C, request cancellation). */
  signal?: AbortSignal;
}

/** The raw facts of one request; times are `performance.now()` values (ms). */
export interface SendResult {
  /** Right before `fetch()` was called. */
  startPerf: number;
  /** Response headers received; null when no answer came. */
  ackPerf: number | null;
  /** Last byte read, or the failure. */
  endPerf: number;
  /**
   * Arrival time of each response carrying text or reasoning. After `recycleResult(r)` its
   * memory serves later requests: read it before.
   */
  responsePerf: Float64Array;
  /** Per entry of `responsePerf`: true when it carried reasoning only; null while none did. */
  responseReasoning: boolean[] | null;
  outputText: string;
  reasoningText: string;
  /** Usage seen, later reports overriding earlier ones field by field. */
  usage: Usage | null;
  httpStatus: number | null;
  error: RecordError | null;
  /** Aborted by `signal`. */
  cancelled: boolean;
}

/**
 * Typed arrays of finished answers, for the next answers: each new one is an allocation outside
 * the heap that the collector has to track, several per answer as it grows.
 *
 * - Kept by size, one stack per power of two, and the largest kept is taken. Arrays an answer
 *   outgrew are not given back: handed out again they would start the next answers small.
 * - Up to {@link MANY_SPARES} of each size up to {@link SMALL_SPARE} bytes are kept, 256 of each
 *   larger one: thousands of streams end together and as many start again.
 * - With none kept, a new array is as long as the last answer given back needed.
 *
 * At 4,096 streams of 256 tokens (two Workers, 8,192 requests each), one stack of 256 that also
 * took outgrown arrays had answers grow their arrays 1.3-1.7 (times) and 2.0-2.6 (text) times
 * each. Kept by size, a Worker's arrays grew 3,900-4,100 and 5,900-6,100 times in all: what its
 * first 2,048 answers, started together with nothing kept, need.
 */
export class Spares<T extends Float64Array | Uint8Array> {
  /** By size class: arrays of `2 ** k` up to `2 ** (k + 1)` elements at index `k`. */
  #classes: T[][] = [];
  #make: (length: number) => T;
  #first: number;
  #maxLength: number;
  /** The length the last answer given back needed. */
  #recent = 0;

  /**
   * @param make a new array of a length
   * @param first the length of a new array before any answer was given back
   * @param maxLength longest array kept
   */
  constructor(make: (length: number) => T, first: number, maxLength: number) {
    this.#make = make;
    this.#first = first;
    this.#maxLength = maxLength;
  }

  /** A kept array (the largest), or a new one. */
  take(): T {
    const classes = this.#classes;
    for (let k = classes.length - 1; k >= 0; k--) {
      const list = classes[k];
      if (list.length > 0) return list.pop()!;
    }
    const need = this.#recent;
    // The next power of two: the sizes doubling from `first` reach.
    let n = this.#first;
    while (n < need && n < this.#maxLength) n *= 2;
    return this.#make(n);
  }

  /**
   * Gives back an array no longer used (kept if there is room, else left to the collector).
   * @param used how much of it the answer filled; given when the answer ended, not outgrown
   */
  give(a: T, used?: number): void {
    if (used !== undefined) this.#recent = used;
    if (a.length === 0 || a.length > this.#maxLength) return;
    const k = 31 - Math.clz32(a.length);
    const classes = this.#classes;
    while (classes.length <= k) classes.push([]);
    const list = classes[k];
    if (list.length < (a.byteLength <= SMALL_SPARE ? MANY_SPARES : MAX_SPARES)) list.push(a);
  }
}

const MAX_SPARES = 256;
const MANY_SPARES = 4096;
const SMALL_SPARE = 4096;

/**
 * Arrival times as they are stamped, in a Float64Array that doubles when full. The arrays of
 * answers already recorded are reused: a JavaScript array grown by `push` would leave several
 * copies per answer to the garbage collector, and at hundreds of streams the answer's array
 * lives long enough to be moved to the old generation, more than once as it grows.
 */
export class TimeLog {
  #values: Float64Array = NO_TIMES;
  length = 0;
  /** The last view made: the next answer of the same length gets it again, not a new one. */
  #view: Float64Array = NO_TIMES;

  push(t: number): void {
    if (this.length === this.#values.length) this.#grow();
    this.#values[this.length++] = t;
  }

  #grow(): void {
    const old = this.#values;
    if (old.length === 0) {
      this.#values = spareTimes.take();
      return;
    }
    const grown = new Float64Array(old.length * 2);
    // The outgrown array is left to the collector: kept, it would only start an answer small.
    grown.set(old);
    this.#values = grown;
  }

  /**
   * The times stamped, as a view of the log's array (the view the last answer got, when it was
   * of this array and length: views must no longer be read once the log is cleared).
   */
  view(): Float64Array {
    const v = this.#view;
    if (v.length === this.length && v.buffer === this.#values.buffer) return v;
    return this.#view = this.#values.subarray(0, this.length);
  }

  /** Empties the log for another answer, keeping its array; views of it must no longer be read. */
  clear(): void {
    this.length = 0;
  }

  /** Gives the array back for later logs; views of it must no longer be read. */
  recycle(): void {
    spareTimes.give(this.#values, this.length);
    this.#values = NO_TIMES;
    this.length = 0;
  }
}

const NO_TIMES: Float64Array = new Float64Array(0);
const FIRST_TIMES = 64;
const spareTimes = new Spares<Float64Array>((n) => new Float64Array(n), FIRST_TIMES, 1 << 13);

/** Takes back a result its caller is done with (see `recycleResult`). */
export interface ResultOwner {
  recycle(): void;
}

/** A result while its request runs: arrival times go to `times` until `sealResult`. */
export interface OpenResult extends SendResult {
  times: TimeLog;
  /** What made the result and reuses it once given back; null: it is left to the collector. */
  owner: ResultOwner | null;
}

/** Ends a result's reading: its arrival times become `responsePerf`. */
export function sealResult(r: OpenResult): SendResult {
  r.responsePerf = r.times.view();
  return r;
}

/**
 * For a caller done with a result (its times copied or no longer needed): the memory of
 * `responsePerf` goes to later requests. Optional; a result never given back is collected as
 * garbage as usual.
 */
export function recycleResult(r: SendResult): void {
  const owner = (r as Partial<OpenResult>).owner;
  if (owner) {
    owner.recycle();
    return;
  }
  if ("times" in r && r.times instanceof TimeLog) {
    r.times.recycle();
    r.responsePerf = NO_TIMES;
  }
}

/** Longest excerpt of an unreadable answer quoted in an error message. */
const EXCERPT = 120;

/** The longest delay a timer can hold. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Pseudo-status for a bad answer inside a 2xx (error event, invalid or truncated stream). */
export const BAD_ANSWER = 502;

/** Merges a new usage report into the running one; a missing field never erases a known one. */
function mergeUsage(cur: Usage | null, next: Usage): Usage {
  if (cur === null) return { ...next };
  for (const key in next) {
    const k = key as keyof Usage;
    if (next[k] !== undefined) cur[k] = next[k];
  }
  return cur;
}

/** The most telling message of an exception (its cause's, for fetch's wrapped errors). */
export function errorText(e: unknown): string {
  if (e instanceof Error) {
    const cause = e.cause;
    if (cause instanceof Error && cause.message) return cause.message;
    return e.message || e.name;
  }
  return String(e);
}

/**
 * One request's cancellation: its own timer and the caller's signal, both released when the
 * request ends. (`AbortSignal.timeout` cannot be cleared: at thousands of requests a second its
 * pending timers keep every finished request's signals alive until they fire.)
 */
export interface RequestAbort {
  signal: AbortSignal;
  timedOut: boolean;
  release(): void;
}

/** Starts a request's timer and links the caller's signal; call `release()` when it ends. */
export function requestAbort(timeoutMs: number, external: AbortSignal | undefined): RequestAbort {
  const ac = new AbortController();
  let watch: SignalWatch | null = null;
  const state: RequestAbort & Cancelable = {
    signal: ac.signal,
    timedOut: false,
    watchedAt: -1,
    release() {
      clearTimeout(timer);
      watch?.remove(state);
    },
    cancel(reason: unknown) {
      ac.abort(reason);
    },
  };
  // Timers past 2^31-1 ms would fire at once; no limit at all means no timer.
  const timer = Number.isFinite(timeoutMs) && timeoutMs > 0
    ? setTimeout(() => {
      state.timedOut = true;
      ac.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError"));
    }, Math.min(timeoutMs, MAX_TIMER_MS))
    : undefined;
  if (external) {
    if (external.aborted) ac.abort(external.reason);
    else watch = watchSignal(external, state);
  }
  return state;
}

/** Why an exception happened: our timeout, the caller's abort, or the network. */
export function failure(
  e: unknown,
  timeout: { readonly timedOut: boolean },
  external: AbortSignal | undefined,
  timeoutMs: number,
  r: OpenResult,
  whileReading: "stream" | "body" | null,
): RecordError {
  if (external?.aborted) {
    r.cancelled = true;
    return { code: 499, type: "Cancelled", message: "request cancelled" };
  }
  if (timeout.timedOut) {
    return { code: 408, type: "Timeout", message: `no complete answer within ${timeoutMs} ms` };
  }
  if (whileReading === "stream") {
    // What was read is kept; the answer just stops short.
    return {
      code: BAD_ANSWER,
      type: "StreamTruncated",
      message: `connection lost mid-stream: ${errorText(e)}`,
    };
  }
  if (whileReading === "body") {
    return {
      code: 0,
      type: "ConnectionError",
      message: `connection lost while reading the body: ${errorText(e)}`,
    };
  }
  return { code: 0, type: "ConnectionError", message: errorText(e) };
}

/** What the reading saw beyond the result's own fields. */
export interface ReadState {
  /** The endpoint's end marker arrived. */
  done: boolean;
  /** A readable answer that is not tokens arrived. */
  answered: boolean;
}

/**
 * Adds a response's text and reasoning, stamped `at`; a response with neither is no response.
 * With `texts`, output text is collected there instead of grown event by event.
 */
function addResponse(
  r: OpenResult,
  at: number,
  text: string | undefined,
  reasoning: string | undefined,
  texts: TextCollector | null,
): void {
  const hasText = text !== undefined && text.length > 0;
  const hasReasoning = reasoning !== undefined && reasoning.length > 0;
  if (!hasText && !hasReasoning) return;
  if (hasText) {
    if (texts !== null) texts.add(text);
    else r.outputText += text;
  }
  if (hasReasoning) r.reasoningText += reasoning;
  stampResponse(r, at, !hasText);
}

/** Records that a response arrived at `at`, carrying reasoning only or text. */
function stampResponse(r: OpenResult, at: number, reasoningOnly: boolean): void {
  if (reasoningOnly && r.responseReasoning === null) {
    // The first reasoning-only response: every earlier one carried text.
    r.responseReasoning = new Array<boolean>(r.times.length).fill(false);
  }
  r.times.push(at);
  r.responseReasoning?.push(reasoningOnly);
}

/**
 * Records one parsed response stamped `at`; returns false when reading must stop. With `texts`,
 * output text is collected there (joined once by the caller) instead of grown event by event.
 */
function apply(
  r: OpenResult,
  p: Parsed,
  at: number,
  state: ReadState,
  texts: TextCollector | null = null,
): boolean {
  if (p.error) {
    r.error = {
      code: p.error.code ?? BAD_ANSWER,
      type: "SSEError",
      message: truncate(p.error.message),
    };
    return false;
  }
  addResponse(r, at, p.text, p.reasoning, texts);
  if (p.usage) r.usage = mergeUsage(r.usage, p.usage);
  if (p.done) state.done = true;
  if (p.answered) state.answered = true;
  return true;
}

function excerpt(text: string): string {
  return JSON.stringify(truncate(text, EXCERPT));
}

/** The message of an `event: error`: the data's JSON message, the data text, or the comment. */
function sseErrorMessage(event: SseEvent): string {
  if (event.data) return serverMessage(event.data);
  if (event.comment) return truncate(event.comment);
  return "the server sent an error event";
}

/** A result with nothing read yet. */
export function emptyResult(): OpenResult {
  return {
    startPerf: 0,
    ackPerf: null,
    endPerf: 0,
    responsePerf: NO_TIMES,
    times: new TimeLog(),
    responseReasoning: null,
    outputText: "",
    reasoningText: "",
    usage: null,
    httpStatus: null,
    error: null,
    cancelled: false,
    owner: null,
  };
}

/** Makes a result of an earlier request an empty one again, keeping its times' array. */
export function resetResult(r: OpenResult): void {
  r.startPerf = 0;
  r.ackPerf = null;
  r.endPerf = 0;
  r.responsePerf = NO_TIMES;
  r.times.clear();
  r.responseReasoning = null;
  r.outputText = "";
  r.reasoningText = "";
  r.usage = null;
  r.httpStatus = null;
  r.error = null;
  r.cancelled = false;
}

/** Sends one request and reads the whole answer. Never throws. */
export async function send(opts: SendOptions): Promise<SendResult> {
  const r = emptyResult();
  const timeout = requestAbort(opts.timeoutMs, opts.signal);
  try {
    await exchange(opts, r, timeout);
  } catch (e) {
    // Nothing above should throw; if something does, it is still this request's failure.
    r.endPerf = performance.now();
    r.error = failure(e, timeout, opts.signal, opts.timeoutMs, r, null);
  } finally {
    timeout.release();
  }
  return sealResult(r);
}

/** The request and its answer, filling `r`. */
async function exchange(opts: SendOptions, r: OpenResult, timeout: RequestAbort): Promise<void> {
  const endpoint = opts.endpoint;

  let res: Response;
  r.startPerf = performance.now();
  try {
    res = await fetch(opts.url, {
      method: "POST",
      headers: opts.headers,
      // fetch refuses a view on shared memory: it gets a copy.
      body: (typeof opts.body !== "string" && opts.body.buffer instanceof SharedArrayBuffer
        ? opts.body.slice()
        : opts.body) as BodyInit,
      signal: timeout.signal,
    });
  } catch (e) {
    r.endPerf = performance.now();
    r.error = failure(e, timeout, opts.signal, opts.timeoutMs, r, null);
    return;
  }
  r.ackPerf = performance.now();
  r.httpStatus = res.status;

  if (!res.ok) {
    let body = "";
    try {
      body = await res.text();
    } catch (e) {
      r.endPerf = performance.now();
      r.error = failure(e, timeout, opts.signal, opts.timeoutMs, r, null);
      return;
    }
    r.endPerf = performance.now();
    httpError(r, res.status, res.statusText, body);
    return;
  }

  const contentType = res.headers.get("content-type") ?? "";
  // The answer's own type wins: a server that ignores `stream: true` and answers with one JSON
  // body is read as such, and a replayed body that asks to stream is read as SSE without
  // --streaming.
  const sse = res.body !== null &&
    (contentType.includes("text/event-stream") ||
      (opts.streaming && !contentType.includes("application/json")));
  const state: ReadState = { done: false, answered: false };
  if (sse) await readStream(res.body!, r, state, timeout, opts);
  else await readWhole(res, r, state, timeout, opts);
  finishAnswer(r, state, endpoint);
}

/** Records an HTTP error status with the server's message. */
export function httpError(r: OpenResult, status: number, statusText: string, body: string): void {
  const msg = serverMessage(body) || statusText || `HTTP ${status}`;
  r.error = { code: status, type: "HTTPError", message: msg };
}

/** After a successful read: an answer without text is a response only for non-token endpoints. */
export function finishAnswer(r: OpenResult, state: ReadState, endpoint: Endpoint): void {
  if (r.error === null && r.times.length === 0) {
    if (state.answered || endpoint.producesTokens === false) {
      // Embeddings and rankings: a readable answer is the response.
      r.times.push(r.endPerf);
    } else {
      r.error = {
        code: BAD_ANSWER,
        type: "EmptyResponse",
        message: "the answer carried no text and no reasoning",
      };
    }
  }
}

async function readStream(
  body: ReadableStream<Uint8Array>,
  r: OpenResult,
  state: ReadState,
  timeout: RequestAbort,
  opts: SendOptions,
): Promise<void> {
  const events = new EventReader(r, state, opts.endpoint);
  const parser = new SseParser(events);

  const reader = body.getReader();
  try {
    await readEvents(reader, events, parser, r, state, timeout, opts);
  } finally {
    events.finish();
  }
}

async function readEvents(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  events: EventReader,
  parser: SseParser,
  r: OpenResult,
  state: ReadState,
  timeout: RequestAbort,
  opts: SendOptions,
): Promise<void> {
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      // Stamp the chunk before parsing it: every event it completes arrived now.
      if (events.stamp(performance.now())) await null;
      parser.push(value);
      if (events.stop) break;
    }
    if (!events.stop) {
      events.at = performance.now();
      parser.end();
    }
  } catch (e) {
    r.endPerf = performance.now();
    r.error = failure(e, timeout, opts.signal, opts.timeoutMs, r, "stream");
    reader.cancel().catch(() => {});
    return;
  }
  r.endPerf = performance.now();
  if (events.stop) {
    // An error ended the answer early: release the connection.
    reader.cancel().catch(() => {});
    return;
  }
  streamEnded(r, state, opts.endpoint);
}

/** A stream that ended cleanly but without its end marker was cut short. */
export function streamEnded(r: OpenResult, state: ReadState, endpoint: Endpoint): void {
  if (endpoint.expectsDoneMarker && !state.done) {
    r.error = {
      code: BAD_ANSWER,
      type: "StreamTruncated",
      message: "the stream ended before its end marker",
    };
  }
}

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

/** What an event without text, reasoning or anything else means. */
const NOTHING: Parsed = Object.freeze({});

/** The known events of `endpoint`'s streams, when it names volatile keys. */
function knownEventsOf(endpoint: Endpoint): KnownEvents | null {
  return endpoint.volatileKeys === undefined ? null : knownEventsFor(endpoint.volatileKeys);
}

/** Byte buffers that answers' text was collected in. */
const FIRST_BUFFER = 256;
const spareBytes = new Spares<Uint8Array>((n) => new Uint8Array(n), FIRST_BUFFER, 64 * 1024);

/** What opens an event of template `t`, up to its data: its `event:` line, if any, and `data: `. */
function eventLead(t: ChunkTemplate): string {
  return t.event === "" ? "data: " : `event: ${t.event}\ndata: `;
}

/** Decodes the collector's bytes, which are all ASCII: as UTF-8, the same characters, faster. */
const ascii = utf8Decoder;

/**
 * Turns SSE events into the result (it is the parser's {@link SseSink}): set `at` to the read's
 * time before pushing its bytes; `stop` turns true when an event ended the answer (an error
 * event, an unreadable event).
 */
export class EventReader implements SseSink {
  /** Arrival time stamped on the events being delivered. */
  at = 0;
  /** The answer ended with an error: read no further. */
  stop = false;
  #streamState: StreamState = {};
  /** Output text pieces: one flat string at the end costs less than a string grown per event. */
  #texts = new TextCollector();
  /** The template that `#head`, `#joint` and `#last` were made for. */
  #runTemplate: ChunkTemplate | undefined = undefined;
  /**
   * An event's lead (`data: `, after its `event:` line when typed) and the prefix; what ends an
   * event's data (the suffix, or what follows a counter after the text), the blank line and the
   * next event's head; what ends an event's data and the blank line.
   */
  #head = "";
  #joint = "";
  #last = "";
  /** The template whose joint is in `#slot` for `readRunBytes`, and the joint's parts' sizes. */
  #scanTemplate: ChunkTemplate | undefined = undefined;
  /**
   * The events this stream's endpoint has been seen to repeat (null when it names no volatile
   * keys), and the event the last `readRunBytes` stopped at, to be kept once read as text
   * (`#unknown[#unknownAt, #unknownEnd)`; `#unknownAt` -1 for none).
   */
  #known: KnownEvents | null;
  #unknown: Uint8Array | null = null;
  #unknownAt = -1;
  #unknownEnd = 0;
  /** The chunk `readRunBytes` is given was copied for the scan. */
  #chunkCopied = false;
  #slot = -1;
  /** Bytes of the joint and of its last part; -1 when the joint cannot be scanned. */
  #jointLength = -1;
  #lastLength = 0;
  #r: OpenResult;
  #state: ReadState;
  #endpoint: Endpoint;

  constructor(r: OpenResult, state: ReadState, endpoint: Endpoint) {
    this.#r = r;
    this.#state = state;
    this.#endpoint = endpoint;
    this.#known = knownEventsOf(endpoint);
  }

  /**
   * Readies the reader for another answer, after `finish` ended the last one: a request that
   * reuses its reader makes no new one, nor its text collector, for every answer.
   */
  reset(r: OpenResult, state: ReadState, endpoint: Endpoint): void {
    this.at = 0;
    this.stop = false;
    this.#streamState = {};
    this.#runTemplate = undefined;
    this.#head = "";
    this.#joint = "";
    this.#last = "";
    this.#r = r;
    this.#state = state;
    this.#endpoint = endpoint;
    this.#known = knownEventsOf(endpoint);
    this.#unknown = null;
    this.#unknownAt = -1;
  }

  /** Handles any event. */
  onEvent(event: SseEvent): void {
    if (this.stop) return;
    const r = this.#r;
    if (event.event === "error") {
      r.error = { code: BAD_ANSWER, type: "SSEError", message: sseErrorMessage(event) };
      this.stop = true;
      return;
    }
    let p: Parsed | null;
    try {
      p = this.#endpoint.parseEvent(event, this.#streamState);
    } catch (e) {
      r.error = {
        code: BAD_ANSWER,
        type: "InvalidResponse",
        message: `unreadable stream event (${errorText(e)}): ${excerpt(event.data)}`,
      };
      this.stop = true;
      return;
    }
    if (p !== null && !apply(r, p, this.at, this.#state, this.#texts)) this.stop = true;
  }

  /**
   * Reads a run of the commonest events where they lie in the read's text: `data:` lines (after
   * an `event:` line when the template's chunks are typed) that match the stream's text template
   * (`Endpoint.textTemplate`), each with plain JSON text. No string is made of an event or of its
   * text, and from one event's text to the next, what lies between (the template's suffix, the
   * blank line, the next event's lead and prefix, less a counter's digits) is compared as one
   * string. Stops at the first event it cannot read this way (or a partial one), which the parser
   * reads as usual.
   */
  readRun(s: string, at: number): number {
    if (this.stop) return at;
    const t = this.#endpoint.textTemplate?.(this.#streamState);
    if (t === undefined) return at;
    if (this.#runTemplate !== t) this.#prepareRun(t);
    const head = this.#head;
    let start = at + head.length;
    if (s.slice(at, start) !== head) return at;
    const counter = t.counter;
    // A counter before the text: its digits, then the rest of the prefix.
    const before = counter !== undefined && counter.inPrefix ? counter.rest : null;
    // A counter after the text: the suffix up to it, then its digits.
    const after = counter !== undefined && !counter.inPrefix ? t.suffix : null;
    const joint = this.#joint;
    const last = this.#last;
    let done = at;
    for (;;) {
      if (before !== null) {
        const d = digitsEnd(s, start);
        if (d === -1 || s.slice(d, d + before.length) !== before) return done;
        start = d + before.length;
      }
      // Plain text holds no quote: the first one closes it.
      const end = s.indexOf('"', start);
      if (end === -1) return done;
      let next = end;
      if (after !== null) {
        if (s.slice(end, end + after.length) !== after) return done;
        next = digitsEnd(s, end + after.length);
        if (next === -1) return done;
      }
      const more = s.slice(next, next + joint.length) === joint;
      if (!more && s.slice(next, next + last.length) !== last) return done;
      // No text: no response, as when `parseText` reads "".
      if (end > start) {
        if (!this.#texts.addPlain(s, start, end)) return done;
        stampResponse(this.#r, this.at, false);
      }
      t.reads++;
      done = next + last.length;
      if (!more) return done;
      start = next + joint.length;
    }
  }

  /**
   * `readRun` on a read's bytes (`SseSink.readRunBytes`): the same events, read the same way, by
   * the WebAssembly scan of `sse_scan.ts`, as long as their text is ASCII (an event whose text is
   * not is left to the parser, which decodes it). Templates with a counter are left to `readRun`.
   */
  readRunBytes(b: Uint8Array, from: number, at: number, to: number, fresh: boolean): number {
    if (this.stop) return -1;
    if (fresh) this.#chunkCopied = false;
    const known = this.#known;
    this.#unknownAt = -1;
    let pos = at;
    for (;;) {
      const done = this.#scan(b, from, pos, to);
      if (done >= to) return done;
      if (done > pos) pos = done;
      // An event the scan does not read may be one the stream's server sent before (KnownEvents).
      if (known === null) return pos > at ? pos : done;
      const p = known.matchAt(b, pos, to);
      const end = p !== null ? known.matchedEnd : blankLineEnd(b, pos, to);
      if (p === null) {
        if (end !== -1 && this.#adoptKnown(known, b, pos, end)) {
          pos = end;
          if (pos >= to) return pos;
          continue;
        }
        if (end !== -1) {
          // Read as text next (by `onTyped`), then kept.
          this.#unknown = b;
          this.#unknownAt = pos;
          this.#unknownEnd = end;
        }
        return pos > at ? pos : done;
      }
      if (!apply(this.#r, p, this.at, this.#state, this.#texts)) {
        this.stop = true;
        return end;
      }
      pos = end;
      if (pos >= to) return pos;
    }
  }

  /**
   * Reads the event `b[at, end)` as the stream's first text chunk when it is an instance of a
   * template an earlier answer set (`KnownEvents.matchTemplate`): the template is made this
   * stream's (`Endpoint.adoptTemplate`) and its text read, as reading the event as text would
   * have done, without decoding it or checking its JSON's shape again. False when it is not one.
   */
  #adoptKnown(known: KnownEvents, b: Uint8Array, at: number, end: number): boolean {
    const endpoint = this.#endpoint;
    if (endpoint.adoptTemplate === undefined) return false;
    if (endpoint.textTemplate?.(this.#streamState) !== undefined) return false;
    const k = known.matchTemplate(b, at, end);
    if (k === null) return false;
    const from = at + k.bytes.length;
    const textEnd = known.textEnd;
    // A chunk without text sets no template when read as text (see chat's structuralChunk).
    if (textEnd === from) return false;
    const t: ChunkTemplate = {
      prefix: ascii.decode(b.subarray(at + DATA_LEAD, from)),
      suffix: k.suffix,
      reads: 1,
      event: "",
    };
    endpoint.adoptTemplate(this.#streamState, t);
    // The scan's joint from the bytes at hand, rather than encoded from the template's strings.
    if (this.#slot < 0) this.#slot = takeSlot();
    this.#scanTemplate = t;
    this.#jointLength = writeJointBytes(this.#slot, k.suffixBytes, b, at, from);
    this.#lastLength = k.suffixBytes.length + 2;
    this.#texts.addAscii(b, from, textEnd - from);
    stampResponse(this.#r, this.at, false);
    return true;
  }

  /**
   * The scan of the template's run at `at` (see `readRunBytes`): where it stopped, or -1 when it
   * cannot read this stream's events now (no template yet, a counter, a joint too long).
   */
  #scan(b: Uint8Array, from: number, at: number, to: number): number {
    const t = this.#endpoint.textTemplate?.(this.#streamState);
    if (t === undefined || t.counter !== undefined) return -1;
    if (this.#scanTemplate !== t) this.#prepareScan(t);
    if (this.#jointLength < 0) return -1;
    const fresh = !this.#chunkCopied;
    this.#chunkCopied = true;
    const done = scanRun(b, from, to, fresh, at, this.#slot, this.#jointLength, this.#lastLength);
    if (done <= at) return done;
    const found = scanned();
    t.reads += found.events;
    if (found.length > 0) this.#texts.addAscii(found.bytes, found.from, found.length);
    for (let i = 0; i < found.texts; i++) stampResponse(this.#r, this.at, false);
    return done;
  }

  /** Puts template `t`'s joint in this answer's slot of the scan's memory. */
  #prepareScan(t: ChunkTemplate): void {
    const lead = eventLead(t);
    const last = t.suffix + "\n\n";
    this.#scanTemplate = t;
    if (this.#slot < 0) this.#slot = takeSlot();
    this.#jointLength = writeJoint(this.#slot, last + lead + t.prefix);
    this.#lastLength = utf8Length(last);
  }

  /** Makes the strings `readRun` compares for template `t`. */
  #prepareRun(t: ChunkTemplate): void {
    const lead = eventLead(t);
    // What ends an event's data: the suffix, or with a counter after the text, what follows it.
    const end = t.counter !== undefined && !t.counter.inPrefix ? t.counter.rest : t.suffix;
    this.#runTemplate = t;
    this.#head = ownCopy(lead + t.prefix);
    this.#joint = ownCopy(end + "\n\n" + lead + t.prefix);
    this.#last = ownCopy(end + "\n\n");
  }

  /**
   * Handles an event that is one `data:` line, after one `event:` line or none. An endpoint's
   * `parseText` reads its common text chunk here without building event or result objects;
   * anything else takes the general path.
   */
  onTyped(event: string, data: string): void {
    if (this.stop) return;
    const parseText = this.#endpoint.parseText;
    if (parseText !== undefined && event !== "error") {
      const template = this.#known === null
        ? undefined
        : this.#endpoint.textTemplate?.(this.#streamState);
      let read: string | Parsed | null;
      try {
        read = parseText(data, this.#streamState, event);
      } catch {
        // The general path reads it again and reports why it cannot.
        read = null;
      }
      if (typeof read === "string") {
        if (read === "") this.#keep(event, data, template, NOTHING);
        else this.#learnTemplate(event, data, template);
        addResponse(this.#r, this.at, read, undefined, this.#texts);
        return;
      }
      if (read !== null) {
        if (read.text === undefined && read.reasoning === undefined && read.error === undefined) {
          this.#keep(event, data, template, read);
        }
        if (!apply(this.#r, read, this.at, this.#state, this.#texts)) this.stop = true;
        return;
      }
    }
    this.#unknownAt = -1;
    this.onEvent({ event, data });
  }

  /**
   * Keeps the template that reading the event the scan last stopped at (see `readRunBytes`) as
   * `data` set, when it set one (the stream had `before`), for later answers' first text chunks.
   */
  #learnTemplate(event: string, data: string, before: ChunkTemplate | undefined): void {
    const at = this.#stoppedAt(event, data);
    if (at === -1 || this.#endpoint.adoptTemplate === undefined) return;
    const t = this.#endpoint.textTemplate?.(this.#streamState);
    if (t === undefined || t === before) return;
    this.#known!.learnTemplate(this.#unknown!, at, this.#unknownEnd, t);
  }

  /**
   * Where the event the scan last stopped at starts, when the event just read as text (`event`,
   * `data`) is that one, an untyped `data:` line, and known events are kept; else -1. Either way
   * that event is then forgotten.
   */
  #stoppedAt(event: string, data: string): number {
    const at = this.#unknownAt;
    this.#unknownAt = -1;
    return at === -1 || event !== "" || this.#known === null ||
        this.#unknownEnd - at !== data.length + DATA_LEAD + 2
      ? -1
      : at;
  }

  /**
   * Keeps the event the scan last stopped at (see `readRunBytes`), now read as `data` and meaning
   * `parsed`, among the known events: when it is that event (one `data:` line of the same length),
   * and its reading did not set the stream's template (which a later answer must learn again).
   */
  #keep(event: string, data: string, template: ChunkTemplate | undefined, parsed: Parsed): void {
    const at = this.#stoppedAt(event, data);
    if (at === -1 || this.#endpoint.textTemplate?.(this.#streamState) !== template) return;
    this.#known!.learn(this.#unknown!, at, this.#unknownEnd, parsed);
  }

  /**
   * Stamps the events of the read that just arrived with `at`, when it arrived. True unless
   * reading has stopped: the caller then parses the read a turn later, so that the reads of other
   * streams that arrived at the same moment (the mock's or a server's timers firing together) are
   * all stamped before any of them is parsed; their first tokens and inter-token times would
   * otherwise grow with their place in the burst.
   */
  stamp(at: number): boolean {
    this.at = at;
    return !this.stop;
  }

  /** Moves the text read so far into the result; call once reading has ended, however it ended. */
  finish(): void {
    if (this.#slot >= 0) {
      releaseSlot(this.#slot);
      this.#slot = -1;
      this.#scanTemplate = undefined;
      this.#jointLength = -1;
    }
    const text = this.#texts.take();
    if (text !== "") {
      this.#r.outputText += text;
    }
  }
}

async function readWhole(
  res: Response,
  r: OpenResult,
  state: ReadState,
  timeout: RequestAbort,
  opts: SendOptions,
): Promise<void> {
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    r.endPerf = performance.now();
    r.error = failure(e, timeout, opts.signal, opts.timeoutMs, r, "body");
    return;
  }
  r.endPerf = performance.now();
  applyBody(r, state, opts.endpoint, text);
}

/** Reads a whole (non-SSE) answer body; `r.endPerf` must already be set. */
export function applyBody(r: OpenResult, state: ReadState, endpoint: Endpoint, text: string): void {
  let p: Parsed;
  try {
    p = endpoint.parseBody ? endpoint.parseBody(text) : endpoint.parseResponse(JSON.parse(text));
  } catch (e) {
    r.error = {
      code: BAD_ANSWER,
      type: "InvalidResponse",
      message: `unreadable answer (${errorText(e)}): ${excerpt(text)}`,
    };
    return;
  }
  if (p.error) {
    r.error = {
      code: p.error.code ?? BAD_ANSWER,
      type: "HTTPError",
      message: truncate(p.error.message),
    };
    return;
  }
  apply(r, p, r.endPerf, state);
}
