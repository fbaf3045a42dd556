/**
 * `profile_export.jsonl`: one line per finished request, appended as it finishes, so that a
 * crash or Ctrl+C leaves every finished request on disk.
 */

import { dirname } from "node:path";
import type { RequestRecord } from "../load/record.ts";
import { displayDivisor, METRICS, type RecordMetrics } from "../metrics/definitions.ts";

/** How long a finished line may wait in memory before it is written. */
const FLUSH_MS = 100;
/** Bytes buffered before a write. */
const MAX_BUFFER = 64 * 1024;

/** Epoch ns of an offset from the request start, as exact integer digits. */
function epochNs(start: bigint, offsetNs: number): string {
  return (start + BigInt(Math.round(offsetNs))).toString();
}

/** How one record metric is written: the JSON text around its value, and its unit divisor. */
interface LineMetric {
  /** `"tag":{"value":` */
  head: string;
  /** `,"unit":"ms"}` */
  tail: string;
  /** Base unit over display unit (1 when they are the same). */
  divisor: number;
}

/** The metrics a line carries: those with per-request values, by tag. */
const LINE_METRICS = new Map<string, LineMetric>(
  METRICS.filter((def) => !def.flags.includes("no_individual_records")).map((def) => [
    def.tag,
    {
      head: `${JSON.stringify(def.tag)}:{"value":`,
      tail: `,"unit":${JSON.stringify(def.displayUnit)}}`,
      divisor: displayDivisor(def),
    },
  ]),
);

/**
 * Where a line goes, in pieces: JSON text, and lists of numbers. A line is built once, by
 * `buildLine`, for both the string `recordLine` returns and the bytes the writer encodes.
 */
interface LineSink {
  /** Appends JSON text. */
  text(s: string): void;
  /** Appends `values[i] / divisor` for each i as the JSON array `JSON.stringify` writes. */
  numbers(values: ArrayLike<number>, divisor: number): void;
}

/** A number as JSON writes it: `null` when it is not finite. */
function jsonNumber(x: number): string {
  return Number.isFinite(x) ? "" + x : "null";
}

/**
 * The line of one record into `out`: `{metadata, metrics, error}` as AIPerf writes it, metrics
 * in display units. Text runs are joined into one string between lists, so the sink gets few
 * pieces. Metrics are written directly rather than through an object and `JSON.stringify`, with
 * the same text: numbers as JSON writes them, a list as a JSON array.
 */
function buildLine(rec: RequestRecord, metrics: RecordMetrics, out: LineSink): void {
  const s = JSON.stringify;
  const end = epochNs(rec.startNs, rec.endNs);
  let text = `{"metadata":{"session_num":${rec.sessionNum}` +
    `,"x_request_id":${s(rec.requestId)}` +
    `,"x_correlation_id":${s(rec.correlationId)}` +
    `,"conversation_id":${s(rec.conversationId)}` +
    `,"turn_index":${rec.turnIndex}` +
    `,"request_start_ns":${rec.startNs.toString()}` +
    `,"request_ack_ns":${rec.ackNs === null ? "null" : epochNs(rec.startNs, rec.ackNs)}` +
    `,"request_end_ns":${end}` +
    `,"worker_id":${s(`worker_${rec.workerId}`)}` +
    // One process measures every record; AIPerf readers expect the field.
    `,"record_processor_id":"record_processor_0"` +
    `,"benchmark_phase":${s(rec.phase)}` +
    `,"was_cancelled":${rec.cancelled}` +
    // The request's end is when a cancelled request was cut off.
    `,"cancellation_time_ns":${rec.cancelled ? end : "null"}`;
  if (rec.intendedStartNs !== null) {
    text += `,"intended_start_ns":${rec.intendedStartNs.toString()}`;
  }
  text += `},"metrics":{`;
  let first = true;
  for (const tag in metrics) {
    const lm = LINE_METRICS.get(tag);
    if (lm === undefined) continue;
    const v = metrics[tag];
    text += (first ? "" : ",") + lm.head;
    first = false;
    // x / 1 is x exactly: dividing every value is the same as converting only times.
    if (typeof v === "number") text += jsonNumber(v / lm.divisor);
    else {
      out.text(text);
      out.numbers(v, lm.divisor);
      text = "";
    }
    text += lm.tail;
  }
  const error = rec.error === null
    ? "null"
    : s({ code: rec.error.code, type: rec.error.type, message: rec.error.message });
  out.text(text + `},"error":${error}}`);
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
    text(s) {
      line += s;
    },
    numbers(values, divisor) {
      line += numbersJson(values, divisor);
    },
  });
  return line;
}

