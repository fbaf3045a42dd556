/** The Load options of `profile`. */

import { z } from "zod";
import { compat, fraction, nonNegative, opt, type OptionKind, positiveInt } from "./spec.ts";

/**
 * The Load options of `profile`: concurrency, rates, limits, phases, schedules and the HTTP client.
 * Keys are the config field names.
 */
export const loadOptions = {
  concurrency: opt({
    flag: "concurrency",
    kind: "number",
    schema: positiveInt,
    expect: "a positive integer",
    default: 1,
    group: "Load",
    help: "Conversations in flight at once.",
    metavar: "N",
  }),
  requestCount: opt({
    flag: "request-count",
    aliases: ["num-requests"],
    kind: "number",
    schema: positiveInt,
    expect: "a positive integer",
    group: "Load",
    help: "Stop issuing after this many requests (default: every payload of the dataset once).",
    metavar: "N",
  }),
  transport: opt<"auto" | "fetch" | "http1">({
    flag: "transport",
    env: ["REPRISE_TRANSPORT"],
    kind: "string",
    schema: z.enum(["auto", "fetch", "http1"]),
    expect: "one of auto, http, fetch, http1",
    default: "auto",
    // AIPerf's only transport is `http`: it means reprise's default.
    valueAliases: { http: "auto" },
    group: "Load",
    help:
      "HTTP client: http1 (reprise's own HTTP/1.1 client, far cheaper per streamed token), fetch (honours HTTP(S)_PROXY), or auto (http1 unless a proxy is set); `http` (AIPerf's name) is auto.",
    metavar: "KIND",
  }),
  workersMax: opt({
    flag: "workers-max",
    aliases: ["max-workers"],
    kind: "number",
    schema: positiveInt,
    expect: "a positive integer",
    group: "Load",
    help:
      "Worker threads to run the slots on, at most one per concurrent request (default: one per 512 concurrent requests, at most the number of cores; with a request rate or a schedule, the number of cores).",
    metavar: "N",
  }),
  requestRate: opt({
    flag: "request-rate",
    kind: "number",
    schema: z.number().positive(),
    expect: "a positive number of requests per second",
    group: "Load",
    help:
      "Target requests per second, sent on an absolute schedule; with --concurrency, capped by it.",
    metavar: "RPS",
  }),
  arrivalPattern: opt<"constant" | "poisson" | "gamma">({
    flag: "arrival-pattern",
    aliases: ["request-rate-mode"],
    kind: "string",
    schema: z.enum(["constant", "poisson", "gamma"]),
    expect: "one of constant, poisson, gamma",
    default: "poisson",
    group: "Load",
    help: "Gaps between requests at --request-rate: equal, exponential, or gamma-distributed.",
    metavar: "PATTERN",
  }),
  arrivalSmoothness: opt({
    flag: "arrival-smoothness",
    aliases: ["vllm-burstiness"],
    kind: "number",
    schema: z.number().positive(),
    expect: "a positive number",
    default: 1,
    group: "Load",
    help:
      "Gamma shape for --arrival-pattern gamma: 1 is Poisson, above 1 smoother, below burstier.",
    metavar: "K",
  }),
  requestRateRampDuration: opt({
    flag: "request-rate-ramp-duration",
    kind: "number",
    schema: nonNegative,
    expect: "a non-negative number of seconds",
    group: "Load",
    help: "Raise the request rate linearly to its target over this many seconds (0.1 s steps).",
    metavar: "S",
  }),
  concurrencyRampDuration: opt({
    flag: "concurrency-ramp-duration",
    kind: "number",
    schema: nonNegative,
    expect: "a non-negative number of seconds",
    group: "Load",
    help: "Raise concurrency from 1 to its target over this many seconds (0.1 s steps).",
    metavar: "S",
  }),
  benchmarkDuration: opt({
    flag: "benchmark-duration",
    kind: "number",
    schema: z.number().positive(),
    expect: "a positive number of seconds",
    group: "Load",
    help: "Stop issuing after this many seconds (or at --request-count, whichever comes first).",
    metavar: "S",
  }),
  benchmarkGracePeriod: opt({
    flag: "benchmark-grace-period",
    kind: "number",
    schema: nonNegative,
    expect: "a non-negative number of seconds",
    default: 30,
    group: "Load",
    help:
      "After --benchmark-duration, wait this long for requests in flight, then cancel the rest.",
    metavar: "S",
  }),
  failedRequestThreshold: opt({
    flag: "failed-request-threshold",
    kind: "number",
    schema: fraction,
    expect: "a fraction from 0 to 1",
    group: "Load",
    help:
      "Abort the run (exit 6) when failed/completed exceeds this, checked after max(concurrency, 10) requests.",
    metavar: "RATIO",
  }),
  requestCancellationRate: opt({
    flag: "request-cancellation-rate",
    kind: "number",
    schema: z.number().min(0).max(100),
    expect: "a percentage from 0 to 100",
    default: 0,
    group: "Load",
    help: "Percent of requests cancelled on purpose (recorded as cancelled, code 499).",
    metavar: "PCT",
  }),
  requestCancellationDelay: opt({
    flag: "request-cancellation-delay",
    kind: "number",
    schema: nonNegative,
    expect: "a non-negative number of seconds",
    default: 0,
    group: "Load",
    help: "Seconds after sending that a request chosen for cancellation is cancelled.",
    metavar: "S",
  }),
  warmupRequestCount: opt({
    flag: "warmup-request-count",
    aliases: ["num-warmup-requests"],
    kind: "number",
    schema: positiveInt,
    expect: "a positive integer",
    group: "Load",
    help: "Send this many requests first, left out of the results (exported as warmup_metrics).",
    metavar: "N",
  }),
  warmupDuration: opt({
    flag: "warmup-duration",
    kind: "number",
    schema: z.number().positive(),
    expect: "a positive number of seconds",
    group: "Load",
    help: "Warm up for this many seconds first, left out of the results.",
    metavar: "S",
  }),
  warmupConcurrency: opt({
    flag: "warmup-concurrency",
    kind: "number",
    schema: positiveInt,
    expect: "a positive integer",
    group: "Load",
    help: "Concurrency of the warmup (default: --concurrency).",
    metavar: "N",
  }),
  warmupRequestRate: opt({
    flag: "warmup-request-rate",
    kind: "number",
    schema: z.number().positive(),
    expect: "a positive number of requests per second",
    group: "Load",
    help: "Request rate of the warmup (default: --request-rate).",
    metavar: "RPS",
  }),
  fixedSchedule: opt({
    flag: "fixed-schedule",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Load",
    help:
      "Send each conversation at its recorded timestamp (trace datasets); on when they have one.",
  }),
  fixedScheduleAutoOffset: opt({
    flag: "fixed-schedule-auto-offset",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Load",
    help: "Shift the schedule so its first timestamp is sent at once.",
  }),
  fixedScheduleStartOffset: opt({
    flag: "fixed-schedule-start-offset",
    kind: "number",
    schema: nonNegative,
    expect: "a non-negative number of milliseconds",
    group: "Load",
    help: "Replay only conversations starting at or after this timestamp (ms).",
    metavar: "MS",
  }),
  fixedScheduleEndOffset: opt({
    flag: "fixed-schedule-end-offset",
    kind: "number",
    schema: nonNegative,
    expect: "a non-negative number of milliseconds",
    group: "Load",
    help: "Replay only conversations starting at or before this timestamp (ms).",
    metavar: "MS",
  }),
  sessionDelayRatio: opt({
    flag: "session-delay-ratio",
    kind: "number",
    schema: nonNegative,
    expect: "a non-negative number",
    default: 1,
    group: "Load",
    help: "Scale every delay between turns of a conversation.",
    metavar: "R",
  }),
} as const;

