/**
 * Starting shards together: each shard checks its clock, waits for `--start-at`, and after the
 * run says in `shard.json` when it was ready and when it started. No coordinator: the shared
 * instant and a common clock are the only common ground.
 *
 * The check needs no NTP. Each reading of the reference clock bounds the offset (reference minus
 * local) to `[low − t1, high − t0]`, where the reference read between `low` and `high` and the
 * request left at `t0` and its answer came at `t1` (Cristian's bound); readings are intersected.
 * Two references: a reprise live API's `/api/clock` (`--clock-reference`, shard 0's API in a
 * Kubernetes Job), exact to the round trip; or the server's `Date` header, which names a whole
 * second and which servers cache for up to a second (hyper, uvicorn), so a reading is only
 * `[S, S + 2 s)`: it tells a clock more than about 2 s off, never a false alarm.
 */

import { nowNs } from "../record/clock.ts";
import {
  type ClockOffset,
  clockWarning,
  type ShardInfo,
  writeShardInfo,
} from "../export/shard_info.ts";
import type { RunPlan } from "../plan/run_plan.ts";

/** The check's longest run without a start instant (and a `Date` header's, with one). */
const CHECK_MS = 1200;
/** A live API reading: this many, a little apart; the narrowest intersection is kept. */
const API_SAMPLES = 8;
/** What a `Date` header may lag the server's clock: its second, and up to a second of cache. */
const DATE_SPAN_MS = 2000;

/** One reading of a reference clock: it read between `lowMs` and `highMs` (epoch ms). */
export interface ClockReading {
  lowMs: number;
  highMs: number;
}

/** Reads a reference clock once; null when it gives no time (no `Date` header). */
export type ClockProbe = (signal: AbortSignal) => Promise<ClockReading | null>;

/** A reference clock: how to read it and what to call it. */
export interface ClockSource {
  name: string;
  probe: ClockProbe;
  /** Readings wanted (each narrows the interval), and the gap between them. */
  samples: number;
  gapMs: number;
  /**
   * The longest the check may take when the start leaves time for it: a live API may be still
   * starting (shard 0's pod pulled later), a `Date` header is read within a server second.
   */
  maxMs: number;
}

/** The server's `Date` header, read with HEAD on its origin. */
export function dateHeaderSource(url: string): ClockSource | null {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return null;
  }
  return {
    name: `Date header of ${origin}`,
    samples: 24,
    gapMs: 50,
    maxMs: CHECK_MS,
    probe: async (signal) => {
      const res = await fetch(origin + "/", { method: "HEAD", signal, redirect: "manual" });
      await res.body?.cancel();
      const s = Date.parse(res.headers.get("date") ?? "");
      return Number.isFinite(s) ? { lowMs: s, highMs: s + DATE_SPAN_MS } : null;
    },
  };
}

/** A reprise live API's `/api/clock`. */
export function liveApiSource(base: string): ClockSource {
  const url = `${base.replace(/\/+$/, "")}/api/clock`;
  return {
    name: `clock of ${base}`,
    samples: API_SAMPLES,
    gapMs: 10,
    maxMs: 60_000,
    probe: async (signal) => {
      const res = await fetch(url, { signal });
      if (!res.ok) {
        await res.body?.cancel();
        throw new Error(`HTTP ${res.status}`);
      }
      const ms = Number((await res.json()).epoch_ms);
      return Number.isFinite(ms) ? { lowMs: ms, highMs: ms } : null;
    },
  };
}

/** Epoch ms from the clock records are stamped with (sub-ms, unlike `Date.now()`). */
function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * The offset of the local clock from `source` (reference minus local), from readings taken for
 * at most `budgetMs`; null when none could be taken (no answer, no time in it). A reference not
 * up yet (shard 0 still loading) is asked again until the budget is spent.
 */
export async function checkClock(
  source: ClockSource,
  budgetMs: number,
  now: () => number = epochMs,
): Promise<ClockOffset | null> {
  const until = now() + Math.max(0, budgetMs);
  let low = -Infinity;
  let high = Infinity;
  let samples = 0;
  while (samples < source.samples) {
    const t0 = now();
    let r: ClockReading | null = null;
    let failed = false;
    try {
      r = await source.probe(AbortSignal.timeout(Math.max(250, until - t0)));
    } catch {
      failed = true;
    }
    const t1 = now();
    if (!failed && r === null) break;
    if (r !== null) {
      samples++;
      low = Math.max(low, r.lowMs - t1);
      high = Math.min(high, r.highMs - t0);
    }
    if (now() + source.gapMs >= until) break;
    await new Promise((res) => setTimeout(res, failed ? 100 : source.gapMs));
  }
  if (samples === 0) return null;
  return { reference: source.name, lowMs: low, highMs: high, samples };
}

