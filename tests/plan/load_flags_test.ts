import assert from "node:assert/strict";
import { profileOptions } from "../../src/config/options.ts";
import { ConfigError, parseOptions } from "../../src/config/parse.ts";
import type { Dataset } from "../../src/dataset/types.ts";
import { getEndpoint } from "../../src/endpoints/mod.ts";
import { describePlan } from "../../src/plan/describe.ts";
import { parseRateSeries } from "../../src/plan/load_flags.ts";
import { planRun, type RunPlan } from "../../src/plan/run_plan.ts";

/** Three conversations of two turns each. */
const multiTurn: Dataset = {
  type: "synthetic",
  source: "synthetic",
  conversations: ["a", "b", "c"].map((sessionId) => ({
    sessionId,
    turns: [{ body: '{"model":"m","messages":[]}' }, { body: "{}" }],
  })),
};

const singleTurn: Dataset = {
  type: "synthetic",
  source: "synthetic",
  conversations: [{ sessionId: "a", turns: [{ body: "{}" }] }],
};

const URL1 = "http://127.0.0.1:9/v1/chat/completions";
const URL2 = "http://127.0.0.1:10/v1/chat/completions";

/** The plan of `profile <args>`. */
function plan(
  args: string[],
  opts: { data?: Dataset; urls?: string[]; files?: Record<string, string> } = {},
): RunPlan {
  const parsed = parseOptions(profileOptions, ["--url", "127.0.0.1:9", ...args]);
  const config = parsed.values;
  return planRun({
    config,
    dataset: opts.data ?? multiTurn,
    endpoint: getEndpoint(config.endpointType),
    target: { url: URL1, urls: opts.urls, headers: {} },
    given: parsed.given as ReadonlySet<string>,
    cores: 2,
    env: () => undefined,
    limits: () => null,
    readText: (path) => {
      const text = opts.files?.[path];
      if (text === undefined) throw new Error("No such file");
      return text;
    },
  });
}

/** The refusal `args` meet: its message. */
function refusal(args: string[], opts: Parameters<typeof plan>[1] = {}): string {
  try {
    plan(args, opts);
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    assert.ok(!e.message.includes("\n"), e.message);
    return e.message;
  }
  assert.fail(`${args.join(" ")} was accepted`);
}

Deno.test("--url repeated: the plan carries every URL; one URL carries none", () => {
  const parsed = parseOptions(profileOptions, ["--url", "a:1", "-u", "b:2"]);
  assert.deepEqual(parsed.values.url, ["a:1", "b:2"]);
  const p = plan([], { urls: [URL1, URL2] });
  assert.deepEqual(p.phases[0].plan.urls, [URL1, URL2]);
  assert.equal(p.phases[0].plan.url, URL1);
  assert.match(describePlan(p, URL1), /2 URLs, round robin/);
  assert.equal(plan([]).phases[0].plan.urls, undefined);
});

Deno.test("--connection-reuse-strategy: pooled by default, never and sticky planned; fetch refused", () => {
  assert.equal(plan([]).base.reuse, "pooled");
  assert.equal(plan(["--connection-reuse-strategy", "never"]).base.reuse, "never");
  const sticky = plan(["--connection-reuse-strategy", "sticky-user-sessions"]);
  assert.equal(sticky.phases[0].plan.reuse, "sticky");
  assert.match(describePlan(sticky, URL1), /one per conversation/);
  assert.match(
    refusal(["--connection-reuse-strategy", "never", "--transport", "fetch"]),
    /needs --transport http1/,
  );
  // Pooled is what fetch does anyway.
  assert.equal(plan(["--transport", "fetch"]).base.reuse, "pooled");
});

Deno.test("--session-header names the header; X-Correlation-ID by default; a bad name is refused", () => {
  assert.equal(plan([]).base.sessionHeader, "X-Correlation-ID");
  assert.equal(plan(["--session-header", "X-Sess"]).phases[0].plan.sessionHeader, "X-Sess");
  assert.throws(
    () => parseOptions(profileOptions, ["--session-header", "bad name"]),
    ConfigError,
  );
});

Deno.test("--request-content-type: JSON runs, a form is refused, anything else too", () => {
  assert.equal(plan(["--request-content-type", "application/json"]).phases.length, 1);
  assert.match(
    refusal(["--request-content-type", "multipart/form-data"]),
    /sends JSON bodies/,
  );
  assert.match(refusal(["--request-content-type", "text/plain"]), /must be application\/json/);
});

Deno.test("--prefill-concurrency: planned with its ramp; needs --streaming; a ramp needs it", () => {
  const p = plan([
    "--streaming",
    "--prefill-concurrency",
    "3",
    "--prefill-concurrency-ramp-duration",
    "2",
  ]);
  assert.equal(p.phases[0].plan.prefillConcurrency, 3);
  assert.equal(p.phases[0].plan.prefillRampMs, 2000);
  assert.match(describePlan(p, URL1), /at most 3 waiting for a first token \(ramped over 2 s\)/);
  assert.match(refusal(["--prefill-concurrency", "3"]), /needs --streaming/);
  assert.match(
    refusal(["--streaming", "--prefill-concurrency-ramp-duration", "2"]),
    /needs --prefill-concurrency/,
  );
  assert.equal(plan(["--streaming"]).phases[0].plan.prefillConcurrency, undefined);
});

