/**
 * `profile_export.jsonl`: one line per finished request, appended as it finishes, so that a
 * crash or Ctrl+C leaves every finished request on disk.
 */

import { dirname } from "node:path";
import type { RequestRecord } from "../record/record.ts";
import { putBytes, putByteString } from "../util/bytes.ts";
import { fast } from "../util/fast_paths.ts";
import { plainRecordLine } from "./record_line_plain.ts";
import {
  EPOCH_BYTES,
  MAX_NUMBER_BYTES,
  putEpoch,
  putPlainString,
  whole,
  wholeDivisor,
  wholeNumbers,
  writeNumbers,
  writeWhole,
} from "./json_digits.ts";
import {
  displayDivisor,
  METRICS,
  RECORD_DEFS,
  type RecordMetrics,
  type RecordValues,
} from "../metrics/definitions.ts";

/** How long a finished line may wait in memory before it is written. */
const FLUSH_MS = 100;
/** Bytes buffered before a write. */
const MAX_BUFFER = 64 * 1024;

/** Encodes the line's text: its constant parts once, and text that is not plain ASCII. */
const encoder = new TextEncoder();

/** Epoch ns of an offset from the request start, as exact integer digits. */
function epochNs(start: bigint, offsetNs: number): string {
  return (start + BigInt(Math.round(offsetNs))).toString();
}

/** Constant JSON text of a line, with its bytes (ASCII: one byte a character). */
interface Piece {
  text: string;
  bytes: Uint8Array;
}

function piece(text: string): Piece {
  return { text, bytes: encoder.encode(text) };
}

/** How one record metric is written: the JSON text around its value, and its unit divisor. */
interface LineMetric {
  /** `"tag":{"value":` */
  head: Piece;
  /** `,"tag":{"value":`: the head after another metric. */
  nextHead: Piece;
  /** `,"unit":"ms"}` */
  tail: Piece;
  /** Base unit over display unit (1 when they are the same). */
  divisor: number;
}

/** The metrics a line carries: those with per-request values, by tag. */
const LINE_METRICS = new Map<string, LineMetric>(
  METRICS.filter((def) => !def.flags.includes("no_individual_records")).map((def) => [
    def.tag,
    {
      head: piece(`${JSON.stringify(def.tag)}:{"value":`),
      nextHead: piece(`,${JSON.stringify(def.tag)}:{"value":`),
      tail: piece(`,"unit":${JSON.stringify(def.displayUnit)}}`),
      divisor: displayDivisor(def),
    },
  ]),
);

/** The line metrics by position in RECORD_DEFS (`RecordValues`); null for one a line leaves out. */
const LINE_BY_INDEX: readonly (LineMetric | null)[] = RECORD_DEFS.map((def) =>
  LINE_METRICS.get(def.tag) ?? null
);

/** The constant parts of a line, in order. */
const SESSION_NUM = piece(`{"metadata":{"session_num":`);
const X_REQUEST_ID = piece(`,"x_request_id":`);
const X_CORRELATION_ID = piece(`,"x_correlation_id":`);
const CONVERSATION_ID = piece(`,"conversation_id":`);
const TURN_INDEX = piece(`,"turn_index":`);
const REQUEST_START_NS = piece(`,"request_start_ns":`);
const REQUEST_ACK_NS = piece(`,"request_ack_ns":`);
const REQUEST_END_NS = piece(`,"request_end_ns":`);
const WORKER_ID = piece(`,"worker_id":"worker_`);
// One process measures every record; AIPerf readers expect the field.
const PROCESSOR_PHASE = piece(`","record_processor_id":"record_processor_0","benchmark_phase":`);
const WAS_CANCELLED = piece(`,"was_cancelled":`);
const CANCELLATION_TIME_NS = piece(`,"cancellation_time_ns":`);
const INTENDED_START_NS = piece(`,"intended_start_ns":`);
const METRICS_OPEN = piece(`},"metrics":{`);
const ERROR_OPEN = piece(`},"error":`);
const LINE_END = piece("}");
const NULL = piece("null");
const TRUE = piece("true");
const FALSE = piece("false");

/**
 * Where a line goes, in pieces. A line is built once, by `buildLine`, for both the string
 * `recordLine` returns and the bytes the writer puts in its buffer.
 */
