/**
 * Sharding: one global run plan cut into N deterministic parts, one per process (a Kubernetes
 * Indexed Job's pod). Every shard builds the same global plan from the same config, dataset and
 * seed; shard `i` then sends the global sessions `i, i+N, i+2N, …` (so the i-th arrival of a
 * request-rate or fixed schedule goes to shard `i mod N`, at the time the one global schedule
 * gives it: the union of all shards' send times is the single-machine schedule, as k6's
 * execution segments make it), with its share of the concurrency and of the request count.
 * Which sessions a shard takes is in the load (`globalSession`); the shares are worked out here.
 */

import { sampler } from "../dataset/sampling.ts";
import { ConfigError } from "../config/parse.ts";
import { NO_LIMIT, type PhaseSpec } from "./phases.ts";
import type { PlannedConversation, ShardSpec } from "./types.ts";

export type { ShardSpec };

/** The environment variable a Kubernetes Indexed Job sets to each pod's index. */
export const JOB_INDEX_ENV = "JOB_COMPLETION_INDEX";

/**
 * This process's shard: `--shard i/N`, or `--shards N` with the index from
 * `JOB_COMPLETION_INDEX`; null when neither is given. A missing or bad index is a config error.
 */
export function resolveShard(
  config: { shard?: string; shards?: number },
  env: (name: string) => string | undefined,
): ShardSpec | null {
  if (config.shard !== undefined) {
    const [i, n] = config.shard.split("/").map(Number);
    if (config.shards !== undefined && config.shards !== n) {
      throw new ConfigError(`--shard ${config.shard} and --shards ${config.shards} disagree`);
    }
    return { index: i, count: n };
  }
  if (config.shards === undefined) return null;
  const raw = env(JOB_INDEX_ENV);
  if (raw === undefined) {
    throw new ConfigError(
      `--shards ${config.shards} needs ${JOB_INDEX_ENV} (set in each pod of a Kubernetes Indexed Job), or use --shard i/N`,
    );
  }
  const index = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!(index < config.shards)) {
    throw new ConfigError(
      `${JOB_INDEX_ENV}=${raw} is not a shard index from 0 to ${config.shards - 1}`,
    );
  }
  return { index, count: config.shards };
}

/** `--start-at` as epoch ms: an RFC 3339 time, or unix seconds (the option's schema checked it). */
export function parseStartAt(text: string): number {
  const ms = /^\d+(\.\d+)?$/.test(text) ? Number(text) * 1000 : Date.parse(text);
  if (!Number.isFinite(ms)) throw new ConfigError(`--start-at ${text} is not a valid time`);
  return ms;
}

/** How many of the global items `0 … total-1` are shard `s`'s (those with `i mod N = index`). */
export function shareOf(total: number, s: ShardSpec): number {
  return total <= s.index ? 0 : Math.floor((total - s.index - 1) / s.count) + 1;
}

/** The global number of a shard's `local`-th session (or user): `local * N + index`. */
export function globalSession(local: number, s: ShardSpec | undefined): number {
  return s === undefined ? local : local * s.count + s.index;
}

/** A share that must not be empty (a shard with no concurrency would never send). */
function nonEmptyShare(total: number, s: ShardSpec, what: string): number {
  const n = shareOf(total, s);
  if (n === 0) {
    throw new ConfigError(`${what} ${total} cannot be split over ${s.count} shards`);
  }
  return n;
}

/**
 * Turns of the shard's sessions among the first `limit` global sessions: the conversation each
 * one replays is the global plan's (the sampler, or the fixed schedule's order).
 */
function ownTurns(
  spec: PhaseSpec,
  conversations: PlannedConversation[],
  s: ShardSpec,
  limit: number,
): { own: number; all: number } {
  const timing = spec.plan.timing;
  const pick = timing?.mode === "fixed"
    ? (i: number) => timing.order[i]
    : sampler(spec.plan.sampling, conversations.length, spec.plan.seed);
  let own = 0;
  let all = 0;
  for (let i = 0; i < limit; i++) {
    const turns = conversations[pick(i)].bodies.length;
    all += turns;
    if (i % s.count === s.index) own += turns;
  }
  return { own, all };
}

/**
 * A phase as shard `s` runs it: its sessions (through `plan.shard`), its share of the
 * concurrency, of the users and of the request limit. A request limit that is the turns of a
 * fixed set of sessions becomes the turns of the shard's own sessions (exact); a request count
 * that cuts conversations short is shared as `i mod N` of its requests (exact for single-turn
 * conversations, where each request is a session).
 */
export function shardPhase(
  spec: PhaseSpec,
  conversations: PlannedConversation[],
  s: ShardSpec,
): PhaseSpec {
  const plan = { ...spec.plan, shard: { index: s.index, count: s.count } };
  const mode = plan.timing?.mode ?? "concurrency";
  let slots = spec.slots;
  if (mode === "concurrency") slots = nonEmptyShare(spec.slots, s, "--concurrency");
  else if (mode === "users") slots = nonEmptyShare(spec.slots, s, "--num-users");
  if (plan.maxConcurrency !== undefined) {
    plan.maxConcurrency = nonEmptyShare(plan.maxConcurrency, s, "--concurrency");
  }
  if (plan.prefillConcurrency !== undefined) {
    plan.prefillConcurrency = nonEmptyShare(plan.prefillConcurrency, s, "--prefill-concurrency");
  }
  if (plan.requestLimit < NO_LIMIT) {
    const limit = plan.conversationLimit;
    const turns = limit < NO_LIMIT && conversations.length > 0
      ? ownTurns(spec, conversations, s, limit)
      : null;
    plan.requestLimit = turns !== null && plan.requestLimit >= turns.all
      ? turns.own
      : shareOf(plan.requestLimit, s);
  }
  const armAfter = spec.armAfter >= NO_LIMIT
    ? spec.armAfter
    : Math.max(1, shareOf(spec.armAfter, s));
  if (plan.armAfter !== undefined) plan.armAfter = armAfter;
  return { ...spec, plan, slots, armAfter };
}

/** Every phase of a run as shard `s` runs it ({@link shardPhase}). */
export function shardPhases(
  phases: PhaseSpec[],
  conversations: PlannedConversation[],
  s: ShardSpec,
): PhaseSpec[] {
  return phases.map((p) => shardPhase(p, conversations, s));
}

/** A shard's run directory name: the run's, with the shard said, so shards can share a volume. */
export function shardRunDirName(name: string, s: ShardSpec): string {
  return `${name}-shard${s.index}-of-${s.count}`;
}
