import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/parse.ts";
import { type BasePlan, type LoadConfig, NO_LIMIT, planPhases } from "../../src/plan/phases.ts";
import {
  globalSession,
  parseStartAt,
  resolveShard,
  shardPhases,
  shardRunDirName,
  shareOf,
} from "../../src/plan/shard.ts";
import type { PlannedConversation } from "../../src/plan/types.ts";
import { sampler } from "../../src/dataset/sampling.ts";

const defaults = {
  concurrency: 1,
  arrivalPattern: "poisson",
  arrivalSmoothness: 1,
  benchmarkGracePeriod: 30,
  requestCancellationRate: 0,
  requestCancellationDelay: 0,
  fixedSchedule: false,
  fixedScheduleAutoOffset: false,
  sessionDelayRatio: 1,
} as LoadConfig;

const base: BasePlan = {
  url: "http://127.0.0.1:1/v1/chat/completions",
  headers: {},
  endpointType: "chat",
  streaming: true,
  timeoutMs: 1000,
  sampling: "shuffle",
  seed: 5,
};

/** Conversations of 1 to 3 turns. */
const convs: PlannedConversation[] = Array.from({ length: 7 }, (_, i) => ({
  sessionId: `c${i}`,
  bodies: Array.from({ length: 1 + (i % 3) }, () => "{}"),
}));

function phases(over: Partial<LoadConfig>, given: string[], conversations = convs) {
  return planPhases({
    config: { ...defaults, ...over },
    given: new Set(given),
    conversations,
    base,
    workers: 2,
  });
}

Deno.test("resolveShard: --shard i/N, or --shards N with the Job's index", () => {
  const none = () => undefined;
  assert.equal(resolveShard({}, none), null);
  assert.deepEqual(resolveShard({ shard: "2/4" }, none), { index: 2, count: 4 });
  const env = (v: string) => (name: string) => name === "JOB_COMPLETION_INDEX" ? v : undefined;
  assert.deepEqual(resolveShard({ shards: 4 }, env("3")), { index: 3, count: 4 });
  assert.throws(() => resolveShard({ shards: 4 }, none), /needs JOB_COMPLETION_INDEX/);
  assert.throws(
    () => resolveShard({ shards: 4 }, env("4")),
    /JOB_COMPLETION_INDEX=4 is not a shard index from 0 to 3/,
  );
  assert.throws(() => resolveShard({ shards: 4 }, env("x")), ConfigError);
  assert.throws(() => resolveShard({ shard: "1/2", shards: 4 }, none), /disagree/);
});

Deno.test("parseStartAt: RFC 3339 with a zone, or unix seconds", () => {
  assert.equal(parseStartAt("2026-01-02T03:04:05Z"), Date.UTC(2026, 0, 2, 3, 4, 5));
  assert.equal(parseStartAt("2026-01-02T03:04:05.250+01:00"), Date.UTC(2026, 0, 2, 2, 4, 5, 250));
  assert.equal(parseStartAt("1767322800.5"), 1767322800500);
});

Deno.test("shareOf and globalSession: the shards' sessions are every session, once", () => {
  for (const count of [1, 2, 3, 4, 7]) {
    for (const total of [0, 1, 5, 12, 13]) {
      const seen: number[] = [];
      let shares = 0;
      for (let index = 0; index < count; index++) {
        const s = { index, count };
        shares += shareOf(total, s);
        for (let local = 0; local < shareOf(total, s); local++) seen.push(globalSession(local, s));
      }
      assert.equal(shares, total);
      assert.deepEqual(seen.sort((a, b) => a - b), Array.from({ length: total }, (_, i) => i));
    }
  }
  assert.equal(globalSession(5, undefined), 5);
});

Deno.test("shardPhases: concurrency and request count split, every shard with its sessions", () => {
  const [p] = phases({ concurrency: 10, requestCount: 23 }, ["concurrency", "requestCount"]);
  const shards = [0, 1, 2, 3].map((index) => shardPhases([p], convs, { index, count: 4 })[0]);
  assert.deepEqual(shards.map((s) => s.slots), [3, 3, 2, 2]);
  assert.deepEqual(shards.map((s) => s.plan.maxConcurrency), [3, 3, 2, 2]);
  assert.deepEqual(shards.map((s) => s.plan.requestLimit), [6, 6, 6, 5]);
  assert.deepEqual(
    shards.map((s) => s.plan.shard),
    [0, 1, 2, 3].map((index) => ({ index, count: 4 })),
  );
  // The global plan is left as it was.
  assert.equal(p.plan.requestLimit, 23);
  assert.equal(p.plan.shard, undefined);
});

Deno.test("shardPhases: without a request count, each shard sends exactly its sessions' turns", () => {
  const [p] = phases({ concurrency: 4 }, ["concurrency"]);
  assert.equal(p.plan.conversationLimit, convs.length);
  const pick = sampler("shuffle", convs.length, base.seed);
  let total = 0;
  for (let index = 0; index < 3; index++) {
    const [s] = shardPhases([p], convs, { index, count: 3 });
    let want = 0;
    for (let i = index; i < convs.length; i += 3) want += convs[pick(i)].bodies.length;
    assert.equal(s.plan.requestLimit, want);
    total += want;
  }
  assert.equal(total, p.plan.requestLimit);
});

Deno.test("shardPhases: a fixed schedule's turns by its order; open-loop issuers stay per Worker", () => {
  const timed = convs.map((c, i) => ({
    ...c,
    timestampsMs: c.bodies.map((_, k) => (7 - i) * 100 + k),
  }));
  const [p] = phases({ fixedSchedule: true }, ["fixedSchedule"], timed);
  assert.equal(p.plan.timing?.mode, "fixed");
  const order = (p.plan.timing as { order: number[] }).order;
  const limits = [0, 1].map((index) => shardPhases([p], timed, { index, count: 2 })[0]);
  for (const [index, s] of limits.entries()) {
    let want = 0;
    for (let i = index; i < order.length; i += 2) want += timed[order[i]].bodies.length;
    assert.equal(s.plan.requestLimit, want);
    assert.equal(s.slots, p.slots);
  }
  const [rate] = phases({ requestRate: 10, benchmarkDuration: 5 }, [
    "requestRate",
    "benchmarkDuration",
  ]);
  const [r] = shardPhases([rate], convs, { index: 1, count: 4 });
  assert.equal(r.slots, rate.slots);
  assert.equal(r.plan.requestLimit, NO_LIMIT);
});

Deno.test("shardPhases: a concurrency smaller than the shard count is a config error", () => {
  const [p] = phases({ concurrency: 2 }, ["concurrency"]);
  assert.throws(
    () => shardPhases([p], convs, { index: 2, count: 4 }),
    (e) =>
      e instanceof ConfigError && /--concurrency 2 cannot be split over 4 shards/.test(e.message),
  );
});

Deno.test("shardRunDirName: shards of one run write apart", () => {
  assert.equal(
    shardRunDirName("m-openai-chat-concurrency8", { index: 1, count: 4 }),
    "m-openai-chat-concurrency8-shard1-of-4",
  );
});

Deno.test("shardPhases: user-centric users are shared out as sessions are", () => {
  const [p] = phases(
    { userCentricRate: 4, numUsers: 10, benchmarkDuration: 5 },
    ["userCentricRate", "numUsers", "benchmarkDuration"],
  );
  assert.equal(p.plan.timing?.mode, "users");
  const slots = [0, 1, 2].map((index) => shardPhases([p], convs, { index, count: 3 })[0].slots);
  assert.deepEqual(slots, [4, 3, 3]);
});