Deno.test("--user-centric-rate: users slots, a gap of users/QPS; its refusals", () => {
  const p = plan(["--user-centric-rate", "4", "--num-users", "8"]);
  const profiling = p.phases[0];
  assert.deepEqual(profiling.plan.timing, { mode: "users", users: 8, gapMs: 2000 });
  assert.equal(profiling.slots, 8);
  assert.equal(profiling.plan.requestLimit, 6);
  assert.match(describePlan(p, URL1), /user-centric: 8 users, each turn 2 s after/);
  assert.match(refusal(["--user-centric-rate", "4"]), /go together/);
  assert.match(refusal(["--num-users", "4"]), /go together/);
  assert.match(
    refusal(["--user-centric-rate", "4", "--num-users", "2"], { data: singleTurn }),
    /multi-turn/,
  );
  assert.match(
    refusal(["--user-centric-rate", "4", "--num-users", "2", "--request-rate", "3"]),
    /cannot be used with --request-rate/,
  );
});

Deno.test("--request-rate-series: read and planned as points in ms; its refusals", () => {
  const files = { "s.json": "[[0, 2], [10, 8]]", "o.json": '[{"time": 1, "rate": 3}]' };
  const p = plan(["--request-rate-series", "s.json"], { files });
  const timing = p.phases[0].plan.timing;
  assert.equal(timing?.mode, "rate");
  if (timing?.mode !== "rate") return;
  assert.deepEqual(timing.schedule.series, [[0, 2], [10_000, 8]]);
  assert.equal(timing.schedule.rate, 8);
  assert.equal(p.workers, 2);
  assert.match(describePlan(p, URL1), /rate series \(poisson\): 2\/s at 0 s, 8\/s at 10 s/);
  // Objects are read too; a series starting late holds its first rate from 0.
  const o = plan(["--request-rate-series", "o.json"], { files }).phases[0].plan.timing;
  assert.deepEqual(o?.mode === "rate" && o.schedule.series, [[0, 3], [1000, 3]]);
  assert.match(refusal(["--request-rate-series", "none.json"]), /cannot be read/);
  assert.match(
    refusal(["--request-rate-series", "s.json", "--request-rate", "4"], { files }),
    /cannot be used with --request-rate/,
  );
});

Deno.test("parseRateSeries refuses what is no schedule", () => {
  assert.throws(() => parseRateSeries("{", "f"), /not JSON/);
  assert.throws(() => parseRateSeries("[]", "f"), /non-empty array/);
  assert.throws(() => parseRateSeries("[[0, -1]]", "f"), /point 0/);
  assert.throws(() => parseRateSeries("[[1, 2], [1, 3]]", "f"), /times must increase/);
  assert.throws(() => parseRateSeries("[[0, 2], [1, 0]]", "f"), /last rate must be positive/);
  assert.deepEqual(parseRateSeries('{"series": [[0, 1]]}', "f"), [[0, 1]]);
});

Deno.test("--arrival-pattern concurrency_burst: closed loop without a rate; refused with one", () => {
  const p = plan(["--arrival-pattern", "concurrency_burst", "--concurrency", "4"]);
  assert.deepEqual(p.phases[0].plan.timing, { mode: "concurrency" });
  assert.equal(p.phases[0].slots, 4);
  // It is what a run without a rate does: nothing is ignored, nothing to warn about.
  assert.deepEqual(p.warnings, []);
  assert.match(
    refusal(["--arrival-pattern", "concurrency_burst", "--request-rate", "5"]),
    /concurrency_burst sends at no rate/,
  );
});

Deno.test("the warmup flags shape the warmup phase only", () => {
  const p = plan([
    "--streaming",
    "--request-rate",
    "10",
    "--num-warmup-sessions",
    "2",
    "--warmup-arrival-pattern",
    "constant",
    "--warmup-request-rate-ramp-duration",
    "1",
    "--warmup-grace-period",
    "3",
    "--warmup-prefill-concurrency",
    "2",
    "--warmup-prefill-concurrency-ramp-duration",
    "0.5",
  ]);
  const [warmup, profiling] = p.phases;
  assert.equal(warmup.plan.phase, "warmup");
  assert.equal(warmup.plan.conversationLimit, 2);
  assert.equal(warmup.graceMs, 3000);
  assert.equal(warmup.plan.prefillConcurrency, 2);
  assert.equal(warmup.plan.prefillRampMs, 500);
  assert.equal(warmup.plan.timing?.mode, "rate");
  if (warmup.plan.timing?.mode === "rate") {
    assert.equal(warmup.plan.timing.schedule.pattern, "constant");
    assert.equal(warmup.plan.timing.schedule.rampMs, 1000);
  }
  assert.equal(profiling.graceMs, 30_000);
  assert.equal(profiling.plan.prefillConcurrency, undefined);
  if (profiling.plan.timing?.mode === "rate") {
    assert.equal(profiling.plan.timing.schedule.pattern, "poisson");
  }
  // A burst warmup runs closed loop at its concurrency, ramped as asked.
  const burst = plan([
    "--warmup-request-count",
    "4",
    "--warmup-arrival-pattern",
    "concurrency_burst",
    "--warmup-concurrency",
    "3",
    "--warmup-concurrency-ramp-duration",
    "2",
  ]).phases[0];
  assert.deepEqual(burst.plan.timing, { mode: "concurrency" });
  assert.equal(burst.slots, 3);
  assert.equal(burst.plan.concurrencyRampMs, 2000);
});

Deno.test("warmup flags without a warmup are ignored with a warning", () => {
  const p = plan(["--warmup-grace-period", "3"]);
  assert.equal(p.phases.length, 1);
  assert.ok(p.warnings.some((w) => /--warmup-grace-period is ignored/.test(w)), p.warnings[0]);
});