/** The two digits of 0-99, as ASCII bytes: 00, 01, … 99. */
const PAIRS = Uint8Array.from(
  { length: 200 },
  (_, i) => 48 + (i % 2 === 0 ? (i >> 1) / 10 | 0 : (i >> 1) % 10),
);

/** Most bytes one number of a list takes with its comma: `,-2147.483647`. */
export const MAX_NUMBER_BYTES = 13;

/**
 * True when `writeNumbers` can write the list: whole numbers above -2^31 and below 2^31 (times
 * in whole ns, which Workers stamp, or counts), shown in ms or as they are.
 */
export function wholeNumbers(values: ArrayLike<number>, divisor: number): boolean {
  if (divisor !== 1e6 && divisor !== 1) return false;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if ((v | 0) !== v || v === -2147483648) return false;
  }
  return true;
}

/**
 * Writes `values[i] / divisor` for each i into `buf` from `at`, as the JSON array
 * `JSON.stringify` writes, and returns where it ends; `room(at)` is called before each number
 * and returns where to go on (it may write out the buffer and start again at 0). The list must
 * pass `wholeNumbers`.
 *
 * Each number is written digit by digit: for a whole number n of ns, the exact decimal n / 10^6
 * with its trailing zeros dropped is the shortest text that reads back as the double n / 1e6 (n
 * has at most 10 digits, far below a double's 15), which is what JSON writes; -0 is written 0.
 */
export function writeNumbers(
  buf: Uint8Array,
  at: number,
  values: ArrayLike<number>,
  divisor: number,
  room: (at: number) => number,
): number {
  at = room(at);
  buf[at++] = 91; // [
  for (let i = 0; i < values.length; i++) {
    if (at + MAX_NUMBER_BYTES > buf.length) at = room(at);
    if (i > 0) buf[at++] = 44; // ,
    let n = values[i] | 0;
    if (n < 0) {
      buf[at++] = 45; // -
      n = -n;
    }
    if (n === 0) {
      buf[at++] = 48;
      continue;
    }
    if (divisor === 1) {
      at = writeDigits(buf, at, n);
      continue;
    }
    const whole = (n / 1000000) | 0;
    let frac = n - whole * 1000000;
    if (whole < 10) buf[at++] = 48 + whole;
    else at = writeDigits(buf, at, whole);
    if (frac !== 0) {
      // Six digits, two at a time, then the trailing zeros taken back (one digit is not 0).
      buf[at] = 46; // .
      const a = (frac / 10000) | 0;
      frac -= a * 10000;
      const b = (frac / 100) | 0;
      const c = frac - b * 100;
      buf[at + 1] = PAIRS[2 * a];
      buf[at + 2] = PAIRS[2 * a + 1];
      buf[at + 3] = PAIRS[2 * b];
      buf[at + 4] = PAIRS[2 * b + 1];
      buf[at + 5] = PAIRS[2 * c];
      buf[at + 6] = PAIRS[2 * c + 1];
      at += 7;
      while (buf[at - 1] === 48) at--;
    }
  }
  at = room(at);
  buf[at++] = 93; // ]
  return at;
}

/** Writes the decimal digits of the integer `n` (0 <= n < 2^31) at `at`; returns their end. */
function writeDigits(buf: Uint8Array, at: number, n: number): number {
  let digits = 1;
  for (let p = 10; p <= n && digits < 10; p *= 10) digits++;
  for (let k = at + digits - 1; k >= at; k--) {
    const q = (n / 10) | 0;
    buf[k] = 48 + n - q * 10;
    n = q;
  }
  return at + digits;
}

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
  #enc = new TextEncoder();
  #buf: Uint8Array;
  #used = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushMs: number;
  #failure: unknown = null;
  #closed = false;
  #lines = 0;

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

  /** Queues one line of text (without its newline). */
  writeLine(line: string): void {
    this.#begin();
    // With its newline: a line longer than the buffer is then written whole at once.
    this.#text(line + "\n");
    this.#timed();
  }

  /** The sink `buildLine` writes a record's line into: this writer's buffer. */
  #sink: LineSink = {
    text: (s) => this.#text(s),
    numbers: (values, divisor) => {
      if (wholeNumbers(values, divisor)) {
        this.#used = writeNumbers(this.#buf, this.#used, values, divisor, this.#room);
      } else this.#text(numbersJson(values, divisor));
    },
  };

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
        this.#writeAll(this.#enc.encode(s));
        return;
      }
    }
    this.#used += this.#enc.encodeInto(s, this.#buf.subarray(this.#used)).written;
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
