/**
 * The load and connection flags AIPerf scripts carry beyond concurrency and rate: several URLs,
 * connection reuse, the request body's type, prefill concurrency, the user-centric rate, a rate
 * series, burst arrivals, and the warmup's own settings. Each combination a run cannot follow is
 * a `ConfigError` here, before anything is created or sent; the derived values go in the plan.
 */

import type { ProfileConfig } from "../config/options.ts";
import { ConfigError } from "../config/parse.ts";
import type { TransportKind } from "../transport/select.ts";
import type { PlannedConversation, ReuseStrategy } from "./types.ts";

/** The options these checks read. */
export type LoadFlagsConfig = Pick<
  ProfileConfig,
  | "url"
  | "connectionReuseStrategy"
  | "requestContentType"
  | "prefillConcurrency"
  | "prefillConcurrencyRampDuration"
  | "userCentricRate"
  | "numUsers"
  | "requestRate"
  | "requestRateSeries"
  | "requestRateRampDuration"
  | "arrivalPattern"
  | "fixedSchedule"
  | "warmupArrivalPattern"
  | "warmupRequestRate"
  | "warmupGracePeriod"
  | "warmupPrefillConcurrency"
  | "warmupConcurrencyRampDuration"
  | "warmupPrefillConcurrencyRampDuration"
  | "warmupRequestRateRampDuration"
  | "warmupRequestCount"
  | "warmupDuration"
  | "numWarmupSessions"
>;

/** `--connection-reuse-strategy` as the transports name it. */
export function reuseStrategy(value: LoadFlagsConfig["connectionReuseStrategy"]): ReuseStrategy {
  return value === "sticky-user-sessions" ? "sticky" : value;
}

/**
 * A `--request-rate-series` file's points as `[ms from the start, requests/s]`: a JSON array of
 * `[seconds, rate]` pairs or of `{"time": seconds, "rate": rate}` objects (`time_s`, `t`,
 * `start` and `request_rate` are read too), times increasing from 0. A rate may be 0 between
 * points, not everywhere. `source` names the file in errors.
 */
export function parseRateSeries(text: string, source: string): [number, number][] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`--request-rate-series ${source} is not JSON: ${(e as Error).message}`);
  }
  if (data && typeof data === "object" && !Array.isArray(data)) {
    const o = data as Record<string, unknown>;
    data = o.series ?? o.points ?? o.schedule;
  }
  if (!Array.isArray(data) || data.length === 0) {
    throw new ConfigError(
      `--request-rate-series ${source} must hold a non-empty array of [seconds, rate] points`,
    );
  }
  const points: [number, number][] = data.map((p, i) => {
    let t: unknown, r: unknown;
    if (Array.isArray(p)) [t, r] = p;
    else if (p && typeof p === "object") {
      const o = p as Record<string, unknown>;
      t = o.time ?? o.time_s ?? o.t ?? o.start;
      r = o.rate ?? o.request_rate;
    }
    if (typeof t !== "number" || typeof r !== "number" || !(t >= 0) || !(r >= 0)) {
      throw new ConfigError(
        `--request-rate-series ${source}: point ${i} must be [seconds >= 0, rate >= 0]`,
      );
    }
    return [t * 1000, r];
  });
  for (let i = 1; i < points.length; i++) {
    if (!(points[i][0] > points[i - 1][0])) {
      throw new ConfigError(
        `--request-rate-series ${source}: times must increase (point ${i} is not after point ${
          i - 1
        })`,
      );
    }
  }
  if (points[0][0] !== 0) points.unshift([0, points[0][1]]);
  if (points[points.length - 1][1] <= 0) {
    throw new ConfigError(
      `--request-rate-series ${source}: the last rate must be positive (it holds to the end)`,
    );
  }
  return points;
}

/** What the checks need to know besides the options. */
export interface LoadFlagsContext {
  given: ReadonlySet<string>;
  streaming: boolean;
  transport: TransportKind;
  endpointType: string;
  conversations: PlannedConversation[];
  fixed: boolean;
}

/** Content types a request body may be sent as; only JSON bodies are built today. */
const CONTENT_TYPES = ["application/json", "multipart/form-data"];

/**
 * Throws a `ConfigError` for a load or connection flag the run cannot follow; returns the
 * warnings (one line each) for flags it ignores.
 */
