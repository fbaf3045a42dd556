/**
 * A record's line of `profile_export.jsonl`, built once for both the text `recordLine` returns and
 * the bytes the record writer (record_writer.ts) puts in its buffer; the writer's own fast path
 * uses the constant pieces here directly.
 */

import type { RequestRecord } from "../record/record.ts";
import {
  displayDivisor,
  METRICS,
  RECORD_DEFS,
  type RecordMetrics,
  type RecordValues,
} from "../metrics/definitions.ts";

/** Encodes the line's text: its constant parts once, and text that is not plain ASCII. */
export const encoder = new TextEncoder();

/** Epoch ns of an offset from the request start, as exact integer digits. */
export function epochNs(start: bigint, offsetNs: number): string {
  return (start + BigInt(Math.round(offsetNs))).toString();
}

/** Constant JSON text of a line, with its bytes (ASCII: one byte a character). */
export interface Piece {
  text: string;
  bytes: Uint8Array;
}

function piece(text: string): Piece {
  return { text, bytes: encoder.encode(text) };
}

/** How one record metric is written: the JSON text around its value, and its unit divisor. */
export interface LineMetric {
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
export const LINE_BY_INDEX: readonly (LineMetric | null)[] = RECORD_DEFS.map((def) =>
  LINE_METRICS.get(def.tag) ?? null
);

/** The constant parts of a line, in order (the writer's fast path copies their bytes). */
export const SESSION_NUM = piece(`{"metadata":{"session_num":`);
export const X_REQUEST_ID = piece(`,"x_request_id":`);
export const X_CORRELATION_ID = piece(`,"x_correlation_id":`);
export const CONVERSATION_ID = piece(`,"conversation_id":`);
export const TURN_INDEX = piece(`,"turn_index":`);
export const REQUEST_START_NS = piece(`,"request_start_ns":`);
export const REQUEST_ACK_NS = piece(`,"request_ack_ns":`);
export const REQUEST_END_NS = piece(`,"request_end_ns":`);
export const WORKER_ID = piece(`,"worker_id":"worker_`);
// One process measures every record; AIPerf readers expect the field.
export const PROCESSOR_PHASE = piece(
  `","record_processor_id":"record_processor_0","benchmark_phase":`,
);
export const WAS_CANCELLED = piece(`,"was_cancelled":`);
export const CANCELLATION_TIME_NS = piece(`,"cancellation_time_ns":`);
export const INTENDED_START_NS = piece(`,"intended_start_ns":`);
export const URL_INDEX = piece(`,"url_index":`);
export const SHARD_INDEX = piece(`,"shard_index":`);
export const METRICS_OPEN = piece(`},"metrics":{`);
export const ERROR_OPEN = piece(`},"error":`);
export const LINE_END = piece("}");
export const NULL = piece("null");
export const TRUE = piece("true");
export const FALSE = piece("false");

/**
 * Where a line goes, in pieces. A line is built once, by `buildLine`, for both the string
 * `recordLine` returns and the bytes the writer puts in its buffer.
 */
export interface LineSink {
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
export function jsonNumber(x: number): string {
  return Number.isFinite(x) ? "" + x : "null";
}

/**
 * The line of one record into `out`: `{metadata, metrics, error}` as AIPerf writes it, metrics
 * in display units, in the order `metrics` lists them. Metrics are written directly rather than
 * through an object and `JSON.stringify`, with the same text: numbers as JSON writes them, a
 * list as a JSON array.
 */
export function buildLine(rec: RequestRecord, metrics: RecordMetrics, out: LineSink): void {
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

export function joint(i: number, j: number): Piece {
  const k = i * LINE_BY_INDEX.length + j;
  return JOINTS[k] ??= piece(LINE_BY_INDEX[i]!.tail.text + LINE_BY_INDEX[j]!.nextHead.text);
}

/** The line metric at position `i` when `values` has a value there and lines carry it; else null. */
export function lineMetricOf(values: RecordValues, i: number): LineMetric | null {
  return values[i] === undefined ? null : LINE_BY_INDEX[i];
}

/** {@link buildLine} for metrics by position (`RecordValues`), in table order. */
export function buildValuesLine(rec: RequestRecord, values: RecordValues, out: LineSink): void {
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
  if (rec.urlIndex !== undefined) {
    out.piece(URL_INDEX);
    out.int(rec.urlIndex);
  }
  if (rec.shard !== undefined) {
    out.piece(SHARD_INDEX);
    out.int(rec.shard);
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
export function numbersJson(values: ArrayLike<number>, divisor: number): string {
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
