/**
 * Turns the load options into the phases of a run (an optional warmup, then profiling): which
 * timing mode each uses, its limits, and how many slots each Worker runs. Pure: the same
 * options give the same phases, so the plan can be tested without sending anything. A schedule
 * the dataset cannot follow is a `ConfigError` here, before the run has created anything.
 */

import type { ProfileConfig } from "../config/options.ts";
import { ConfigError } from "../config/parse.ts";
import type { PhasePlan, PlannedConversation, Timing } from "./types.ts";

/** No limit, as a count that still fits the shared Int32 counters. */
export const NO_LIMIT = 2 ** 31 - 1;

/** One phase as the runner needs it. */
export interface PhaseSpec {
  /** Everything but the start time, which is set when the phase begins. */
  plan: PhasePlan;
  /** Slot loops over all Workers: the concurrency in closed loop, one issuer per Worker else. */
  slots: number;
  /** Stop issuing after this long (ms from the phase start). */
  durationMs?: number;
  /** After a stop, wait this long for requests in flight before cancelling them. */
  graceMs: number;
  /** Abort when failed/completed exceeds this, once `armAfter` requests completed. */
  failedThreshold?: number;
  armAfter: number;
}

/** The load options a phase plan reads; `given` says which were set rather than defaulted. */
export type LoadConfig = Pick<
  ProfileConfig,
  | "concurrency"
  | "requestCount"
  | "requestRate"
  | "arrivalPattern"
  | "arrivalSmoothness"
  | "requestRateRampDuration"
  | "concurrencyRampDuration"
  | "benchmarkDuration"
  | "benchmarkGracePeriod"
  | "failedRequestThreshold"
  | "requestCancellationRate"
  | "requestCancellationDelay"
  | "warmupRequestCount"
  | "warmupDuration"
  | "warmupConcurrency"
  | "warmupRequestRate"
  | "fixedSchedule"
  | "fixedScheduleAutoOffset"
  | "fixedScheduleStartOffset"
  | "fixedScheduleEndOffset"
  | "sessionDelayRatio"
  | "workersMax"
  | "prefillConcurrency"
  | "prefillConcurrencyRampDuration"
  | "userCentricRate"
  | "numUsers"
  | "requestRateSeries"
  | "warmupArrivalPattern"
  | "warmupGracePeriod"
  | "warmupPrefillConcurrency"
  | "warmupConcurrencyRampDuration"
  | "warmupPrefillConcurrencyRampDuration"
  | "warmupRequestRateRampDuration"
  | "numWarmupSessions"
>;

/** The request-independent part of every phase's plan: target, endpoint, client, sampling, seed. */
export type BasePlan = Pick<
  PhasePlan,
  | "url"
  | "headers"
  | "secrets"
  | "endpointType"
  | "responseField"
  | "endpointOptions"
  | "streaming"
  | "timeoutMs"
  | "sampling"
  | "seed"
  | "transport"
  | "proxies"
  | "urls"
  | "reuse"
  | "sessionHeader"
>;

/** Whether the run replays recorded timestamps: asked for, or the dataset carries them. */
export function usesFixedSchedule(
  config: LoadConfig,
  given: ReadonlySet<string>,
  conversations: PlannedConversation[],
): boolean {
  if (given.has("fixedSchedule")) return config.fixedSchedule;
  return conversations.length > 0 && conversations[0].timestampsMs?.[0] !== undefined;
}

/** The concurrency the user set, or undefined when it is only the default. */
function givenConcurrency(config: LoadConfig, given: ReadonlySet<string>): number | undefined {
  return given.has("concurrency") ? config.concurrency : undefined;
}

/**
 * Concurrent requests one Worker takes in a closed loop before another is started. One Worker
 * reads about 1.5M SSE events/s; below this many streams a second one only adds thread wake-ups
 * and smaller record batches, and on a machine whose cores the server shares it competes with
 * the server for them. Measured on 2 cores against the mock (bench/notes/cpu.md): at 64-256 streams
 * one Worker used 7-39% less CPU per request than two at 11 of 12 points; at 512 streams of
 * 16-token answers, one Worker with 8 KiB read buffers used 4.5-12 us (10-24%) less CPU per
 * request than two of 256 (three alternating pairs of runs), while two processes of 256 streams
 * side by side each paid 8 us a request more than one alone; at 4,096 two Workers kept the timing
 * tails far lower.
 */
