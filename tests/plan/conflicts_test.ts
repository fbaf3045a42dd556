import assert from "node:assert/strict";
import { profileOptions } from "../../src/config/options.ts";
import { ConfigError, parseOptions } from "../../src/config/parse.ts";
import type { Dataset } from "../../src/dataset/types.ts";
import { getEndpoint } from "../../src/endpoints/mod.ts";
import { planRun, type RunPlan } from "../../src/plan/run_plan.ts";

const plain: Dataset = {
  type: "raw_payload",
  source: "payloads.jsonl",
  conversations: [{ sessionId: "a", turns: [{ body: '{"model":"m","messages":[]}' }] }],
};
const traced: Dataset = {
  type: "mooncake_trace",
  source: "trace.jsonl",
  conversations: [
    { sessionId: "x", turns: [{ body: '{"model":"m"}', timestampMs: 0 }] },
    { sessionId: "y", turns: [{ body: "{}", timestampMs: 100 }] },
  ],
};

function plan(args: string[], data = plain): RunPlan {
  const parsed = parseOptions(profileOptions, ["--url", "127.0.0.1:9", ...args]);
  return planRun({
    config: parsed.values,
    dataset: data,
    endpoint: getEndpoint(parsed.values.endpointType),
    target: { url: "http://127.0.0.1:9/v1/chat/completions", headers: {} },
    given: parsed.given as ReadonlySet<string>,
    cores: 2,
  });
}

function refused(args: string[], re: RegExp, data = plain): void {
  assert.throws(
    () => plan(args, data),
    (e: unknown) => e instanceof ConfigError && re.test(e.message) && !e.message.includes("\n"),
    args.join(" "),
  );
}

Deno.test("combinations AIPerf refuses are one-line config errors", () => {
  refused(
    ["--fixed-schedule", "--request-rate", "5"],
    /^--request-rate cannot be used with --fixed-schedule/,
    traced,
  );
  refused(
    ["--request-rate-ramp-duration", "2", "--request-rate", "5"],
    /--request-rate-ramp-duration cannot be used with a fixed schedule/,
    traced,
  );
  refused(
    ["--dataset-sampling-strategy", "random"],
    /--dataset-sampling-strategy cannot be used with a fixed schedule/,
    traced,
  );
  refused(
    ["--fixed-schedule-end-offset", "10"],
    /^--fixed-schedule-end-offset can only be used with --fixed-schedule/,
  );
  refused(
    ["--fixed-schedule-auto-offset", "--fixed-schedule-start-offset", "5"],
    /--fixed-schedule-auto-offset cannot be used with --fixed-schedule-start-offset/,
    traced,
  );
  refused(
    ["--request-cancellation-delay", "1"],
    /--request-cancellation-delay can only be used with --request-cancellation-rate/,
  );
});

Deno.test("a flag another one overrides is a one-line warning, and the run says what it does", () => {
  // The trace's timestamps set the schedule: the rate is ignored and names nothing.
  const p = plan(["--request-rate", "5", "--concurrency", "3"], traced);
  assert.equal(p.fixedSchedule, true);
  assert.deepEqual(p.warnings, [
    "warning: --request-rate is ignored: the dataset's timestamps set the schedule (pass --no-fixed-schedule to send at the rate instead)",
  ]);
  assert.equal(p.runDir, "artifacts/m-openai-chat-concurrency3");
  assert.equal(p.phases.at(-1)!.plan.timing?.mode, "fixed");
  // --no-fixed-schedule: the rate applies, no warning.
  const rated = plan(["--request-rate", "5", "--no-fixed-schedule"], traced);
  assert.deepEqual(rated.warnings, []);
  assert.equal(rated.phases.at(-1)!.plan.timing?.mode, "rate");
  assert.deepEqual(plan(["--arrival-pattern", "gamma"]).warnings, [
    "warning: --arrival-pattern is ignored without --request-rate",
  ]);
  assert.deepEqual(plan(["--benchmark-grace-period", "3"]).warnings, [
    "warning: --benchmark-grace-period is ignored without --benchmark-duration",
  ]);
  assert.deepEqual(plan(["--warmup-concurrency", "3"]).warnings, [
    "warning: --warmup-concurrency is ignored without --warmup-request-count, --warmup-duration or --num-warmup-sessions",
  ]);
  // Combinations that work together say nothing: --concurrency caps a fixed schedule and
  // --request-count with --benchmark-duration stops at whichever comes first.
  assert.deepEqual(plan(["--concurrency", "2", "--fixed-schedule"], traced).warnings, []);
  assert.deepEqual(plan(["--request-count", "5", "--benchmark-duration", "3"]).warnings, []);
});