interface LineSink {
  /** Appends constant JSON text. */
  piece(p: Piece): void;
  /** Appends JSON text known to be ASCII (digits of a number). */
  ascii(s: string): void;
  /** Appends the epoch ns `start + Math.round(offsetNs)` as exact integer digits. */
  epoch(start: bigint, offsetNs: number): void;
  /** Appends `s` as a JSON string, quoted and escaped as `JSON.stringify` writes it. */
  string(s: string): void;
  /** Appends any JSON text. */
  text(s: string): void;
  /** Appends `String(n)`. */
  int(n: number): void;
  /** Appends `value / divisor` as JSON writes it (`null` when not finite). */
  number(value: number, divisor: number): void;
  /** Appends `values[i] / divisor` for each i as the JSON array `JSON.stringify` writes. */
  numbers(values: ArrayLike<number>, divisor: number): void;
}

/** A number as JSON writes it: `null` when it is not finite. */
function jsonNumber(x: number): string {
  return Number.isFinite(x) ? "" + x : "null";
}

/**
 * The line of one record into `out`: `{metadata, metrics, error}` as AIPerf writes it, metrics
 * in display units, in the order `metrics` lists them. Metrics are written directly rather than
 * through an object and `JSON.stringify`, with the same text: numbers as JSON writes them, a
 * list as a JSON array.
 */
function buildLine(rec: RequestRecord, metrics: RecordMetrics, out: LineSink): void {
  lineHead(rec, out);
  let first = true;
  for (const tag in metrics) {
    const lm = LINE_METRICS.get(tag);
    if (lm === undefined) continue;
    lineMetric(lm, metrics[tag], first, out);
    first = false;
  }
  lineEnd(rec, out);
}

/**
 * What lies between the values of line metrics `i` and `j` (by position), `i`'s tail and `j`'s
 * head as one piece, made as each pair is first met: a line's metrics are mostly the same from
 * one record to the next, and one piece is copied at about the cost of either of its halves.
 */
const JOINTS: (Piece | undefined)[] = new Array(LINE_BY_INDEX.length * LINE_BY_INDEX.length);

function joint(i: number, j: number): Piece {
  const k = i * LINE_BY_INDEX.length + j;
  return JOINTS[k] ??= piece(LINE_BY_INDEX[i]!.tail.text + LINE_BY_INDEX[j]!.nextHead.text);
}

/** The line metric at position `i` when `values` has a value there and lines carry it; else null. */
function lineMetricOf(values: RecordValues, i: number): LineMetric | null {
  return values[i] === undefined ? null : LINE_BY_INDEX[i];
}

/** {@link buildLine} for metrics by position (`RecordValues`), in table order. */
function buildValuesLine(rec: RequestRecord, values: RecordValues, out: LineSink): void {
  lineHead(rec, out);
  let prev = -1;
  for (let i = 0; i < LINE_BY_INDEX.length; i++) {
    const lm = lineMetricOf(values, i);
    if (lm === null) continue;
    const v = values[i]!;
    out.piece(prev === -1 ? lm.head : joint(prev, i));
    if (typeof v === "number") out.number(v, lm.divisor);
    else out.numbers(v, lm.divisor);
    prev = i;
  }
  if (prev !== -1) out.piece(LINE_BY_INDEX[prev]!.tail);
  lineEnd(rec, out);
}

/** A line's metadata, up to where its metrics start. */
function lineHead(rec: RequestRecord, out: LineSink): void {
  out.piece(SESSION_NUM);
  out.int(rec.sessionNum);
  out.piece(X_REQUEST_ID);
  out.string(rec.requestId);
  out.piece(X_CORRELATION_ID);
  out.string(rec.correlationId);
  out.piece(CONVERSATION_ID);
  out.string(rec.conversationId);
  out.piece(TURN_INDEX);
  out.int(rec.turnIndex);
  const start = rec.startNs;
  out.piece(REQUEST_START_NS);
  out.epoch(start, 0);
  out.piece(REQUEST_ACK_NS);
  if (rec.ackNs === null) out.piece(NULL);
  else out.epoch(start, rec.ackNs);
  out.piece(REQUEST_END_NS);
  out.epoch(start, rec.endNs);
  out.piece(WORKER_ID);
  out.int(rec.workerId);
  out.piece(PROCESSOR_PHASE);
  out.string(rec.phase);
  out.piece(WAS_CANCELLED);
  out.piece(rec.cancelled ? TRUE : FALSE);
  // The request's end is when a cancelled request was cut off.
  out.piece(CANCELLATION_TIME_NS);
  if (rec.cancelled) out.epoch(start, rec.endNs);
  else out.piece(NULL);
  const intended = rec.intendedStartNs;
  if (intended !== null) {
    out.piece(INTENDED_START_NS);
    // Most requests are meant when they start: the start's digits again.
    if (intended === start) out.epoch(start, 0);
    else out.ascii(intended.toString());
  }
  out.piece(METRICS_OPEN);
}

