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

/**
 * A UTC time as AIPerf writes `start_time`/`end_time` (Python's `datetime.isoformat()` of a
 * naive UTC time): `2026-05-01T05:29:24.409521`, microseconds, no zone suffix.
 */
export function isoUtc(ns: bigint): string {
  const ms = ns / 1_000_000n;
  const micros = (ns / 1_000n) % 1_000_000n;
  const base = new Date(Number(ms)).toISOString().slice(0, 19);
  return `${base}.${(micros < 0n ? micros + 1_000_000n : micros).toString().padStart(6, "0")}`;
}