export const SLOTS_PER_WORKER = 512;

/**
 * Worker threads for the run: open-loop phases (rate, fixed schedule) use every allowed core.
 * Closed-loop ones use `--workers-max` Workers when it is given (no more than their
 * concurrency, as in AIPerf), else one per {@link SLOTS_PER_WORKER} concurrent requests, within
 * the cores.
 */
export function poolSize(config: LoadConfig, fixed: boolean, cores: number): number {
  const limit = Math.max(1, config.workersMax ?? cores);
  if (
    fixed || config.requestRate !== undefined || config.warmupRequestRate !== undefined ||
    config.requestRateSeries !== undefined || config.userCentricRate !== undefined
  ) {
    return limit;
  }
  const concurrency = Math.max(config.concurrency, config.warmupConcurrency ?? 0);
  // Only reached without a rate: a burst warmup runs at its concurrency.
  const wanted = config.workersMax !== undefined
    ? concurrency
    : Math.ceil(concurrency / SLOTS_PER_WORKER);
  return Math.min(limit, Math.max(1, wanted));
}

/** The fixed-schedule timing: conversations in the offset window, sorted by first timestamp. */
export function fixedTiming(
  config: LoadConfig,
  conversations: PlannedConversation[],
): Extract<Timing, { mode: "fixed" }> & { turns: number } {
  const starts: { index: number; ts: number }[] = [];
  conversations.forEach((c, index) => {
    const ts = c.timestampsMs?.[0];
    if (ts === undefined) {
      throw new ConfigError(
        `--fixed-schedule needs a timestamp on every conversation's first turn; conversation "${c.sessionId}" has none`,
      );
    }
    const from = config.fixedScheduleStartOffset ?? -Infinity;
    const to = config.fixedScheduleEndOffset ?? Infinity;
    if (ts >= from && ts <= to) starts.push({ index, ts });
  });
  if (starts.length === 0) {
    throw new ConfigError(
      "no conversation starts inside --fixed-schedule-start-offset/--fixed-schedule-end-offset",
    );
  }
  starts.sort((a, b) => a.ts - b.ts || a.index - b.index);
  const shiftMs = config.fixedScheduleAutoOffset
    ? starts[0].ts
    : config.fixedScheduleStartOffset ?? 0;
  return {
    mode: "fixed",
    order: starts.map((s) => s.index),
    offsetsMs: starts.map((s) => s.ts - shiftMs),
    shiftMs,
    turns: starts.reduce((n, s) => n + conversations[s.index].bodies.length, 0),
  };
}

