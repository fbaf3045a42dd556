/**
 * Runs one phase on the Worker pool and enforces what only the main thread can: the duration and
 * its grace period, the concurrency ramp, the failure gate, and a stop on request (Ctrl+C).
 */

import { RAMP_STEP_MS, rampedConcurrency } from "./arrivals.ts";
import type { PhaseSpec } from "../plan/phases.ts";
import type { WorkerPool } from "./pool.ts";
import type { RequestRecord } from "../record/record.ts";

/** Workers get the phase's start this far ahead, so the first send is not already late. */
const START_LEAD_MS = 20;

/** How a phase ended. */
export type PhaseEnd =
  /** Limits reached, or stopped and drained. */
  | "done"
  /** The failure gate tripped. */
  | "failed_threshold";

/** One running phase; `stop()` is the first Ctrl+C, `cancel()` the second. */
export class PhaseRunner {
  #pool: WorkerPool;
  #spec: PhaseSpec;
  #timers: ReturnType<typeof setTimeout>[] = [];
  #graceArmed = false;
  /** A stop came (maybe while connections were being opened, before the counters were reset). */
  #stopRequested = false;
  /** The phase is over: a late stop only raises the stop flag, and arms no timer. */
  #ended = false;
  #end: PhaseEnd = "done";
  #completed = 0;
  #failed = 0;
  /** The phase's time zero (epoch ms) when fixed in advance (`startAt`); else it starts now. */
  #startEpochMs: number | undefined;
  #prepared = false;

  constructor(pool: WorkerPool, spec: PhaseSpec) {
    this.#pool = pool;
    this.#spec = spec;
  }

  /**
   * Opens the phase's connections and runs its request code, before its clock starts (once):
   * a shard does it before it waits for its start instant.
   */
  async prepare(): Promise<void> {
    if (this.#prepared) return;
    this.#prepared = true;
    await this.#pool.preparePhase(this.#spec.plan, this.#spec.slots);
  }

  /** Fixes the phase's time zero (epoch ms) in advance (shards starting together). */
  startAt(epochMs: number | undefined): void {
    this.#startEpochMs = epochMs;
  }

  /** Stops issuing; requests in flight get the grace period, then are cancelled. */
  stop(): void {
    this.#stopRequested = true;
    this.#pool.stopIssuing();
    if (this.#graceArmed || this.#ended) return;
    this.#graceArmed = true;
    this.#timers.push(setTimeout(() => this.cancel(), this.#spec.graceMs));
  }

  /** Cancels every request in flight (recorded as cancelled). */
  cancel(): void {
    this.#pool.abortInFlight();
  }

  /** Runs the phase to its end; records arrive through `onRecords`. */
  async run(onRecords: (records: RequestRecord[]) => void): Promise<PhaseEnd> {
    const spec = this.#spec;
    // Connections open before the clock starts: none is opened inside a request's measured time.
    await this.prepare();
    const startPerf = this.#startEpochMs === undefined
      ? performance.now() + START_LEAD_MS
      : this.#startEpochMs - performance.timeOrigin;
    const plan = { ...spec.plan, startEpochMs: performance.timeOrigin + startPerf };
    if (spec.durationMs !== undefined) {
      const untilStart = Math.max(0, startPerf - performance.now());
      this.#timers.push(setTimeout(() => this.stop(), untilStart + spec.durationMs));
    }
    const rampMs = plan.concurrencyRampMs ?? 0;
    const cap = plan.maxConcurrency;
    let ramp: ReturnType<typeof setInterval> | undefined;
    if (rampMs > 0 && cap !== undefined) {
      ramp = setInterval(() => {
        const elapsed = performance.now() - startPerf;
        this.#pool.setConcurrencyCap(rampedConcurrency(cap, rampMs, elapsed));
        if (elapsed >= rampMs) clearInterval(ramp);
      }, RAMP_STEP_MS);
    }
    const prefillRampMs = plan.prefillRampMs ?? 0;
    const prefillCap = plan.prefillConcurrency;
    let prefillRamp: ReturnType<typeof setInterval> | undefined;
    if (prefillRampMs > 0 && prefillCap !== undefined) {
      prefillRamp = setInterval(() => {
        const elapsed = performance.now() - startPerf;
        this.#pool.setPrefillCap(rampedConcurrency(prefillCap, prefillRampMs, elapsed));
        if (elapsed >= prefillRampMs) clearInterval(prefillRamp);
      }, RAMP_STEP_MS);
    }
    try {
      const running = this.#pool.runPhase(plan, spec.slots, (records) => {
        this.#gate(records);
        onRecords(records);
      });
      // A stop while the connections were opened: the phase's reset counters must not lose it.
      if (this.#stopRequested) this.#pool.stopIssuing();
      await running;
    } finally {
      this.#ended = true;
      clearInterval(ramp);
      clearInterval(prefillRamp);
      for (const t of this.#timers) clearTimeout(t);
    }
    return this.#end;
  }

  /** The failure gate: too many failures once enough requests are in, and the phase ends now. */
  #gate(records: RequestRecord[]): void {
    const threshold = this.#spec.failedThreshold;
    if (threshold === undefined || this.#end !== "done") return;
    for (const r of records) {
      this.#completed++;
      if (r.error) this.#failed++;
    }
    if (this.#completed >= this.#spec.armAfter && this.#failed / this.#completed > threshold) {
      this.#end = "failed_threshold";
      this.cancel();
    }
  }
}
