/**
 * What one request yields: the raw facts of its answer (`SendResult`), and the memory of those
 * facts reused from one answer to the next.
 */

import type { Endpoint } from "../endpoints/types.ts";
import type { MediaAnswer, RecordError, Usage } from "../record/record.ts";
import type { WireRequest } from "../transport/wire.ts";
import { Spares } from "./spares.ts";

/** What to send and how to read the answer. */
export interface SendOptions extends WireRequest {
  /** Read the answer as SSE (unless the server answers with a JSON body). */
  streaming: boolean;
  /** Parses JSON bodies and SSE events. */
  endpoint: Endpoint;
  /**
   * Called once, as soon as a streamed answer's first content was read (after its arrival was
   * stamped): a prefill place is given back then. Not called for an answer without content.
   */
  firstToken?: () => void;
}

/** The raw facts of one request; times are `performance.now()` values (ms). */
export interface SendResult {
  /** When the request started, before connecting or sending. */
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
  /** What a media endpoint's answer said (images, the video job); null for all others. */
  media: MediaAnswer | null;
  httpStatus: number | null;
  error: RecordError | null;
  /** Aborted by `signal`. */
  cancelled: boolean;
  /**
   * Time this request spent opening its connection (ms, 0 when it took an open one), from a
   * transport that tells (`ResponseSink.connection`); undefined otherwise.
   */
  connectMs?: number;
  /** The request's connection had carried an earlier one; undefined when not told. */
  connectionReused?: boolean;
}

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
    media: null,
    httpStatus: null,
    error: null,
    cancelled: false,
    connectMs: undefined,
    connectionReused: undefined,
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
  r.media = null;
  r.httpStatus = null;
  r.error = null;
  r.cancelled = false;
  r.connectMs = undefined;
  r.connectionReused = undefined;
}
