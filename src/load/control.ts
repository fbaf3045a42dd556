/**
 * Counters shared by the main thread and every Worker through one SharedArrayBuffer, so slots
 * take work and check limits with atomic operations instead of asking the main thread.
 */

/** Index of each counter in the shared Int32Array. */
export const Ctl = {
  /** 1: stop issuing new requests (limit reached, duration over, Ctrl+C). */
  STOP: 0,
  /** Next conversation number to start (the i-th conversation of the run). */
  NEXT_CONVERSATION: 1,
  /** Requests issued so far. */
  ISSUED: 2,
  /** Requests in flight. */
  IN_FLIGHT: 3,
  /** Conversations completed. */
  SESSIONS_DONE: 4,
  /** Requests completed (any outcome). */
  COMPLETED: 5,
  /** Requests that failed. */
  ERRORS: 6,
  /** Requests cancelled. */
  CANCELLED: 7,
  /** Conversations holding a concurrency place right now. */
  ACTIVE: 8,
  /** Concurrency places allowed now (the cap, raised step by step during a ramp). */
  CAP: 9,
  /** Requests holding a prefill place: sent and no first token yet (`--prefill-concurrency`). */
  PREFILL_ACTIVE: 10,
  /** Prefill places allowed now (raised step by step during a prefill ramp). */
  PREFILL_CAP: 11,
  /** Next user number of a user-centric phase. */
  NEXT_USER: 12,
  /** Next URL turn of a multi-URL phase whose turns are taken per conversation. */
  NEXT_URL: 13,
} as const;

const SIZE = 14;

/** CAP when no concurrency limit applies. */
export const UNCAPPED = 0x7fffffff;

/** Allocates the shared counters, with one in-flight counter per Worker after the run's own. */
export function createControl(workers: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer((SIZE + workers) * Int32Array.BYTES_PER_ELEMENT));
}

/** Index of a Worker's own in-flight counter (present when the control was made for it). */
export function workerInFlight(workerId: number): number {
  return SIZE + workerId;
}

/**
 * Claims the next request of the run, or returns false when the request limit is reached or the
 * run is stopping. Claims past the limit are undone so ISSUED stays exact.
 */
export function claimRequest(ctl: Int32Array, requestLimit: number): boolean {
  return claimRequestNumber(ctl, requestLimit) >= 0;
}

/**
 * As {@link claimRequest}, returning the request's number in the phase (from 0), or -1: what a
 * round robin over several URLs takes its turn from, at no extra cost.
 */
export function claimRequestNumber(ctl: Int32Array, requestLimit: number): number {
  if (Atomics.load(ctl, Ctl.STOP) !== 0) return -1;
  const n = Atomics.add(ctl, Ctl.ISSUED, 1);
  if (n >= requestLimit) {
    Atomics.sub(ctl, Ctl.ISSUED, 1);
    return -1;
  }
  return n;
}
