/**
 * A Worker's warm-up: before the run, it reads a sample answer (the mock's answer to the run's
 * first request, `mock/sample.ts`) many times over, from memory, through the same HTTP/1.1 client
 * and stream reader that will read the server's answers. Code runs slowly the first times it
 * runs (read, compiled, then compiled again for speed on helper threads), and the first answers
 * of a run often arrive together: without the warm-up, at 64 streams starting together, the worst
 * TTFT error among the first 64 was 0.5-2.3 ms (above 1.3 ms in five runs of seven), where later
 * waves' worst was mostly 0.4-1.1 ms (bench/README.md, "The first answers"). Up to
 * `PER_REQUEST_WARM_MAX_STREAMS` streams it then reads short answers, for the code run once per
 * request (and the main thread measures records like the run's: `warm_records.ts`). No request
 * leaves the process.
 */

import { createHttp1Transport } from "../answer/client.ts";
import { recycleResult } from "../answer/result.ts";
import { forgetKnownEvents } from "../answer/known_events.ts";
import { getEndpoint } from "../endpoints/mod.ts";
import { concat } from "../util/bytes.ts";

/** What a Worker warms up with: a request of the run and the answer it reads, again and again. */
export interface WarmUp {
  url: string;
  /**
   * The run's request headers (the slots add the request's and conversation's IDs to them, as
   * the warm-up does); only `content-type: application/json` when absent.
   */
  headers?: Record<string, string>;
  /** The run's request timeout (ms; 0: none). */
  timeoutMs?: number;
  endpointType: string;
  responseField?: string;
  streaming: boolean;
  /** The request body sent (the run's first). */
  body: Uint8Array;
  /** The answer's reads, in order (`SampleAnswer.reads`): as many as its events, and two. */
  reads: Uint8Array[];
  /** Short answers (`shortAnswer`) to read after the whole ones; none when absent. */
  shortAnswers?: number;
}

/** What a warm-up did, reported with the Worker's `ready`. */
export interface WarmedUp {
  /** Whole sample answers read, and the events timed in them. */
  answers: number;
  events: number;
  /** Short answers read after them (`shortAnswer`). */
  shortAnswers: number;
  /** Answers of either kind that ended in an error. */
  failed: number;
  ms: number;
}

/**
 * Events read in all, at the least (per-event code is then compiled for speed)... With 8,192, the
 * body reader's code for each read reached V8's optimizing compiler (TurboFan) only 0.2-0.4 s into
 * a run at 64 x 256 50/5, and compiling it took a vCPU for milliseconds as the first waves' first
 * tokens came. With 32,768 that is done before the run (`--log-code`; the warm-up read 127 answers
 * of 256 events in 70 ms), the SSE scan's 0.2 s into it, after the first wave's first tokens.
 */
const TARGET_EVENTS = 32768;
/** ...and answers, at the least and at the most. */
const MIN_ANSWERS = 16;
const MAX_ANSWERS = 256;
/** Streams read at once, as a run reads several (an even number: see `warmUp`). */
const STREAMS = 4;
/**
 * Short answers read after the whole ones (`WarmUp.shortAnswers`): the code that runs once per
 * request (sending, reading the head, ending the answer) is compiled for speed only after
 * hundreds of requests. At 64 streams of 256-token answers a run makes 48 requests a second, and
 * without them that code was compiled 5-10 s into the run, on V8's helper threads, 1-11 ms a
 * function (`--trace-opt`).
 */
export const SHORT_ANSWERS = 512;
/** Events a short answer keeps of the sample's end (finish, usage, end of stream). */
const SHORT_TAIL = 4;
/**
 * Streams up to which the per-request code is warmed up (short answers, and the main thread's
 * `warmRecords`). Above, requests are many enough that it is compiled in the run's first second,
 * and the memory matters more: at 4,096 streams the warm-up raised peak RSS by 5-13 MB.
 */
export const PER_REQUEST_WARM_MAX_STREAMS = 1024;

/** Whether a run of `concurrency` streams warms up its per-request code. */
export function warmsPerRequest(concurrency: number): boolean {
  return concurrency <= PER_REQUEST_WARM_MAX_STREAMS;
}

/**
 * A connection whose peer is memory: each request written is answered with `reads`, one read at
 * a time (a read smaller than the next piece takes part of it). Only what the HTTP/1.1 client
 * calls is implemented.
 */
export class MemoryConn {
  #reads: Uint8Array[];
  /** The next piece to read; `#reads.length` while no request is waiting for its answer. */
  #next: number;
  #rest: Uint8Array | null = null;
  #waiting: ((n: number | null) => void) | null = null;
  #into: Uint8Array | null = null;
  #closed = false;

  constructor(reads: Uint8Array[]) {
    this.#reads = reads;
    this.#next = reads.length;
  }