/** One metric of a line, after another unless `first`. */
function lineMetric(lm: LineMetric, v: number | number[], first: boolean, out: LineSink): void {
  out.piece(first ? lm.head : lm.nextHead);
  if (typeof v === "number") out.number(v, lm.divisor);
  else out.numbers(v, lm.divisor);
  out.piece(lm.tail);
}

/** A line's error and its end. */
function lineEnd(rec: RequestRecord, out: LineSink): void {
  out.piece(ERROR_OPEN);
  if (rec.error === null) out.piece(NULL);
  else {
    out.text(
      JSON.stringify({ code: rec.error.code, type: rec.error.type, message: rec.error.message }),
    );
  }
  out.piece(LINE_END);
}

/** `values[i] / divisor` for each i, as the JSON array `JSON.stringify` writes. */
function numbersJson(values: ArrayLike<number>, divisor: number): string {
  const xs = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) xs[i] = values[i] / divisor;
  return JSON.stringify(xs);
}

/**
 * One line of `profile_export.jsonl` (without the newline): `{metadata, metrics, error}` as
 * AIPerf writes it, metrics in display units. `*_ns` fields are epoch nanoseconds written as
 * exact JSON integers (they exceed what a JSON number read as a double can hold exactly).
 */
export function recordLine(rec: RequestRecord, metrics: RecordMetrics): string {
  let line = "";
  buildLine(rec, metrics, {
    piece(p) {
      line += p.text;
    },
    ascii(s) {
      line += s;
    },
    epoch(start, offsetNs) {
      line += epochNs(start, offsetNs);
    },
    string(s) {
      line += JSON.stringify(s);
    },
    text(s) {
      line += s;
    },
    int(n) {
      line += n;
    },
    number(value, divisor) {
      line += jsonNumber(value / divisor);
    },
    numbers(values, divisor) {
      line += numbersJson(values, divisor);
    },
  });
  return line;
}

/**
 * Bytes a line's fast path may write between two checks of its room: a constant piece (two
 * metrics' joint at the longest) and a number (a whole one, or as JSON writes it: at most 25),
 * or a few metadata pieces, epochs and integers.
 */
const FAST_MARGIN = 128 + Math.max(
  PROCESSOR_PHASE.bytes.length,
  ...LINE_BY_INDEX.map((lm) => lm === null ? 0 : lm.tail.bytes.length + lm.nextHead.bytes.length),
);

/** Options of a record writer. */
export interface RecordWriterOptions {
  /** Longest time a line waits in memory, in ms. Default 100. */
  flushMs?: number;
  /** Size of the buffer lines are encoded into; a full one is written at once. Default 64 KiB. */
  maxBufferBytes?: number;
}

/**
 * Appends one line per finished request to `profile_export.jsonl`. The file is opened once;
 * lines are encoded straight into one reusable byte buffer (no joined string, no new bytes per
 * write) and written at least every `flushMs`, when the buffer fills, and on `flush()`/`close()`.
 * Writes are synchronous so that nothing buffered is lost to an exit right after `close()`.
 */
export class RecordWriter {
  #file: Deno.FsFile;
  #buf: Uint8Array;
  #used = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushMs: number;
  #failure: unknown = null;
  #closed = false;
  #lines = 0;
  /** The last epoch start `#epoch` was given, as whole seconds and the ns past them. */
  #start: bigint | null = null;
  #startS = 0;
  #startNs = 0;

  private constructor(file: Deno.FsFile, opts: RecordWriterOptions) {
    this.#file = file;
    this.#flushMs = opts.flushMs ?? FLUSH_MS;
    // Room for at least a few numbers of a list between writes.
    this.#buf = new Uint8Array(Math.max(2 * MAX_NUMBER_BYTES, opts.maxBufferBytes ?? MAX_BUFFER));
  }

