/**
 * The Worker pool: at most one Worker per core (a Worker costs ~13 MiB and a thread), each
 * running many concurrency slots as async loops (`poolSize` in plan/phases.ts decides how many).
 */

import { createControl, Ctl, UNCAPPED } from "./control.ts";
import type { FromWorker, ToWorker } from "./plan.ts";
import type { PhasePlan, PlannedConversation } from "../plan/types.ts";
import type { RequestRecord } from "../record/record.ts";
import { workerModuleUrl } from "./worker_url.ts";
import { packConversations } from "./packed.ts";
import { unpackRecords } from "./record_batch.ts";
import { nowNs } from "../record/clock.ts";
import { plainPaths } from "../util/fast_paths.ts";

/** How far the Workers' clocks are from the main thread's, as measured at start. */
export interface ClockCheck {
  /**
   * Largest distance, in ns, of a Worker's reading outside the main thread's readings taken just
   * before asking and just after the answer; 0 when every reading fell between them.
   */
  maxSkewNs: number;
  /** Longest of those round trips, in ns: the precision of the check. */
  maxRoundTripNs: number;
}

/** How a phase's concurrency is split over Workers: slots per Worker, each ≥ 1. */
export function splitSlots(concurrency: number, workers: number): number[] {
  const n = Math.max(1, Math.min(workers, concurrency));
  const base = Math.floor(concurrency / n);
  return Array.from({ length: n }, (_, i) => base + (i < concurrency % n ? 1 : 0));
}

/** Live counters of a Worker, for progress and the API. */
export interface WorkerState {
  requests: number;
  errors: number;
  state: "starting" | "idle" | "running" | "done" | "failed";
}

/** A running pool of Workers sharing one set of counters. */
export class WorkerPool {
  readonly control: Int32Array;
  readonly workers: Worker[] = [];
  readonly states: WorkerState[] = [];
  #onRecords: (records: RequestRecord[]) => void = () => {};
  #pendingDone = new Map<number, () => void>();
  #pendingPrepared = new Map<number, (opened: number) => void>();
  #clockReplies = new Map<number, (ns: bigint) => void>();
  /** The clock check made at start. */
  clock: ClockCheck = { maxSkewNs: 0, maxRoundTripNs: 0 };
  #fatal: ((e: Error) => void) | null = null;
  /** The start was cancelled (its signal aborted): the Workers are terminated, nothing runs. */
  cancelled = false;

  private constructor(workers: number) {
    this.control = createControl(workers);
  }

