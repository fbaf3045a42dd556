/**
 * The main thread gives the cores back to the Workers while it measures records.
 *
 * A Worker stamps each read when its thread runs. A batch of records wakes the main thread, and
 * the kernel may run it on the core of the Worker that sent the batch (on a 2-vCPU machine it did,
 * with the other vCPU idle, `perf sched`), where it keeps the core until it sleeps: measuring 64
 * records of 256 tokens took 1.9-2.1 ms there, and the Worker's reads of first tokens that came
 * meanwhile were stamped that late. So the main thread hands records on a few at a time and, after
 * each `budgetMs` of that work, sleeps (a futex wait that nobody ends) for a moment, which lets the
 * kernel run a waiting Worker in its place.
 */

const cell = new Int32Array(new SharedArrayBuffer(4));

/** Sleeps the calling thread for about `ms` (at least the kernel's timer slack, ~50 µs). */
export function sleepThread(ms: number): void {
  Atomics.wait(cell, 0, 0, ms);
}

/** How `deliverGivingWay` slices and pauses. */
export interface GiveWay {
  /** Items per call of the sink. */
  slice: number;
  /** Work, in ms, after which the thread sleeps before the next slice. */
  budgetMs: number;
  /** How long it sleeps, in ms. */
  pauseMs: number;
  now: () => number;
  sleep: (ms: number) => void;
}

/** Records per slice, work before a pause, and the pause: 8 records, 0.25 ms, 0.02 ms. */
export const GIVE_WAY: GiveWay = {
  slice: 8,
  budgetMs: 0.25,
  pauseMs: 0.02,
  now: () => performance.now(),
  sleep: sleepThread,
};

/**
 * Hands `items` to `sink` in order, `way.slice` at a time (all at once when they are that few),
 * sleeping between slices whenever `way.budgetMs` of work has passed since the start or the last
 * sleep. Returns how many times it slept.
 */
export function deliverGivingWay<T>(
  items: T[],
  sink: (items: T[]) => void,
  way: GiveWay = GIVE_WAY,
): number {
  if (items.length <= way.slice) {
    sink(items);
    return 0;
  }
  let sleeps = 0;
  let since = way.now();
  for (let i = 0; i < items.length; i += way.slice) {
    if (i > 0 && way.now() - since >= way.budgetMs) {
      way.sleep(way.pauseMs);
      sleeps++;
      since = way.now();
    }
    sink(items.slice(i, i + way.slice));
  }
  return sleeps;
}