  /** Creates (or truncates) the file at `path`, creating its directory. */
  static async open(path: string, opts: RecordWriterOptions = {}): Promise<RecordWriter> {
    await Deno.mkdir(dirname(path), { recursive: true });
    const file = await Deno.open(path, { write: true, create: true, truncate: true });
    return new RecordWriter(file, opts);
  }

  /** Lines written or buffered so far. */
  get lines(): number {
    return this.#lines;
  }

  /** Queues the line of one finished request, encoded straight into the buffer. */
  write(rec: RequestRecord, metrics: RecordMetrics): void {
    this.#begin();
    buildLine(rec, metrics, this.#sink);
    this.#end();
  }

  /** {@link write} with the request's metrics by position (`computeRecordValues`). */
  writeValues(rec: RequestRecord, values: RecordValues): void {
    if (!fast("record-writer")) {
      this.writeLine(plainRecordLine(rec, values));
      return;
    }
    this.#begin();
    if (!this.#fastValuesLine(rec, values)) buildValuesLine(rec, values, this.#sink);
    this.#end();
  }

  /**
   * `buildValuesLine` for the common line, the same bytes: the buffer and the place in it in
   * locals, pieces and numbers written by plain functions rather than a call through the sink
   * each, the room checked before each part rather than for every piece, the start's digits
   * copied for an intended start that is the start. False, with nothing kept of what it wrote,
   * for a line of another kind (an error, a string JSON escapes or that is not ASCII, epochs
   * outside the digit path, a list of numbers that are not whole) or one that does not fit in
   * the buffer's room, even once the buffer is written out.
   */
  #fastValuesLine(rec: RequestRecord, values: RecordValues): boolean {
    if (rec.error !== null || !this.#splitStart(rec.startNs)) return false;
    let end = this.#valuesLineAt(rec, values, this.#used);
    if (end === -2 && this.#used > 0) {
      // Out of room: once more at the start of the buffer, what is queued written out first.
      this.flush();
      end = this.#valuesLineAt(rec, values, 0);
    }
    if (end < 0) return false;
    this.#used = end;
    return true;
  }

  /**
   * Writes the line of `rec` (see `#fastValuesLine`) at `at`; returns its end, -1 for a line of
   * another kind, -2 when it does not fit.
   */
  #valuesLineAt(rec: RequestRecord, values: RecordValues, at: number): number {
    const buf = this.#buf;
    const limit = buf.length - FAST_MARGIN;
    const startS = this.#startS;
    const startNs = this.#startNs;
    if (at > limit) return -2;
    at = putBytes(buf, at, SESSION_NUM.bytes);
    at = whole(rec.sessionNum)
      ? writeWhole(buf, at, rec.sessionNum, 1)
      : putByteString(buf, at, "" + rec.sessionNum);
    // Three strings, each checked for room and written with the piece before it.
    if (at + rec.requestId.length > limit) return -2;
    at = putPlainString(buf, putBytes(buf, at, X_REQUEST_ID.bytes), rec.requestId);
    if (at < 0) return -1;
    if (at + rec.correlationId.length > limit) return -2;
    at = putPlainString(buf, putBytes(buf, at, X_CORRELATION_ID.bytes), rec.correlationId);
    if (at < 0) return -1;
    if (at + rec.conversationId.length > limit) return -2;
    at = putPlainString(buf, putBytes(buf, at, CONVERSATION_ID.bytes), rec.conversationId);
    if (at < 0) return -1;
    at = putBytes(buf, at, TURN_INDEX.bytes);
    at = whole(rec.turnIndex)
      ? writeWhole(buf, at, rec.turnIndex, 1)
      : putByteString(buf, at, "" + rec.turnIndex);
    if (at > limit) return -2;
    at = putBytes(buf, at, REQUEST_START_NS.bytes);
    const startAt = at;
    at = putEpoch(buf, at, startS, startNs, 0);
    const startEnd = at;
    at = putBytes(buf, at, REQUEST_ACK_NS.bytes);
    if (rec.ackNs === null) at = putBytes(buf, at, NULL.bytes);
    else if ((at = putEpoch(buf, at, startS, startNs, rec.ackNs)) < 0) return -1;
    if (at > limit) return -2;
    at = putBytes(buf, at, REQUEST_END_NS.bytes);
    if ((at = putEpoch(buf, at, startS, startNs, rec.endNs)) < 0) return -1;
    at = putBytes(buf, at, WORKER_ID.bytes);
    at = whole(rec.workerId)
      ? writeWhole(buf, at, rec.workerId, 1)
      : putByteString(buf, at, "" + rec.workerId);
    if (at + rec.phase.length > limit) return -2;
    at = putBytes(buf, at, PROCESSOR_PHASE.bytes);
    if ((at = putPlainString(buf, at, rec.phase)) < 0) return -1;
    if (at > limit) return -2;
    at = putBytes(buf, at, WAS_CANCELLED.bytes);
    at = putBytes(buf, at, rec.cancelled ? TRUE.bytes : FALSE.bytes);
    at = putBytes(buf, at, CANCELLATION_TIME_NS.bytes);
    if (!rec.cancelled) at = putBytes(buf, at, NULL.bytes);
    else if ((at = putEpoch(buf, at, startS, startNs, rec.endNs)) < 0) return -1;
    const intended = rec.intendedStartNs;
    if (intended !== null) {
      if (at > limit) return -2;
      at = putBytes(buf, at, INTENDED_START_NS.bytes);
      if (intended === rec.startNs) {
        // The start's digits again.
        for (let i = startAt; i < startEnd; i++) buf[at++] = buf[i];
      } else at = putByteString(buf, at, intended.toString());
    }
    if (at > limit) return -2;
    at = putBytes(buf, at, METRICS_OPEN.bytes);
    let prev = -1;
    for (let i = 0; i < LINE_BY_INDEX.length; i++) {
      const lm = lineMetricOf(values, i);
      if (lm === null) continue;
      const v = values[i]!;
      if (at > limit) return -2;
      at = putBytes(buf, at, prev === -1 ? lm.head.bytes : joint(prev, i).bytes);
      const divisor = lm.divisor;
      if (typeof v === "number") {
        at = whole(v) && wholeDivisor(divisor)
          ? writeWhole(buf, at, v, divisor)
          : putByteString(buf, at, jsonNumber(v / divisor));
      } else {
        if (!wholeNumbers(v, divisor)) return -1;
        if (at + 2 + v.length * MAX_NUMBER_BYTES > limit) return -2;
        buf[at++] = 91; // [
        for (let k = 0; k < v.length; k++) {
          if (k > 0) buf[at++] = 44; // ,
          at = writeWhole(buf, at, v[k], divisor);
        }
        buf[at++] = 93; // ]
      }
      prev = i;
    }
    if (at > limit) return -2;
    if (prev !== -1) at = putBytes(buf, at, LINE_BY_INDEX[prev]!.tail.bytes);
    at = putBytes(buf, at, ERROR_OPEN.bytes);
    at = putBytes(buf, at, NULL.bytes);
    return putBytes(buf, at, LINE_END.bytes);
  }

  /** Queues one line of text (without its newline). */
  writeLine(line: string): void {
    this.#begin();
    // With its newline: a line longer than the buffer is then written whole at once.
    this.#text(line + "\n");
    this.#timed();
  }

  /**
   * The sink `buildLine` writes a record's line into: this writer's buffer, byte by byte where
   * the text is ASCII, without building the line's text first.
   */
  #sink: LineSink = {
    piece: (p) => this.#bytes(p.bytes),
    ascii: (s) => this.#ascii(s),
    epoch: (start, offsetNs) => this.#epoch(start, offsetNs),
    string: (s) => {
      if (!this.#plainString(s)) this.#text(JSON.stringify(s));
    },
    text: (s) => this.#text(s),
    int: (n) => {
      if (whole(n)) {
        this.#used = writeWhole(this.#buf, this.#room(this.#used), n, 1);
      } else this.#ascii("" + n);
    },
    number: (value, divisor) => {
      if (whole(value) && wholeDivisor(divisor)) {
        this.#used = writeWhole(this.#buf, this.#room(this.#used), value, divisor);
      } else this.#ascii(jsonNumber(value / divisor));
    },
    numbers: (values, divisor) => {
      if (wholeNumbers(values, divisor)) {
        this.#used = writeNumbers(this.#buf, this.#used, values, divisor, this.#room);
      } else this.#text(numbersJson(values, divisor));
    },
  };

  /** Appends bytes; bytes longer than the buffer are written out at once, after what is queued. */
  #bytes(b: Uint8Array): void {
    const buf = this.#buf;
    if (this.#used + b.length > buf.length) {
      this.flush();
      if (b.length > buf.length) {
        this.#writeAll(b);
        return;
      }
    }
    this.#used = putBytes(buf, this.#used, b);
  }