/** How long a shard waits at the start barrier for the others before it gives up. */
export const BARRIER_WAIT_MS = 15 * 60_000;

/**
 * Asks the start barrier of the live API at `base` (shard 0's: `GET /api/barrier`) until every
 * shard has come; returns the instant they start at (epoch ms), or null when `signal` stopped
 * the wait. An API not up yet is asked again; no answer in {@link BARRIER_WAIT_MS} is an error.
 */
export async function waitAtBarrier(
  base: string,
  shard: { index: number; count: number },
  signal?: AbortSignal,
  opts: { gapMs?: number; waitMs?: number } = {},
): Promise<number | null> {
  const url = `${base.replace(/\/+$/, "")}/api/barrier?shard=${shard.index}&of=${shard.count}`;
  const until = epochMs() + (opts.waitMs ?? BARRIER_WAIT_MS);
  let last = "no answer";
  while (!signal?.aborted) {
    let refused: string | null = null;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      const body = await res.json();
      if (res.status === 400) refused = String(body.error);
      else if (body.ready === true && Number.isFinite(body.start_at_ms)) return body.start_at_ms;
      else last = `${body.seen} of ${body.of} shards ready`;
    } catch { /* not up yet */ }
    if (refused !== null) throw new Error(`the start barrier at ${base} refused: ${refused}`);
    if (epochMs() >= until) {
      throw new Error(`the start barrier at ${base} did not open (${last})`);
    }
    if (!(await waitForEpoch(epochMs() + (opts.gapMs ?? 200), signal))) return null;
  }
  return null;
}

/** Resolves at epoch ms `at` (at once when past); false when `signal` aborted first. */
export function waitForEpoch(at: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    // Timers may fire early by a fraction of a ms: the wait is checked against the clock again.
    const tick = (): ReturnType<typeof setTimeout> => {
      const left = at - epochMs();
      return setTimeout(() => left <= 0 ? done(true) : (timer = tick()), Math.max(0, left));
    };
    let timer = tick();
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** One shard's start: the clock check and the wait for `--start-at`, then its `shard.json`. */
export class ShardStart {
  #plan: RunPlan;
  #source: ClockSource | null;
  #info: ShardInfo | null = null;

  /** `url`: the target, whose `Date` header is the reference without `--clock-reference`. */
  constructor(plan: RunPlan, url: string, source?: ClockSource | null) {
    this.#plan = plan;
    this.#source = source !== undefined
      ? source
      : plan.clockReference !== null
      ? liveApiSource(plan.clockReference)
      : dateHeaderSource(url);
  }

  /**
   * Checks the clock, then waits for `--start-at`; returns the profiling phase's time zero
   * (epoch ms; undefined without `--start-at`: the phase starts now), or null when `signal`
   * stopped the wait. Warnings (clock off, ready too late) go to `warn`.
   */
  async begin(
    warn: (line: string) => void,
    signal?: AbortSignal,
  ): Promise<number | undefined | null> {
    const shard = this.#plan.shard ?? { index: 0, count: 1 };
    let at = this.#plan.startAtMs;
    if (at === null && this.#plan.startBarrier !== null) {
      at = await waitAtBarrier(this.#plan.startBarrier, shard, signal);
      if (at === null) return null;
    }
    const readyNs = nowNs();
    // The check may use the time left before the start, up to the source's longest.
    const source = this.#source;
    const most = source?.maxMs ?? CHECK_MS;
    const budget = at === null ? CHECK_MS : Math.min(most, at - epochMs() - 100);
    const clock = source === null ? null : await checkClock(source, budget);
    const off = clockWarning(clock);
    if (off !== null) warn(`warning: ${off}`);
    if (clock === null && this.#source !== null) {
      warn(`warning: the clock was not checked: the ${this.#source.name} gave no time`);
    }
    const lateMs = at === null ? 0 : epochMs() - at;
    if (at !== null && lateMs > 0) {
      warn(
        `warning: ready ${
          Math.round(lateMs)
        } ms after --start-at: this shard's first requests are late by that much (set --start-at further ahead)`,
      );
    }
    this.#info = {
      index: shard.index,
      count: shard.count,
      startAtNs: at === null ? null : BigInt(Math.round(at * 1e6)),
      readyNs,
      profilingStartNs: at === null ? nowNs() : BigInt(Math.round(at * 1e6)),
      clock,
    };
    if (at === null) return undefined;
    return (await waitForEpoch(at, signal)) ? at : null;
  }

  /** Writes `shard.json` at `path`, when the profiling phase began. */
  async write(path: string): Promise<void> {
    if (this.#info !== null) await writeShardInfo(path, this.#info);
  }
}
