/**
 * `profile_export.jsonl`: one line per finished request, appended as it finishes, so that a
 * crash or Ctrl+C leaves every finished request on disk. The file holds whole lines only: it is
 * written a whole line at a time where a line fits the buffer, and a failed write (a full disk)
 * cuts it back to its last complete line.
 */

import { dirname } from "node:path";
import { ArtifactError, writeFailure } from "./artifact.ts";
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
import type { RecordMetrics, RecordValues } from "../metrics/definitions.ts";
import {
  buildLine,
  buildValuesLine,
  CANCELLATION_TIME_NS,
  CONVERSATION_ID,
  encoder,
  epochNs,
  ERROR_OPEN,
  FALSE,
  INTENDED_START_NS,
  joint,
  jsonNumber,
  LINE_BY_INDEX,
  LINE_END,
  lineMetricOf,
  type LineSink,
  METRICS_OPEN,
  NULL,
  numbersJson,
  PROCESSOR_PHASE,
  REQUEST_ACK_NS,
  REQUEST_END_NS,
  REQUEST_START_NS,
  SESSION_NUM,
  SHARD_INDEX,
  TRUE,
  TURN_INDEX,
  URL_INDEX,
  WAS_CANCELLED,
  WORKER_ID,
  X_CORRELATION_ID,
  X_REQUEST_ID,
} from "./record_line.ts";

export { recordLine } from "./record_line.ts";

/** How long a finished line may wait in memory before it is written. */
const FLUSH_MS = 100;
/** Bytes buffered before a write. */
const MAX_BUFFER = 64 * 1024;

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
  /**
   * Told of the first failed write, also one made by the timer (which has no caller to throw
   * to). Without it, a timed write's failure is thrown by the next write or by `close()`.
   */
  onError?: (e: ArtifactError) => void;
}

/**
 * The file a record writer appends to: what it needs of a `Deno.FsFile`, so that a test can
 * give it a file that fails as a full disk does.
 */
export interface RecordFile {
  writeSync(p: Uint8Array): number;
  truncateSync(len?: number): void;
  close(): void;
}

/**
 * Appends one line per finished request to `profile_export.jsonl`. The file is opened once;
 * lines are encoded straight into one reusable byte buffer (no joined string, no new bytes per
 * write) and written at least every `flushMs`, when the buffer fills, and on `flush()`/`close()`.
 * Writes are synchronous so that nothing buffered is lost to an exit right after `close()`.
 */
export class RecordWriter {
  #file: RecordFile;
  #path: string;
  #buf: Uint8Array;
  #used = 0;
  /** Where in the buffer the line being built starts: what is before it is whole lines. */
  #lineStart = 0;
  /** Bytes written to the file, and the length of its whole lines (up to its last newline). */
  #fileBytes = 0;
  #wholeBytes = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushMs: number;
  #onError: ((e: ArtifactError) => void) | undefined;
  /** The failed write, kept: the file takes no more lines after one. */
  #failure: unknown = null;
  /** Whether the failure is yet to be thrown or told to anyone. */
  #failureUnseen = false;
  #closed = false;
  #lines = 0;
  /** The last epoch start `#epoch` was given, as whole seconds and the ns past them. */
  #start: bigint | null = null;
  #startS = 0;
  #startNs = 0;

  private constructor(file: RecordFile, path: string, opts: RecordWriterOptions) {
    this.#file = file;
    this.#path = path;
    this.#flushMs = opts.flushMs ?? FLUSH_MS;
    this.#onError = opts.onError;
    // Room for at least a few numbers of a list between writes.
    this.#buf = new Uint8Array(Math.max(2 * MAX_NUMBER_BYTES, opts.maxBufferBytes ?? MAX_BUFFER));
  }

  /** Creates (or truncates) the file at `path`, creating its directory. */
  static async open(path: string, opts: RecordWriterOptions = {}): Promise<RecordWriter> {
    try {
      await Deno.mkdir(dirname(path), { recursive: true });
      const file = await Deno.open(path, { write: true, create: true, truncate: true });
      return new RecordWriter(file, path, opts);
    } catch (e) {
      throw writeFailure(path, e);
    }
  }

  /** A writer appending to `file`, an empty file opened for writing; `path` names it in errors. */
  static onFile(file: RecordFile, path: string, opts: RecordWriterOptions = {}): RecordWriter {
    return new RecordWriter(file, path, opts);
  }

