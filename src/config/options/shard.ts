/**
 * The sharding options of `profile`: one benchmark run by several processes (Kubernetes pods),
 * each sending its part of one global plan, and all of them starting at one instant. The
 * partition itself is the plan's (`src/plan/shard.ts`); `reprise merge` joins the parts.
 */

import { z } from "zod";
import { opt, positiveInt } from "./spec.ts";

/** `i/N`: shard `i` (from 0) of `N`. */
const SHARD_PATTERN = /^(\d+)\/(\d+)$/;

/** `--start-at`: an RFC 3339 date-time with a zone, or unix seconds. */
const START_AT_PATTERN =
  /^(\d+(\.\d+)?|\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2}))$/;

/** The sharding options. Keys are the config field names. */
export const shardOptions = {
  shard: opt({
    flag: "shard",
    env: ["REPRISE_SHARD"],
    kind: "string",
    schema: z.string().regex(SHARD_PATTERN),
    expect: "i/N: this shard's index from 0 and the number of shards, as 1/4",
    check: (v) => {
      const [, i, n] = SHARD_PATTERN.exec(v)!;
      if (Number(n) < 1) return "needs at least one shard";
      if (Number(i) >= Number(n)) return `index ${i} is not below the shard count ${n}`;
      return undefined;
    },
    group: "Sharding",
    help:
      "Run shard i of N of one benchmark: every shard builds the same global plan (same config, dataset and seed) and sends only its part of it (every N-th session from i, its share of the concurrency and of the request count, its arrivals of the one schedule). `reprise merge` joins the shards' artifacts.",
    metavar: "I/N",
    repriseOnly: true,
  }),
  shards: opt({
    flag: "shards",
    env: ["REPRISE_SHARDS"],
    kind: "number",
    schema: positiveInt,
    expect: "a positive number of shards",
    group: "Sharding",
    help:
      "Run one of this many shards, its index taken from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job sets it in each pod). --shard i/N says both at once.",
    metavar: "N",
    repriseOnly: true,
  }),
  startAt: opt({
    flag: "start-at",
    env: ["REPRISE_START_AT"],
    kind: "string",
    schema: z.string().regex(START_AT_PATTERN),
    expect: "an RFC 3339 time with a zone (2026-01-01T12:00:00Z) or unix seconds",
    group: "Sharding",
    help:
      "Load, connect and warm up, then start profiling at this instant, so that shards on several machines start together; the schedule counts from it. A shard whose clock is off the reference (--clock-reference, else the server's Date header) by more than 100 ms warns.",
    metavar: "TIME",
    repriseOnly: true,
  }),
  startBarrier: opt({
    flag: "start-barrier",
    env: ["REPRISE_START_BARRIER"],
    kind: "string",
    schema: z.string().regex(/^https?:\/\/[^\s]+$/),
    expect: "an http:// or https:// URL of a reprise live API",
    group: "Sharding",
    help:
      "Without --start-at: once ready, wait at this live API's start barrier (shard 0's --api-port: GET /api/barrier) until every shard is ready; all then start at the instant it gives, 2 s after the last one came.",
    metavar: "URL",
    repriseOnly: true,
  }),
  clockReference: opt({
    flag: "clock-reference",
    env: ["REPRISE_CLOCK_REFERENCE"],
    kind: "string",
    schema: z.string().regex(/^https?:\/\/[^\s]+$/),
    expect: "an http:// or https:// URL of a reprise live API",
    group: "Sharding",
    help:
      "Check this shard's clock against the live API at this URL (shard 0's --api-port: GET /api/clock, within the round trip) instead of the server's Date header (which only tells a clock more than about 2 s off).",
    metavar: "URL",
    repriseOnly: true,
  }),
} as const;

/** The options of `reprise merge`. */
export const mergeOptions = {
  output: opt({
    flag: "output",
    short: "o",
    kind: "string",
    schema: z.string().min(1),
    expect: "a folder path",
    group: "Output",
    help: "The folder the merged artifacts are written to (created).",
    metavar: "DIR",
  }),
  waitSeconds: opt({
    flag: "wait-seconds",
    kind: "number",
    schema: z.number().nonnegative(),
    expect: "a non-negative number of seconds",
    default: 0,
    group: "Input",
    help:
      "For a shard given by its live API URL: wait up to this long for its run to end (and for the API to come up) before reading its artifacts.",
    metavar: "S",
  }),
} as const;
