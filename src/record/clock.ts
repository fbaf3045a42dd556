/**
 * One clock for every thread: `performance.now()` (sub-microsecond) anchored to epoch time through
 * this thread's own `performance.timeOrigin`, so Workers and the main thread agree.
 */

const originUs = BigInt(Math.round(performance.timeOrigin * 1000));

/** Epoch nanoseconds for a `performance.now()` reading taken in this thread. */
export function epochNs(perfMs: number): bigint {
  return originUs * 1000n + BigInt(Math.round(perfMs * 1e6));
}

/** Epoch nanoseconds now. */
export function nowNs(): bigint {
  return epochNs(performance.now());
}
