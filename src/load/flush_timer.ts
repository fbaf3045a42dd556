/**
 * When a Worker's batch of records leaves for the main thread, short of filling (`BATCH_SIZE`):
 * `FLUSH_MS` after its first record, unless some of the Worker's requests are then waiting for
 * the first bytes of their answers, and have been for less than `HOLD_MS` without a break. The
 * batch then waits until none is, looking every `FLUSH_MS`, and leaves `HOLD_MS` after its first
 * record, or after the wait began, at the latest. Where requests always wait (answers sent at once,
 * or streams whose first tokens come at all times) batches leave after `FLUSH_MS`, as they would
 * without waiting.
 *
 * Why: the main thread's work on a batch holds a vCPU for milliseconds (3-4 ms for 42 answers of
 * 256 tokens), and on a machine of two a Worker woken meanwhile by first tokens can wait that long
 * to stamp them. At 64 streams of 256 tokens with a 50 ms first token, a wave's records came in
 * while the next requests waited for their first tokens. In the waves where a batch was handled
 * then, the 90th percentile of the first tokens' lateness was 0.8-1.8 ms, against 0.1-0.3 ms in
 * most others (bench/notes/ttft.md, "Keeping the vCPUs awake …, batches held while first tokens are
 * due").
 */

import type { Waiting } from "../transport/wire.ts";

/** A batch leaves this long after its first record when no request waits for a first byte... */
export const FLUSH_MS = 20;
/** ...and this long after it at the latest. */
export const HOLD_MS = 200;

export class FlushTimer {
  #flush: () => void;
  #waiting: () => Waiting | undefined;
  #flushMs: number;
  #holdMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;
  /** When the batch's first record came (`performance.now()` ms). */
  #firstAt = 0;
  #due = (): void => {
    this.#timer = undefined;
    const waiting = this.#waiting();
    const now = performance.now();
    if (
      waiting !== undefined && waiting.count > 0 &&
      now - Math.min(this.#firstAt, waiting.since) + this.#flushMs <= this.#holdMs
    ) {
      this.#timer = setTimeout(this.#due, this.#flushMs);
    } else this.#flush();
  };

  /**
   * @param flush sends the batch (and calls `cancel`, or leaves the timer already stopped).
   * @param waiting the requests waiting for the first bytes of their answers now (undefined: not
   * known, as none).
   */
  constructor(
    flush: () => void,
    waiting: () => Waiting | undefined,
    opts: { flushMs?: number; holdMs?: number } = {},
  ) {
    this.#flush = flush;
    this.#waiting = waiting;
    this.#flushMs = opts.flushMs ?? FLUSH_MS;
    this.#holdMs = opts.holdMs ?? HOLD_MS;
  }

  /** A record joined the batch: the timer starts with the batch's first. */
  added(): void {
    if (this.#timer !== undefined) return;
    this.#firstAt = performance.now();
    this.#timer = setTimeout(this.#due, this.#flushMs);
  }

  /** The batch left (or there is none): the timer stops. */
  cancel(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