const AGENTIC = "agentic trace replay is not built yet";

/** A not-yet Load flag. */
function loadFlag<T>(
  why: string,
  flag: string,
  kind: OptionKind,
  def: T | undefined,
  help: string,
) {
  return compat<T>({ flag, kind, default: def, group: "Load", help, status: "not-yet", why });
}

/**
 * AIPerf's Load Generator flags that reprise parses without their feature (agentic replay,
 * scenarios); their defaults are accepted.
 */
export const loadCompatOptions = {
  trajectoryStartMinRatio: loadFlag(AGENTIC, "trajectory-start-min-ratio", "number", 0.25, "Min."),
  trajectoryStartMaxRatio: loadFlag(AGENTIC, "trajectory-start-max-ratio", "number", 0.75, "Max."),
  burstPhaseStarts: loadFlag(AGENTIC, "burst-phase-starts", "boolean", false, "Burst starts."),
  traceIdleGapCapSeconds: loadFlag(
    AGENTIC,
    "trace-idle-gap-cap-seconds",
    "number",
    undefined,
    "Clamp trace idle gaps.",
  ),
  systemIdleGapCapSeconds: loadFlag(
    AGENTIC,
    "system-idle-gap-cap-seconds",
    "number",
    undefined,
    "Clamp system idle gaps.",
  ),
  agenticCacheWarmupDuration: loadFlag(
    AGENTIC,
    "agentic-cache-warmup-duration",
    "number",
    undefined,
    "Agentic cache warmup (s).",
  ),
  agenticWarmupGracePeriod: loadFlag(
    AGENTIC,
    "agentic-warmup-grace-period",
    "number",
    undefined,
    "Agentic warmup grace period (s).",
  ),
  scenario: loadFlag(
    "scenarios (locked benchmark recipes) are not built yet",
    "scenario",
    "string",
    undefined,
    "A scenario that locks the run's invariants.",
  ),
  unsafeOverride: loadFlag(
    "scenarios (locked benchmark recipes) are not built yet",
    "unsafe-override",
    "boolean",
    false,
    "Override a scenario's locked values.",
  ),
} as const;
