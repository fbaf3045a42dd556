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
 * The record's metrics in display units, as the JSON text of `{tag: {value, unit}}`. Written
 * directly rather than through an object and `JSON.stringify`, with the same text: numbers as
 * JSON writes them, a list as a JSON array.
 */
function metricsJson(metrics: RecordMetrics): string {
  let out = "";
  for (const tag in metrics) {
    const lm = LINE_METRICS.get(tag);
    if (lm === undefined) continue;
    const v = metrics[tag];
    let value: string;
    if (typeof v === "number") {
      // x / 1 is x exactly: dividing every value is the same as converting only times.
      const x = v / lm.divisor;
      value = Number.isFinite(x) ? "" + x : "null";
    } else {
      const xs = new Array<number>(v.length);
      for (let i = 0; i < v.length; i++) xs[i] = v[i] / lm.divisor;
      value = JSON.stringify(xs);
    }
    out += (out === "" ? "{" : ",") + lm.head + value + lm.tail;
  }
  return out === "" ? "{}" : out + "}";
}

/**
 * One line of `profile_export.jsonl` (without the newline): `{metadata, metrics, error}` as
 * AIPerf writes it, metrics in display units. `*_ns` fields are epoch nanoseconds written as
 * exact JSON integers (they exceed what a JSON number read as a double can hold exactly).
 */
export function recordLine(rec: RequestRecord, metrics: RecordMetrics): string {
  const s = JSON.stringify;
  const end = epochNs(rec.startNs, rec.endNs);
  let meta = `"session_num":${rec.sessionNum}` +
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
    meta += `,"intended_start_ns":${rec.intendedStartNs.toString()}`;
  }
  const error = rec.error === null
    ? "null"
    : s({ code: rec.error.code, type: rec.error.type, message: rec.error.message });
  return `{"metadata":{${meta}},"metrics":${metricsJson(metrics)},"error":${error}}`;
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
    this.#buf = new Uint8Array(opts.maxBufferBytes ?? MAX_BUFFER);
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

  /** Queues the line of one finished request. */
  write(rec: RequestRecord, metrics: RecordMetrics): void {
    this.writeLine(recordLine(rec, metrics));
  }

  /** Queues one line of text (without its newline). */
  writeLine(line: string): void {
    this.#rethrow();
    if (this.#closed) throw new Error("profile_export.jsonl writer is closed");
    this.#lines++;
    // A character is at most 3 UTF-8 bytes; a line that may not fit goes after what is queued.
    if (this.#used + line.length * 3 + 1 > this.#buf.length) {
      this.flush();
      if (line.length * 3 + 1 > this.#buf.length) {
        this.#writeAll(this.#enc.encode(line + "\n"));
        return;
      }
    }
    this.#used += this.#enc.encodeInto(line, this.#buf.subarray(this.#used)).written;
    this.#buf[this.#used++] = 10;
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
