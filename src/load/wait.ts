/**
 * Waiting inside a Worker without losing precision: timers fire a millisecond or more late, so a
 * send time is approached with a timer to shortly before it and a brief spin for the rest; and
 * a concurrency cap is waited on with `Atomics.waitAsync`, woken the moment a slot frees.
 */

import { Ctl } from "./control.ts";

/** Timers are trusted up to this close to the target; the rest is spun. */
const SPIN_MS = 1.5;
/** A long wait wakes at least this often to notice a stop. */
const CHECK_MS = 50;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Resolves at `perfMs` (this thread's `performance.now()` time), or early with false when
 * `stopped()` turns true. A target in the past resolves at once.
 */
export async function waitUntil(perfMs: number, stopped: () => boolean): Promise<boolean> {
  for (;;) {
    if (stopped()) return false;
    const left = perfMs - performance.now();
    if (left <= SPIN_MS) break;
    await sleep(Math.min(left - SPIN_MS, CHECK_MS));
  }
  // The spin is at most SPIN_MS long: the Worker's other requests wait that long at worst.
  while (performance.now() < perfMs) { /* spin */ }
  return true;
}

/**
 * Takes one of the phase's concurrency places (ACTIVE < CAP), waiting while all are taken.
 * Returns false when the phase stops first.
 */
export function acquireSlot(ctl: Int32Array): Promise<boolean> {
  return acquirePlace(ctl, Ctl.ACTIVE, Ctl.CAP);
}

/**
 * Takes a place counted at `activeAt` while it stays below the cap at `capAt`, waiting while
 * all are taken (concurrency places, prefill places). False when the phase stops first.
 */
export async function acquirePlace(
  ctl: Int32Array,
  activeAt: number,
  capAt: number,
): Promise<boolean> {
  for (;;) {
    if (Atomics.load(ctl, Ctl.STOP) !== 0) return false;
    const active = Atomics.load(ctl, activeAt);
    if (active < Atomics.load(ctl, capAt)) {
      if (Atomics.compareExchange(ctl, activeAt, active, active + 1) === active) return true;
      continue;
    }
    // Woken by a release; the timeout notices STOP and ramps that raise the cap.
    const w = Atomics.waitAsync(ctl, activeAt, active, CHECK_MS);
    if (w.async) await w.value;
  }
}

/** Takes a prefill place now if one is free (no promise); false when all are taken. */
export function tryAcquirePrefill(ctl: Int32Array): boolean {
  for (;;) {
    if (Atomics.load(ctl, Ctl.STOP) !== 0) return false;
    const active = Atomics.load(ctl, Ctl.PREFILL_ACTIVE);
    if (active >= Atomics.load(ctl, Ctl.PREFILL_CAP)) return false;
    if (Atomics.compareExchange(ctl, Ctl.PREFILL_ACTIVE, active, active + 1) === active) {
      return true;
    }
  }
}

/** Gives back a prefill place (the request's first token came, or it ended) and wakes a waiter. */
export function releasePrefill(ctl: Int32Array): void {
  Atomics.sub(ctl, Ctl.PREFILL_ACTIVE, 1);
  Atomics.notify(ctl, Ctl.PREFILL_ACTIVE, 1);
}

/**
 * Takes a concurrency place if one is free now, without waiting (and without the promise an
 * {@link acquireSlot} call makes); false when the phase stopped or all places are taken.
 */
export function tryAcquireSlot(ctl: Int32Array): boolean {
  for (;;) {
    if (Atomics.load(ctl, Ctl.STOP) !== 0) return false;
    const active = Atomics.load(ctl, Ctl.ACTIVE);
    if (active >= Atomics.load(ctl, Ctl.CAP)) return false;
    if (Atomics.compareExchange(ctl, Ctl.ACTIVE, active, active + 1) === active) return true;
  }
}

/** Gives back a place taken with {@link acquireSlot} and wakes one waiter. */
export function releaseSlot(ctl: Int32Array): void {
  Atomics.sub(ctl, Ctl.ACTIVE, 1);
  Atomics.notify(ctl, Ctl.ACTIVE);
}