  /**
   * Starts `count` Workers and hands each the conversations; their bodies are packed once into
   * shared memory, which every Worker reads instead of holding its own copy. When `signal`
   * aborts first (Ctrl+C while the Workers load), the start ends at once: the pool comes back
   * `cancelled`, its Workers terminated.
   */
  static async start(
    count: number,
    conversations: PlannedConversation[],
    opts: { moduleUrl?: URL; signal?: AbortSignal } = {},
  ): Promise<WorkerPool> {
    const moduleUrl = opts.moduleUrl ?? workerModuleUrl();
    const pool = new WorkerPool(count);
    const dataset = packConversations(conversations);
    const ready: Promise<void>[] = [];
    for (let id = 0; id < count; id++) {
      const w = new Worker(moduleUrl, { type: "module", name: `reprise-worker-${id}` });
      pool.workers.push(w);
      pool.states.push({ requests: 0, errors: 0, state: "starting" });
      ready.push(
        new Promise<void>((resolve, reject) => {
          w.onmessage = (ev: MessageEvent<FromWorker>) => {
            if (ev.data.type === "ready") {
              pool.states[id].state = "idle";
              resolve();
            } else pool.#handle(ev.data);
          };
          w.onerror = (ev) => {
            ev.preventDefault();
            // A Worker denied a permission (e.g. reading its own modules) is a permission
            // problem of the run, reported as such by the CLI, not a crash.
            const err = /Requires \w+ access to/.test(ev.message)
              ? new Deno.errors.NotCapable(ev.message)
              : new Error(`Worker ${id} failed: ${ev.message}`);
            pool.states[id].state = "failed";
            reject(err);
            pool.#fatal?.(err);
          };
        }),
      );
      const init: ToWorker = {
        type: "init",
        workerId: id,
        dataset,
        control: pool.control,
        plainPaths: plainPaths(),
      };
      w.postMessage(init);
    }
    const signal = opts.signal;
    if (signal === undefined) await Promise.all(ready);
    else {
      let onAbort = () => {};
      const aborted = new Promise<void>((resolve) => onAbort = resolve);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
      try {
        await Promise.race([Promise.all(ready), aborted]);
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
      if (signal.aborted) {
        pool.cancelled = true;
        // A Worker still loading may yet fail: nobody waits for it any more.
        for (const p of ready) p.catch(() => {});
        pool.close();
        return pool;
      }
    }
    pool.clock = await pool.checkClocks();
    return pool;
  }

  /**
   * Checks every Worker's clock (its own `performance.timeOrigin` + `performance.now()`) against
   * this thread's: each Worker's reading must fall between the readings taken here before the
   * question and after the answer.
   */
  async checkClocks(): Promise<ClockCheck> {
    const check: ClockCheck = { maxSkewNs: 0, maxRoundTripNs: 0 };
    for (let id = 0; id < this.workers.length; id++) {
      const reply = new Promise<bigint>((resolve) => this.#clockReplies.set(id, resolve));
      const before = nowNs();
      this.workers[id].postMessage({ type: "clock" } satisfies ToWorker);
      const ns = await reply;
      const after = nowNs();
      const skew = ns < before ? before - ns : ns > after ? ns - after : 0n;
      check.maxSkewNs = Math.max(check.maxSkewNs, Number(skew));
      check.maxRoundTripNs = Math.max(check.maxRoundTripNs, Number(after - before));
    }
    return check;
  }

  #handle(msg: FromWorker): void {
    if (msg.type === "records") {
      const s = this.states[msg.workerId];
      s.requests += msg.batch.count;
      s.errors += msg.batch.errors.length;
      this.#onRecords(unpackRecords(msg.batch));
    } else if (msg.type === "clock") {
      this.#clockReplies.get(msg.workerId)?.(msg.ns);
      this.#clockReplies.delete(msg.workerId);
    } else if (msg.type === "prepared") {
      this.#pendingPrepared.get(msg.workerId)?.(msg.opened);
      this.#pendingPrepared.delete(msg.workerId);
    } else if (msg.type === "done") {
      this.states[msg.workerId].state = "done";
      this.#pendingDone.get(msg.workerId)?.();
    } else if (msg.type === "fatal") {
      this.states[msg.workerId].state = "failed";
      this.#fatal?.(new Error(`Worker ${msg.workerId} failed: ${msg.message}`));
    }
  }

  /**
   * Runs one phase: resets the counters, gives each Worker its slots, and resolves when every
   * slot has finished. Records arrive through `onRecords` as Workers flush them.
   */
  runPhase(
    plan: PhasePlan,
    concurrency: number,
    onRecords: (records: RequestRecord[]) => void,
  ): Promise<void> {
    for (let i = 0; i < this.control.length; i++) Atomics.store(this.control, i, 0);
    // Set before any Worker starts: a ramp begins at one place, otherwise the cap holds.
    const cap = plan.maxConcurrency === undefined
      ? UNCAPPED
      : (plan.concurrencyRampMs ?? 0) > 0
      ? 1
      : plan.maxConcurrency;
    Atomics.store(this.control, Ctl.CAP, cap);
    const prefill = plan.prefillConcurrency;
    Atomics.store(
      this.control,
      Ctl.PREFILL_CAP,
      prefill === undefined ? UNCAPPED : (plan.prefillRampMs ?? 0) > 0 ? 1 : prefill,
    );
    this.#onRecords = onRecords;
    const split = splitSlots(concurrency, this.workers.length);
    return new Promise<void>((resolve, reject) => {
      let remaining = split.length;
      this.#fatal = reject;
      split.forEach((slots, id) => {
        this.states[id].state = "running";
        this.#pendingDone.set(id, () => {
          this.#pendingDone.delete(id);
          if (--remaining === 0) resolve();
        });
        const msg: ToWorker = { type: "run", plan, slots };
        this.workers[id].postMessage(msg);
      });
    });
  }

  /**
   * Before a phase's clock starts: each Worker that will run slots of it makes its transport and
   * opens its share of the connections the phase can use at once (its concurrency cap, or its
   * slots), so that no request of the phase connects inside its measured time. Resolves with how
   * many connections opened, in all.
   */
  async preparePhase(plan: PhasePlan, concurrency: number): Promise<number> {
    const split = splitSlots(concurrency, this.workers.length);
    const inFlight = plan.timing?.mode === "concurrency" || plan.maxConcurrency === undefined
      ? concurrency
      : Math.max(plan.maxConcurrency, split.length);
    const shares = splitSlots(inFlight, split.length);
    const opened = await new Promise<number[]>((resolve, reject) => {
      // A Worker failing meanwhile fails the phase, as it would while running.
      this.#fatal = reject;
      Promise.all(split.map((slots, id) =>
        new Promise<number>((done) => {
          this.#pendingPrepared.set(id, done);
          const msg: ToWorker = { type: "prepare", plan, slots, connections: shares[id] ?? 0 };
          this.workers[id].postMessage(msg);
        })
      )).then(resolve);
    });
    return opened.reduce((a, b) => a + b, 0);
  }

  /** Stops issuing new requests; in-flight ones finish. */
  stopIssuing(): void {
    Atomics.store(this.control, Ctl.STOP, 1);
    // Slots waiting for a concurrency place notice the stop now, not at their next timeout.
    Atomics.notify(this.control, Ctl.ACTIVE);
    Atomics.notify(this.control, Ctl.PREFILL_ACTIVE);
  }

  /** Sets how many requests may wait for their first token at once (a prefill ramp's step). */
  setPrefillCap(cap: number): void {
    Atomics.store(this.control, Ctl.PREFILL_CAP, cap);
    Atomics.notify(this.control, Ctl.PREFILL_ACTIVE);
  }

  /** Sets how many conversations may be in flight at once (a concurrency ramp's step). */
  setConcurrencyCap(cap: number): void {
    Atomics.store(this.control, Ctl.CAP, cap);
    Atomics.notify(this.control, Ctl.ACTIVE);
  }

  /** Cancels every in-flight request (they are recorded as cancelled). */
  abortInFlight(): void {
    this.stopIssuing();
    for (const w of this.workers) w.postMessage({ type: "abort" } satisfies ToWorker);
  }

  /** Terminates the Workers. */
  close(): void {
    for (const w of this.workers) w.terminate();
  }
}
