/**
 * What a run plan is made of: the conversations as the load sends them, and the parameters of
 * one phase as every Worker receives them. The plan (this folder) builds them; the load layer
 * consumes them.
 */

import type { LiveTurns } from "../dataset/types.ts";
import type { EndpointOptions } from "../endpoints/mod.ts";
import type { Phase } from "../record/record.ts";
import type { TransportKind } from "../transport/select.ts";
import type { Body } from "../util/body_store.ts";
import type { ProxySettings } from "../transport/proxy.ts";

/** A conversation as Workers hold it: the session id and the body of each turn. */
export interface PlannedConversation {
  sessionId: string;
  /** Each turn's body: its text, or where a `BodyStore` holds it (bodies heavy with media). */
  bodies: Body[];
  /** Per turn: ms to wait after the previous answer before sending (absent = 0). */
  delaysMs?: number[];
  /** Per turn: recorded send time in ms (trace replay with a fixed schedule). */
  timestampsMs?: (number | undefined)[];
  /** Built turns with live history (`deltas_without_responses`): bodies are made at send time. */
  live?: LiveTurns;
}

/** How gaps between requests are distributed. */
export type ArrivalPattern = "constant" | "poisson" | "gamma";

/** A request-rate schedule: target rate, gap distribution, and an optional linear ramp. */
export interface RateSchedule {
  /** Requests per second once any ramp is over (with a series: its last rate). */
  rate: number;
  /**
   * A piecewise-linear rate (`--request-rate-series`): `[ms from the start, requests/s]` points,
   * times increasing, the first at 0; the last rate holds after the last point. Replaces
   * `rate` and `rampMs`.
   */
  series?: [number, number][];
  pattern: ArrivalPattern;
  /** Gamma shape: 1 is Poisson, larger is smoother, smaller is burstier. */
  smoothness: number;
  /** Ramp from a tenth-second step of the rate up to `rate` over this many ms (0: none). */
  rampMs: number;
  seed: number;
}

/**
 * When conversations start. `concurrency`: each slot starts the next one as soon as it is free.
 * `rate`: on a seeded arrival schedule. `fixed`: at recorded times, the i-th arrival being
 * conversation `order[i]` at `offsetsMs[i]` after the start.
 */
export type Timing =
  | { mode: "concurrency" }
  /**
   * User-centric rate: `users` slots, each a user sending its conversation's turns `gapMs` apart
   * (each after the previous answer), user `u` starting at `u * gapMs / users`.
   */
  | { mode: "users"; users: number; gapMs: number }
  | { mode: "rate"; schedule: RateSchedule }
  | { mode: "fixed"; order: number[]; offsetsMs: number[]; shiftMs: number };

/** How connections are reused (`--connection-reuse-strategy`). */
export type ReuseStrategy = "pooled" | "never" | "sticky";

/** One part of a sharded run: shard `index` (from 0) of `count` (`plan/shard.ts`). */
export interface ShardSpec {
  index: number;
  count: number;
}

/** The parameters of one phase, identical for every Worker. */
export interface PhasePlan {
  phase: Phase;
  /** Full request URL (the first of `urls`). */
  url: string;
  /**
   * Several full request URLs (`--url` repeated), taken in turn: per request, or per
   * conversation when `reuse` is sticky. Absent with one URL.
   */
  urls?: string[];
  /** Connection reuse; absent means pooled. */
  reuse?: ReuseStrategy;
  /** The header carrying the conversation id (`--session-header`); absent: X-Correlation-ID. */
  sessionHeader?: string;
  /** Most requests waiting for their first token at once (`--prefill-concurrency`). */
  prefillConcurrency?: number;
  /** Raise the prefill cap from 1 to `prefillConcurrency` over this many ms. */
  prefillRampMs?: number;
  /** Headers sent with every request (auth, content type, user headers). */
  headers: Record<string, string>;
  /**
   * The secret values the headers and URL carry (`targetSecrets`): replaced in every error
   * message a Worker records, since a server may quote them back.
   */
  secrets?: string[];
  endpointType: string;
  /** JMESPath expression selecting the answer text (raw endpoint, `--extra-inputs response_field:`). */
  responseField?: string;
  /** The endpoint's own options (template text, video polling); absent for most endpoints. */
  endpointOptions?: EndpointOptions;
  streaming: boolean;
  timeoutMs: number;
  /** Stop issuing after this many requests. */
  requestLimit: number;
  /** Start at most this many conversations. */
  conversationLimit: number;
  sampling: "sequential" | "random" | "shuffle";
  seed: number;
  /** The HTTP client (`--transport`, `auto` already decided); absent means fetch. */
  transport?: TransportKind;
  /**
   * The proxies the HTTP/1.1 client goes through (read from the environment on the main thread,
   * which alone reads it); absent: none, or fetch, which reads them itself.
   */
  proxies?: ProxySettings;
  /**
   * Records carry their connection's trace (`--export-http-trace`): the time spent connecting and
   * whether the connection was reused.
   */
  httpTrace?: boolean;
  /** How conversations are started; absent means closed-loop concurrency. */
  timing?: Timing;
  /** The phase's time zero, epoch ms (fractional): every Worker's schedule counts from it. */
  startEpochMs?: number;
  /** Issue nothing scheduled later than this many ms after the start (absent: no limit). */
  durationMs?: number;
  /** Percent of requests cancelled `cancelDelayMs` after they are sent. */
  cancelPercent?: number;
  cancelDelayMs?: number;
  /** Scales every turn delay (`--session-delay-ratio`). */
  delayRatio?: number;
  /** Most conversations in flight at once (absent: no cap beyond the slots). */
  maxConcurrency?: number;
  /** Raise the cap from 1 to `maxConcurrency` over this many ms (the main thread steps it). */
  concurrencyRampMs?: number;
  /**
   * Stop issuing once failed/completed exceeds this after `armAfter` completions. Workers check
   * it on the shared counters, so a fast-failing server cannot outrun the main thread's gate.
   */
  failedThreshold?: number;
  armAfter?: number;
  /**
   * This process's part of a sharded run: it starts the global sessions `i*count + index` (and,
   * with users, those users), so its arrivals are its share of the one global schedule.
   */
  shard?: ShardSpec;
}
