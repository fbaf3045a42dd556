import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/parse.ts";
import {
  type BasePlan,
  fixedTiming,
  type LoadConfig,
  NO_LIMIT,
  planPhases,
  poolSize,
  usesFixedSchedule,
} from "../../src/plan/phases.ts";
import type { PlannedConversation } from "../../src/plan/types.ts";

const defaults: LoadConfig = {
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
  sampling: "sequential",
  seed: 5,
};

const convs: PlannedConversation[] = [
  { sessionId: "a", bodies: ["{}", "{}"] },
  { sessionId: "b", bodies: ["{}"] },
];

function plan(config: Partial<LoadConfig>, given: string[] = [], conversations = convs) {
  return planPhases({
    config: { ...defaults, ...config },
    given: new Set(given),
    conversations,
    base,
    workers: 2,
  });
}

Deno.test("concurrency alone is a closed loop over every turn of the dataset once", () => {
  const [p] = plan({ concurrency: 4 }, ["concurrency"]);
  assert.equal(p.plan.timing?.mode, "concurrency");
  assert.equal(p.slots, 4);
  assert.equal(p.plan.requestLimit, 3);
  assert.equal(p.plan.conversationLimit, 2);
  assert.equal(p.plan.phase, "profiling");
  assert.equal(p.armAfter, 10);
});

Deno.test("a request rate is open-loop, uncapped unless --concurrency is given", () => {
  const [p] = plan({ requestRate: 50, requestCount: 100 });
  assert.equal(p.plan.timing?.mode, "rate");
  assert.equal(p.plan.maxConcurrency, undefined);
  assert.equal(p.slots, 2);
  assert.equal(p.plan.requestLimit, 100);
  const [capped] = plan({ requestRate: 50, concurrency: 8, arrivalPattern: "gamma" }, [
    "concurrency",
  ]);
  assert.equal(capped.plan.maxConcurrency, 8);
  assert.equal(capped.armAfter, 10);
  const t = capped.plan.timing;
  assert.ok(t?.mode === "rate" && t.schedule.pattern === "gamma" && t.schedule.seed === 5);
});

Deno.test("a duration lifts the dataset-size limit; the request count still applies", () => {
  const [p] = plan({ benchmarkDuration: 2, benchmarkGracePeriod: 0.5 });
  assert.equal(p.durationMs, 2000);
  assert.equal(p.graceMs, 500);
  assert.equal(p.plan.requestLimit, NO_LIMIT);
  const [q] = plan({ benchmarkDuration: 2, requestCount: 7 });
  assert.equal(q.plan.requestLimit, 7);
});

Deno.test("warmup runs first with its own load, then profiling", () => {
  const phases = plan({
    warmupRequestCount: 5,
    warmupConcurrency: 3,
    requestRate: 20,
    concurrency: 6,
  }, ["concurrency"]);
  assert.deepEqual(phases.map((p) => p.plan.phase), ["warmup", "profiling"]);
  const [w] = phases;
  assert.equal(w.plan.requestLimit, 5);
  assert.equal(w.plan.maxConcurrency, 3);
  // The profiling rate applies to the warmup when it names none.
  assert.equal(w.plan.timing?.mode, "rate");
  assert.equal(plan({}).length, 1);
  const [d] = plan({ warmupDuration: 1.5 });
  assert.equal(d.durationMs, 1500);
  assert.equal(d.plan.timing?.mode, "concurrency");
});

Deno.test("timestamped conversations switch to a fixed schedule unless told otherwise", () => {
  const traced: PlannedConversation[] = [
    { sessionId: "x", bodies: ["{}"], timestampsMs: [500] },
    { sessionId: "y", bodies: ["{}", "{}"], timestampsMs: [100, 900] },
  ];
  assert.equal(usesFixedSchedule(defaults, new Set(), traced), true);
  assert.equal(usesFixedSchedule(defaults, new Set(["fixedSchedule"]), traced), false);
  assert.equal(usesFixedSchedule(defaults, new Set(), convs), false);
  const [p] = plan({}, [], traced);
  assert.ok(p.plan.timing?.mode === "fixed");
  assert.deepEqual(p.plan.timing.order, [1, 0]);
  assert.deepEqual(p.plan.timing.offsetsMs, [100, 500]);
  assert.equal(p.plan.requestLimit, 3);
  assert.equal(p.plan.conversationLimit, 2);
  // A start offset both filters and shifts the schedule.
  const t = fixedTiming({ ...defaults, fixedScheduleStartOffset: 200 }, traced);
  assert.deepEqual([t.order, t.offsetsMs, t.shiftMs], [[0], [300], 200]);
  assert.throws(
    () => fixedTiming({ ...defaults, fixedScheduleStartOffset: 10_000 }, traced),
    ConfigError,
  );
  assert.throws(
    () => plan({ fixedSchedule: true }, ["fixedSchedule"]),
    (e: Error) => e instanceof ConfigError && /"a" has none/.test(e.message),
  );
});

Deno.test("open-loop runs use every allowed core; closed loops a Worker per 512 requests", () => {
  assert.equal(poolSize({ ...defaults, concurrency: 1 }, false, 4), 1);
  assert.equal(poolSize({ ...defaults, concurrency: 1, requestRate: 10 }, false, 4), 4);
  assert.equal(poolSize({ ...defaults, concurrency: 1 }, true, 4), 4);
  assert.equal(poolSize({ ...defaults, concurrency: 64 }, false, 8), 1);
  assert.equal(poolSize({ ...defaults, concurrency: 512 }, false, 8), 1);
  assert.equal(poolSize({ ...defaults, concurrency: 513 }, false, 8), 2);
  assert.equal(poolSize({ ...defaults, concurrency: 4096 }, false, 8), 8);
  // The larger of the warmup's and the profiling's concurrency decides.
  assert.equal(poolSize({ ...defaults, concurrency: 8, warmupConcurrency: 1100 }, false, 8), 3);
  // Given, --workers-max is the count, up to the concurrency (as AIPerf reads it).
  assert.equal(poolSize({ ...defaults, concurrency: 64, workersMax: 2 }, false, 8), 2);
  assert.equal(poolSize({ ...defaults, concurrency: 2, workersMax: 4 }, false, 8), 2);
  assert.equal(poolSize({ ...defaults, concurrency: 4096, workersMax: 3 }, false, 8), 3);
});