export function checkLoadFlags(config: LoadFlagsConfig, ctx: LoadFlagsContext): string[] {
  const warnings: string[] = [];
  const asked = (key: keyof LoadFlagsConfig) => ctx.given.has(key);
  const ct = config.requestContentType.trim().toLowerCase();
  if (!CONTENT_TYPES.includes(ct)) {
    throw new ConfigError(
      `--request-content-type must be application/json or multipart/form-data, got "${config.requestContentType}"`,
    );
  }
  if (ct === "multipart/form-data" && ctx.endpointType !== "image_edit") {
    throw new ConfigError(
      `--request-content-type multipart/form-data: the ${ctx.endpointType} endpoint sends JSON bodies (only image_edit takes a form); use application/json`,
    );
  }
  if (config.connectionReuseStrategy !== "pooled" && ctx.transport === "fetch") {
    throw new ConfigError(
      `--connection-reuse-strategy ${config.connectionReuseStrategy} needs --transport http1: fetch keeps its own connection pool, which reprise cannot steer`,
    );
  }
  if (config.prefillConcurrency !== undefined && !ctx.streaming) {
    throw new ConfigError(
      "--prefill-concurrency needs --streaming (on an endpoint that streams): without a stream there is no first token to wait for",
    );
  }
  if (asked("prefillConcurrencyRampDuration") && config.prefillConcurrency === undefined) {
    throw new ConfigError("--prefill-concurrency-ramp-duration needs --prefill-concurrency");
  }
  const userRate = config.userCentricRate !== undefined;
  if (userRate !== (config.numUsers !== undefined)) {
    throw new ConfigError(
      "--user-centric-rate and --num-users go together: give both (QPS over N users)",
    );
  }
  if (userRate) {
    for (
      const [key, flag] of [
        ["requestRate", "--request-rate"],
        ["requestRateSeries", "--request-rate-series"],
        ["requestRateRampDuration", "--request-rate-ramp-duration"],
      ] as const
    ) {
      if (asked(key)) {
        throw new ConfigError(
          `--user-centric-rate cannot be used with ${flag}: the users' turn gaps set the rate`,
        );
      }
    }
    if (ctx.fixed) {
      throw new ConfigError(
        "--user-centric-rate cannot be used with a fixed schedule (the dataset's timestamps set when each request is sent)",
      );
    }
    const turns = ctx.conversations.reduce((n, c) => n + c.bodies.length, 0);
    if (ctx.conversations.length === 0 || turns / ctx.conversations.length < 2) {
      throw new ConfigError(
        "--user-centric-rate needs multi-turn conversations (2+ turns on average, e.g. --session-turns-mean 2): each user's turns are what it spaces out",
      );
    }
  }
  if (config.requestRateSeries !== undefined) {
    if (asked("requestRate")) {
      throw new ConfigError(
        "--request-rate-series cannot be used with --request-rate: the series gives the rate",
      );
    }
    if (asked("requestRateRampDuration")) {
      throw new ConfigError(
        "--request-rate-series cannot be used with --request-rate-ramp-duration: ramp in the series",
      );
    }
    if (ctx.fixed) {
      throw new ConfigError(
        "--request-rate-series cannot be used with a fixed schedule (the dataset's timestamps set when each request is sent)",
      );
    }
  }
  if (config.arrivalPattern === "concurrency_burst") {
    if (asked("requestRate") || config.requestRateSeries !== undefined || userRate) {
      throw new ConfigError(
        "--arrival-pattern concurrency_burst sends at no rate (each slot starts the next conversation when free): drop the rate, or pick constant, poisson or gamma",
      );
    }
  }
  if (
    config.warmupArrivalPattern === "concurrency_burst" &&
    (config.warmupRequestRate !== undefined || asked("requestRate"))
  ) {
    throw new ConfigError(
      "--warmup-arrival-pattern concurrency_burst sends the warmup at no rate: drop --warmup-request-rate (or --request-rate), or pick constant, poisson or gamma",
    );
  }
  const warmup = config.warmupRequestCount !== undefined || config.warmupDuration !== undefined ||
    config.numWarmupSessions !== undefined;
  if (!warmup) {
    for (
      const [key, flag] of [
        ["warmupArrivalPattern", "--warmup-arrival-pattern"],
        ["warmupGracePeriod", "--warmup-grace-period"],
        ["warmupPrefillConcurrency", "--warmup-prefill-concurrency"],
        ["warmupConcurrencyRampDuration", "--warmup-concurrency-ramp-duration"],
        ["warmupPrefillConcurrencyRampDuration", "--warmup-prefill-concurrency-ramp-duration"],
        ["warmupRequestRateRampDuration", "--warmup-request-rate-ramp-duration"],
      ] as const
    ) {
      if (asked(key)) {
        warnings.push(
          `warning: ${flag} is ignored: there is no warmup (give --warmup-request-count, --warmup-duration or --num-warmup-sessions)`,
        );
      }
    }
  }
  if (config.warmupPrefillConcurrency !== undefined && !ctx.streaming) {
    throw new ConfigError(
      "--warmup-prefill-concurrency needs --streaming (on an endpoint that streams)",
    );
  }
  return warnings;
}
