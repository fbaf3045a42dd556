/**
 * `shard.json`: what a shard of a sharded run (or a run started at `--start-at`) says about
 * itself beside its artifacts, for `reprise merge`: which shard it is, when it was meant to
 * start and when it did, and how far its clock is from the server's. Records are stamped with
 * each shard's own clock, so only this check can tell that two shards' times do not line up.
 */

import { writeArtifact } from "./artifact.ts";

/** The artifact's file name in a run directory. */
export const SHARD_INFO_FILE = "shard.json";

/**
 * A clock compared with a reference (the server's `Date` header): the reference minus the local
 * clock lies in `[lowMs, highMs]`.
 */
export interface ClockOffset {
  /** What the clock was compared with (`Date header of http://host:port`). */
  reference: string;
  lowMs: number;
  highMs: number;
  /** Answers read. */
  samples: number;
}

/** What one shard says about itself. */
export interface ShardInfo {
  /** Shard index from 0, and the number of shards; 0 of 1 for an unsharded run. */
  index: number;
  count: number;
  /** `--start-at` (epoch ns), or null. */
  startAtNs: bigint | null;
  /** When the shard was ready (loaded, connected, warmed up) to start profiling (epoch ns). */
  readyNs: bigint;
  /** The profiling phase's time zero on this shard's clock (epoch ns). */
  profilingStartNs: bigint;
  /** The clock check, or null when none could be made (no `Date` header, no answer). */
  clock: ClockOffset | null;
}

/** A clock farther than this from the reference is said to be off; shards then disagree. */
export const CLOCK_BOUND_MS = 100;

/** The file's JSON text: epoch ns as exact integer strings. */
export function shardInfoJson(info: ShardInfo): string {
  return JSON.stringify(
    {
      shard_index: info.index,
      shard_count: info.count,
      start_at_ns: info.startAtNs === null ? null : info.startAtNs.toString(),
      ready_ns: info.readyNs.toString(),
      profiling_start_ns: info.profilingStartNs.toString(),
      clock: info.clock === null ? null : {
        reference: info.clock.reference,
        offset_low_ms: info.clock.lowMs,
        offset_high_ms: info.clock.highMs,
        samples: info.clock.samples,
      },
      clock_bound_ms: CLOCK_BOUND_MS,
    },
    null,
    2,
  ) + "\n";
}

/** Writes `shard.json` (see {@link SHARD_INFO_FILE}). */
export async function writeShardInfo(path: string, info: ShardInfo): Promise<void> {
  await writeArtifact(path, shardInfoJson(info));
}

/** Reads `shard.json`'s text; throws an Error naming `file` when it is not one. */
export function parseShardInfo(text: string, file: string): ShardInfo {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error(`Cannot read "${file}": not valid JSON`);
  }
  const int = (key: string): number => {
    const v = doc[key];
    if (typeof v !== "number" || !Number.isInteger(v)) {
      throw new Error(`Cannot read "${file}": "${key}" is not an integer`);
    }
    return v;
  };
  const ns = (key: string): bigint | null => {
    const v = doc[key];
    if (v === null || v === undefined) return null;
    if (typeof v !== "string" || !/^-?\d+$/.test(v)) {
      throw new Error(`Cannot read "${file}": "${key}" is not an integer string`);
    }
    return BigInt(v);
  };
  const clock = doc.clock as Record<string, unknown> | null | undefined;
  return {
    index: int("shard_index"),
    count: int("shard_count"),
    startAtNs: ns("start_at_ns"),
    readyNs: ns("ready_ns") ?? 0n,
    profilingStartNs: ns("profiling_start_ns") ?? 0n,
    clock: clock && typeof clock === "object"
      ? {
        reference: String(clock.reference),
        lowMs: Number(clock.offset_low_ms),
        highMs: Number(clock.offset_high_ms),
        samples: Number(clock.samples),
      }
      : null,
  };
}

/**
 * The warning for a clock the check found off the reference by more than {@link CLOCK_BOUND_MS}
 * (the whole interval outside ±bound); null when it is within, or could not be told.
 */
export function clockWarning(clock: ClockOffset | null): string | null {
  if (clock === null) return null;
  if (clock.lowMs <= CLOCK_BOUND_MS && clock.highMs >= -CLOCK_BOUND_MS) return null;
  const ms = clock.lowMs > CLOCK_BOUND_MS ? clock.lowMs : -clock.highMs;
  const dir = clock.lowMs > CLOCK_BOUND_MS ? "behind" : "ahead of";
  return `the clock is at least ${
    Math.round(ms)
  } ms ${dir} the ${clock.reference} (bound ${CLOCK_BOUND_MS} ms): shards started at one --start-at do not start together`;
}