  /** Appends the epoch ns `start + Math.round(offsetNs)`, as `epochNs` writes it (`putEpoch`). */
  #epoch(start: bigint, offsetNs: number): void {
    if (this.#splitStart(start)) {
      if (this.#used + EPOCH_BYTES > this.#buf.length) this.flush();
      const end = putEpoch(this.#buf, this.#used, this.#startS, this.#startNs, offsetNs);
      if (end >= 0) {
        this.#used = end;
        return;
      }
    }
    // Outside 0..2^63, or an offset beyond 2^52 ns (52 days, not what a request takes): BigInt.
    this.#ascii(epochNs(start, offsetNs));
  }

  /**
   * Notes `start` as whole seconds and the ns past them (`#startS`, `#startNs`), unless it is the
   * start noted last; false, noting nothing, for a start outside 0..2^63 (written by BigInt).
   */
  #splitStart(start: bigint): boolean {
    if (start === this.#start) return true;
    if (start < 0n || start >= 1n << 63n) return false;
    const s = start / 1_000_000_000n;
    this.#start = start;
    this.#startS = Number(s);
    this.#startNs = Number(start - s * 1_000_000_000n);
    return true;
  }

  /** Appends text whose characters are all ASCII, one byte each. */
  #ascii(s: string): void {
    const buf = this.#buf;
    if (this.#used + s.length > buf.length) {
      this.#text(s);
      return;
    }
    this.#used = putByteString(buf, this.#used, s);
  }