  /** The failed write that stopped this writer, or null. */
  get failure(): ArtifactError | null {
    return this.#failure instanceof ArtifactError ? this.#failure : null;
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
    if (rec.urlIndex !== undefined) {
      if (at > limit) return -2;
      at = putBytes(buf, at, URL_INDEX.bytes);
      at = putByteString(buf, at, String(rec.urlIndex));
    }
    if (rec.shard !== undefined) {
      if (at > limit) return -2;
      at = putBytes(buf, at, SHARD_INDEX.bytes);
      at = putByteString(buf, at, String(rec.shard));
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
      this.#spill(b.length);
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
      if (this.#used + EPOCH_BYTES > this.#buf.length) this.#spill(EPOCH_BYTES);
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

  /** Where a number goes on: at `at`, or where the buffer has room once whole lines are out. */
  #room = (at: number): number => {
    if (at + MAX_NUMBER_BYTES <= this.#buf.length) return at;
    this.#used = at;
    this.#spill(MAX_NUMBER_BYTES);
    return this.#used;
  };

  /**
   * Makes room for `need` more bytes of the line being built: writes out the whole lines before
   * it and moves its start to the buffer's; a line that still does not fit is written out as
   * far as it goes (a failure then cuts the file back to its last whole line).
   */
  #spill(need: number): void {
    const start = this.#lineStart;
    if (start > 0) {
      const used = this.#used;
      this.#used = 0;
      this.#lineStart = 0;
      this.#writeAll(this.#buf.subarray(0, start));
      this.#buf.copyWithin(0, start, used);
      this.#used = used - start;
    }
    if (this.#used + need > this.#buf.length) this.flush();
  }

  #begin(): void {
    this.#rethrow();
    if (this.#failure !== null) throw this.#failure;
    if (this.#closed) throw new Error("profile_export.jsonl writer is closed");
    this.#lines++;
    this.#lineStart = this.#used;
  }

  /**
   * Appends text. A character is at most 3 UTF-8 bytes: text that may not fit goes after what
   * is queued, and text longer than the buffer is written at once.
   */
  #text(s: string): void {
    if (this.#used + s.length * 3 > this.#buf.length) {
      this.#spill(s.length * 3);
      if (s.length * 3 > this.#buf.length) {
        this.#writeAll(encoder.encode(s));
        return;
      }
    }
    this.#used += encoder.encodeInto(s, this.#buf.subarray(this.#used)).written;
  }

  /** Ends a line: its newline, and a timed flush if none is pending. */
  #end(): void {
    if (this.#used === this.#buf.length) this.#spill(1);
    this.#buf[this.#used++] = 10;
    this.#lineStart = this.#used;
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
          // A failed write is kept and told to `onError`, or thrown by the next write or close:
          // a timer has no caller to throw to.
          if (this.#failure === null) this.#failure = e;
          if (this.#onError === undefined || !(e instanceof ArtifactError)) {
            this.#failureUnseen = true;
          }
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
    if (this.#used === 0 || this.#closed || this.#failure !== null) return;
    const used = this.#used;
    this.#used = 0;
    this.#lineStart = 0;
    this.#writeAll(this.#buf.subarray(0, used));
  }

  /** Writes `data` out; a failure cuts the file back to its whole lines and stops the writer. */
  #writeAll(data: Uint8Array): void {
    let off = 0;
    try {
      while (off < data.length) off += this.#file.writeSync(data.subarray(off));
    } catch (e) {
      // The part that went out before the failure may hold whole lines: they stay.
      const nl = data.subarray(0, off).lastIndexOf(10);
      if (nl >= 0) this.#wholeBytes = this.#fileBytes + nl + 1;
      this.#fileBytes += off;
      throw this.#fail(e);
    }
    // Mostly the data ends a line: the search stops at its last byte.
    const nl = data.lastIndexOf(10);
    if (nl >= 0) this.#wholeBytes = this.#fileBytes + nl + 1;
    this.#fileBytes += data.length;
  }

  /**
   * After a failed write: the file cut back to its last whole line, what is buffered dropped,
   * the failure kept (no more lines are taken) and told to `onError`; returns it to throw.
   */
  #fail(e: unknown): unknown {
    const failure = writeFailure(this.#path, e);
    this.#failure = failure;
    this.#used = 0;
    this.#lineStart = 0;
    if (this.#fileBytes > this.#wholeBytes) {
      try {
        this.#file.truncateSync(this.#wholeBytes);
      } catch {
        // Nothing more can be done for the file; the failure says it could not be written.
      }
    }
    if (this.#onError !== undefined && failure instanceof ArtifactError) this.#onError(failure);
    return failure;
  }

  /**
   * Flushes and closes the file. Further writes throw. A failed write throws here unless it was
   * thrown by a write or told to `onError` already.
   */
  close(): void {
    if (this.#closed) return;
    let thrown: unknown = null;
    try {
      this.flush();
    } catch (e) {
      thrown = e;
    } finally {
      this.#closed = true;
      this.#file.close();
    }
    // A failed write told to onError is not thrown again.
    if (thrown !== null && !(thrown instanceof ArtifactError && this.#onError !== undefined)) {
      throw thrown;
    }
    this.#rethrow();
  }

  /** Throws a failed write no one has seen yet (one of a timed flush without `onError`). */
  #rethrow(): void {
    if (this.#failureUnseen) {
      this.#failureUnseen = false;
      throw this.#failure;
    }
  }
}