  #fill(buf: Uint8Array): number {
    const piece = this.#rest ?? this.#reads[this.#next];
    if (piece.length <= buf.length) {
      buf.set(piece);
      this.#rest = null;
      this.#next++;
      return piece.length;
    }
    buf.set(piece.subarray(0, buf.length));
    this.#rest = piece.subarray(buf.length);
    return buf.length;
  }

  read(buf: Uint8Array): Promise<number | null> {
    if (this.#closed) return Promise.resolve(null);
    if (this.#rest !== null || this.#next < this.#reads.length) {
      return Promise.resolve(this.#fill(buf));
    }
    return new Promise((resolve) => {
      this.#waiting = resolve;
      this.#into = buf;
    });
  }

  write(p: Uint8Array): Promise<number> {
    if (this.#closed) return Promise.reject(new Deno.errors.BadResource("closed"));
    this.#next = 0;
    this.#rest = null;
    const waiting = this.#waiting;
    if (waiting !== null) {
      this.#waiting = null;
      waiting(this.#fill(this.#into!));
      this.#into = null;
    }
    return Promise.resolve(p.length);
  }

  close(): void {
    this.#closed = true;
    const waiting = this.#waiting;
    this.#waiting = null;
    this.#into = null;
    waiting?.(null);
  }
}

/** Answers to read for `events` events each: enough events in all, within the bounds. */
export function warmAnswers(events: number): number {
  const n = Math.ceil(TARGET_EVENTS / Math.max(1, events));
  return Math.min(MAX_ANSWERS, Math.max(MIN_ANSWERS, n));
}

/**
 * The sample answer's reads cut to its head, its first two events (a chat answer's first carries
 * only the role) and its last {@link SHORT_TAIL} events and end: a streamed answer as short as it
 * gets with everything a request's code reads once. A whole body (two reads) stays as it is.
 */
export function shortAnswer(reads: Uint8Array[]): Uint8Array[] {
  if (reads.length <= 4 + SHORT_TAIL) return reads;
  return [reads[0], reads[1], reads[2], ...reads.slice(reads.length - 1 - SHORT_TAIL)];
}

/**
 * Sends `w`'s request and reads its answer from memory, `warmAnswers` times over `STREAMS`
 * streams, half of them reading it an event at a time, half all at once; then `w.shortAnswers`
 * short answers (`shortAnswer`); then forgets what the stream reader learned of the sample's
 * events (see `forgetKnownEvents`). Nothing of it is counted or recorded.
 */
export async function warmUp(w: WarmUp): Promise<WarmedUp> {
  const t0 = performance.now();
  const endpoint = getEndpoint(w.endpointType, { responseField: w.responseField });
  // Requests as the run's slots make them: the same headers and IDs, a timeout, and a signal
  // (never aborted here), so that the code compiled now is not thrown away at the run's first
  // requests for meeting what it never saw (V8's `--log-deopt`: a deopt at the first request's
  // end was followed by compiling the body reader again, 5 ms on a helper thread that held the
  // Worker's vCPU as its first tokens came).
  const base = w.headers ?? { "content-type": "application/json" };
  const signal = new AbortController().signal;
  let failed = 0;
  /**
   * Reads `answers` answers over `STREAMS` connections, each answering with its own reads;
   * resolves with the events timed.
   */
  const read = async (answers: number, readsOf: (conn: number) => Uint8Array[]) => {
    let events = 0;
    let opened = 0;
    const transport = createHttp1Transport({
      connections: STREAMS,
      connect: () => Promise.resolve(new MemoryConn(readsOf(opened++)) as unknown as Deno.Conn),
    });
    let sent = 0;
    const stream = async () => {
      const headers: Record<string, string> = {
        ...base,
        "X-Request-ID": "",
        "X-Correlation-ID": "",
      };
      const conversation = crypto.randomUUID();
      while (sent < answers) {
        sent++;
        headers["X-Request-ID"] = crypto.randomUUID();
        headers["X-Correlation-ID"] = conversation;
        const r = await transport.send({
          url: w.url,
          headers,
          body: w.body,
          streaming: w.streaming,
          endpoint,
          timeoutMs: w.timeoutMs ?? 0,
          signal,
        });
        if (r.error !== null) failed++;
        events += r.responsePerf.length;
        recycleResult(r);
      }
    };
    try {
      await Promise.all(Array.from({ length: STREAMS }, stream));
    } finally {
      transport.close();
    }
    return events;
  };
  try {
    // Half the streams read an event at a time, as from a server pacing its tokens; the other
    // half the whole body at once, as from one sending them as fast as it can.
    const whole = [w.reads[0], concat(w.reads.slice(1))];
    const answers = warmAnswers(w.reads.length - 2);
    const events = await read(answers, (conn) => conn % 2 === 0 ? w.reads : whole);
    const shortAnswers = w.shortAnswers ?? 0;
    if (shortAnswers > 0) {
      const short = shortAnswer(w.reads);
      await read(shortAnswers, () => short);
    }
    return { answers, events, shortAnswers, failed, ms: performance.now() - t0 };
  } finally {
    forgetKnownEvents();
  }
}