  /**
   * Appends `s` quoted, as `JSON.stringify` writes it, when each of its characters stands for
   * itself (printable ASCII other than `"` and `\`) and it fits in the buffer; else false,
   * having written nothing.
   */
  #plainString(s: string): boolean {
    const buf = this.#buf;
    if (this.#used + s.length + 2 > buf.length) return false;
    const end = putPlainString(buf, this.#used, s);
    if (end < 0) return false;
    this.#used = end;
    return true;
  }

  /** Where a number goes on: at `at`, or at 0 once the buffer is written out to make room. */
  #room = (at: number): number => {
    if (at + MAX_NUMBER_BYTES <= this.#buf.length) return at;
    this.#used = at;
    this.flush();
    return 0;
  };

  #begin(): void {
    this.#rethrow();
    if (this.#closed) throw new Error("profile_export.jsonl writer is closed");
    this.#lines++;
  }

  /**
   * Appends text. A character is at most 3 UTF-8 bytes: text that may not fit goes after what
   * is queued, and text longer than the buffer is written at once.
   */
  #text(s: string): void {
    if (this.#used + s.length * 3 > this.#buf.length) {
      this.flush();
      if (s.length * 3 > this.#buf.length) {
        this.#writeAll(encoder.encode(s));
        return;
      }
    }
    this.#used += encoder.encodeInto(s, this.#buf.subarray(this.#used)).written;
  }

  /** Ends a line: its newline, and a timed flush if none is pending. */
  #end(): void {
    if (this.#used === this.#buf.length) this.flush();
    this.#buf[this.#used++] = 10;
    this.#timed();
  }

  /** Starts the timer that writes what is queued, unless one is pending. */
  #timed(): void {
    if (this.#timer === undefined) {
      const timer = setTimeout(() => {
        this.#timer = undefined;
        try {
          this.flush();
        } catch (e) {
          // Reported by the next write or close: a timer has no caller to throw to.
          this.#failure = e;
        }
      }, this.#flushMs);
      // A pending flush must not keep the program alive; close() flushes anyway.
      Deno.unrefTimer(timer);
      this.#timer = timer;
    }
  }

  /** Writes everything buffered now. */
  flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#used === 0 || this.#closed) return;
    const used = this.#used;
    this.#used = 0;
    this.#writeAll(this.#buf.subarray(0, used));
  }

  #writeAll(data: Uint8Array): void {
    let off = 0;
    while (off < data.length) off += this.#file.writeSync(data.subarray(off));
  }

  /** Flushes and closes the file. Further writes throw. */
  close(): void {
    if (this.#closed) return;
    try {
      this.flush();
    } finally {
      this.#closed = true;
      this.#file.close();
    }
    this.#rethrow();
  }

  /** Throws a failure of a timed flush. */
  #rethrow(): void {
    if (this.#failure !== null) {
      const e = this.#failure;
      this.#failure = null;
      throw e;
    }
  }
}