/** The phases of a run, warmup first. `workers` is the pool size. */
export function planPhases(opts: {
  config: LoadConfig;
  given: ReadonlySet<string>;
  conversations: PlannedConversation[];
  base: BasePlan;
  workers: number;
  /** The `--request-rate-series` points (`parseRateSeries`), when one was given. */
  series?: [number, number][];
}): PhaseSpec[] {
  const { config, given, conversations, base, workers, series } = opts;
  const totalTurns = conversations.reduce((n, c) => n + c.bodies.length, 0);
  const graceMs = config.benchmarkGracePeriod * 1000;
  const cancel = {
    cancelPercent: config.requestCancellationRate,
    cancelDelayMs: config.requestCancellationDelay * 1000,
    delayRatio: config.sessionDelayRatio,
  };
  const phases: PhaseSpec[] = [];
  const conc = givenConcurrency(config, given);

  if (
    config.warmupRequestCount !== undefined || config.warmupDuration !== undefined ||
    config.numWarmupSessions !== undefined
  ) {
    const pattern = config.warmupArrivalPattern ?? config.arrivalPattern;
    const rate = pattern === "concurrency_burst"
      ? undefined
      : config.warmupRequestRate ?? config.requestRate;
    const wconc = config.warmupConcurrency ?? conc;
    const timing: Timing = rate === undefined ? { mode: "concurrency" } : {
      mode: "rate",
      schedule: {
        rate,
        pattern: pattern === "concurrency_burst" ? "poisson" : pattern,
        smoothness: config.arrivalSmoothness,
        rampMs: (config.warmupRequestRateRampDuration ?? 0) * 1000,
        seed: base.seed ^ 0x5a5a5a5a,
      },
    };
    const wprefill = config.warmupPrefillConcurrency ?? config.prefillConcurrency;
    const warmupGraceMs = config.warmupGracePeriod === undefined
      ? graceMs
      : config.warmupGracePeriod * 1000;
    phases.push({
      plan: {
        ...base,
        ...cancel,
        phase: "warmup",
        timing,
        requestLimit: config.warmupRequestCount ?? NO_LIMIT,
        conversationLimit: config.numWarmupSessions ?? NO_LIMIT,
        durationMs: config.warmupDuration === undefined ? undefined : config.warmupDuration * 1000,
        maxConcurrency: rate === undefined ? wconc ?? config.concurrency : wconc,
        concurrencyRampMs: (config.warmupConcurrencyRampDuration ?? 0) * 1000,
        ...prefill(wprefill, config.warmupPrefillConcurrencyRampDuration),
      },
      slots: rate === undefined ? wconc ?? config.concurrency : workers,
      durationMs: config.warmupDuration === undefined ? undefined : config.warmupDuration * 1000,
      graceMs: warmupGraceMs,
      armAfter: NO_LIMIT,
    });
  }

  const unbounded = config.benchmarkDuration !== undefined;
  let timing: Timing;
  let requestLimit = config.requestCount ?? (unbounded ? NO_LIMIT : totalTurns);
  let conversationLimit = config.requestCount !== undefined || unbounded
    ? NO_LIMIT
    : conversations.length;
  if (usesFixedSchedule(config, given, conversations)) {
    const { turns, ...fixed } = fixedTiming(config, conversations);
    timing = fixed;
    conversationLimit = fixed.order.length;
    requestLimit = Math.min(config.requestCount ?? turns, turns);
  } else if (config.userCentricRate !== undefined && config.numUsers !== undefined) {
    const users = config.numUsers;
    timing = { mode: "users", users, gapMs: (users / config.userCentricRate) * 1000 };
  } else if (series !== undefined) {
    timing = {
      mode: "rate",
      schedule: {
        rate: series[series.length - 1][1],
        series,
        pattern: config.arrivalPattern === "concurrency_burst" ? "poisson" : config.arrivalPattern,
        smoothness: config.arrivalSmoothness,
        rampMs: 0,
        seed: base.seed,
      },
    };
  } else if (config.requestRate !== undefined && config.arrivalPattern !== "concurrency_burst") {
    timing = {
      mode: "rate",
      schedule: {
        rate: config.requestRate,
        pattern: config.arrivalPattern,
        smoothness: config.arrivalSmoothness,
        rampMs: (config.requestRateRampDuration ?? 0) * 1000,
        seed: base.seed,
      },
    };
  } else timing = { mode: "concurrency" };
  const durationMs = config.benchmarkDuration === undefined
    ? undefined
    : config.benchmarkDuration * 1000;
  phases.push({
    plan: {
      ...base,
      ...cancel,
      phase: "profiling",
      timing,
      requestLimit,
      conversationLimit,
      durationMs,
      maxConcurrency: timing.mode === "concurrency" ? config.concurrency : conc,
      concurrencyRampMs: (config.concurrencyRampDuration ?? 0) * 1000,
      ...prefill(config.prefillConcurrency, config.prefillConcurrencyRampDuration),
      failedThreshold: config.failedRequestThreshold,
      armAfter: Math.max(config.concurrency, 10),
    },
    slots: timing.mode === "concurrency"
      ? config.concurrency
      : timing.mode === "users"
      ? timing.users
      : workers,
    durationMs,
    graceMs,
    failedThreshold: config.failedRequestThreshold,
    armAfter: Math.max(config.concurrency, 10),
  });
  return phases;
}

/** A phase's prefill cap and its ramp (in ms), left out when there is none. */
function prefill(
  cap: number | undefined,
  rampS: number | undefined,
): Pick<PhasePlan, "prefillConcurrency" | "prefillRampMs"> {
  if (cap === undefined) return {};
  return rampS ? { prefillConcurrency: cap, prefillRampMs: rampS * 1000 } : {
    prefillConcurrency: cap,
  };
}
