/**
 * When each token of an answer is due. Times are absolute (`performance.now()` milliseconds),
 * computed from the request's arrival, so a late timer never pushes the following tokens back.
 */

/** Timing knobs of one answer. */
export interface Timing {
  ttftMs: number;
  itlMs: number;
  jitterMs: number;
}

/** One delay with uniform ± jitter, never negative. */
export function jittered(ms: number, jitterMs: number, random: () => number): number {
  if (jitterMs <= 0) return ms;
  return Math.max(0, ms + (random() * 2 - 1) * jitterMs);
}

/**
 * Due times of `count` tokens: the first `ttftMs` after `arrival`, each next `itlMs` after the
 * previous, every delay jittered. Non-decreasing.
 */
export function tokenTimes(
  arrival: number,
  count: number,
  timing: Timing,
  random: () => number,
): Float64Array {
  const times = new Float64Array(count);
  let t = arrival + jittered(timing.ttftMs, timing.jitterMs, random);
  for (let k = 0; k < count; k++) {
    if (k > 0) t += jittered(timing.itlMs, timing.jitterMs, random);
    times[k] = t;
  }
  return times;
}

/** Resolves at `due` (a `performance.now()` time), at once when it has passed. */
export function sleepUntil(due: number, signal?: AbortSignal): Promise<void> {
  const wait = due - performance.now();
  if (wait <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    // Timers may fire up to 1 ms early on fractional delays: round up so tokens are never early.
    const timer = setTimeout(done, Math.ceil(wait));
    signal?.addEventListener("abort", done, { once: true });
  });
}
