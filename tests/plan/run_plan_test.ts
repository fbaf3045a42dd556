import assert from "node:assert/strict";
import { profileOptions } from "../../src/config/options.ts";
import { ConfigError, parseOptions } from "../../src/config/parse.ts";
import type { Dataset } from "../../src/dataset/types.ts";
import { getEndpoint } from "../../src/endpoints/mod.ts";
import { describePlan } from "../../src/plan/describe.ts";
import { NO_LIMIT } from "../../src/plan/phases.ts";
import { planRun, resolvePlainPaths, type RunPlan } from "../../src/plan/run_plan.ts";
import { FAST_PATHS } from "../../src/util/fast_paths.ts";

const dataset: Dataset = {
  type: "raw_payload",
  source: "payloads.jsonl",
  conversations: [
    { sessionId: "a", turns: [{ body: '{"model":"qwen","messages":[]}' }, { body: "{}" }] },
    { sessionId: "b", turns: [{ body: "{}" }] },
  ],
};

/** The plan of `profile <args>` over `dataset`, with `env` as the process environment. */
function plan(
  args: string[],
  opts: { env?: Record<string, string>; data?: Dataset; cores?: number } = {},
): RunPlan {
  const parsed = parseOptions(profileOptions, ["--url", "127.0.0.1:9", ...args]);
  const config = parsed.values;
  const env = (name: string) => opts.env?.[name];
  return planRun({
    config,
    dataset: opts.data ?? dataset,
    endpoint: getEndpoint(config.endpointType),
    target: { url: "http://127.0.0.1:9/v1/chat/completions", headers: { "x-h": "1" } },
    given: parsed.given as ReadonlySet<string>,
    cores: opts.cores ?? 4,
    env,
  });
}

Deno.test("a run without limits sends every turn of the dataset once", () => {
  const p = plan(["--random-seed", "7"]);
  assert.equal(p.phases.length, 1);
  const [profiling] = p.phases;
  assert.equal(profiling.plan.phase, "profiling");
  assert.equal(profiling.plan.requestLimit, 3);
  assert.equal(profiling.plan.conversationLimit, 2);
  assert.equal(profiling.durationMs, undefined);
  assert.equal(p.totalTurns, 3);
  assert.equal(p.seed, 7);
  assert.equal(profiling.plan.seed, 7);
  assert.equal(profiling.plan.url, "http://127.0.0.1:9/v1/chat/completions");
  assert.deepEqual(profiling.plan.headers, { "x-h": "1" });
  // Every phase carries the shared parameters as the plan decided them.
  assert.deepEqual({ ...profiling.plan, ...p.base }, profiling.plan);
  assert.equal(p.base.timeoutMs, 21_600_000);
  // The model of the artifacts comes from the first body that names one.
  assert.equal(p.model, "qwen");
  assert.equal(p.runDir, "artifacts/qwen-openai-chat-concurrency1");
  assert.match(
    describePlan(p, "URL"),
    /plan: profiling: concurrency 1; at most 3 requests, at most 2 conversations\n/,
  );
});

Deno.test("a request count bounds the run past the dataset's size", () => {
  const [profiling] = plan(["--request-count", "10", "--concurrency", "3"]).phases;
  assert.equal(profiling.plan.requestLimit, 10);
  assert.equal(profiling.plan.conversationLimit, NO_LIMIT);
  assert.equal(profiling.slots, 3);
});

Deno.test("a duration-bounded run has no request limit, and the plan says so", () => {
  const p = plan(["--benchmark-duration", "30", "--benchmark-grace-period", "2"]);
  const [profiling] = p.phases;
  assert.equal(profiling.plan.requestLimit, NO_LIMIT);
  assert.equal(profiling.plan.conversationLimit, NO_LIMIT);
  assert.equal(profiling.durationMs, 30_000);
  assert.equal(profiling.plan.durationMs, 30_000);
  assert.equal(profiling.graceMs, 2000);
  const text = describePlan(p, "URL");
  assert.match(text, /plan: profiling: concurrency 1; for 30 s \(then 2 s grace\)\n/);
  assert.doesNotMatch(text, /requests/);
  // With a request count too, whichever comes first ends the run.
  const [both] = plan(["--benchmark-duration", "30", "--request-count", "5"]).phases;
  assert.equal(both.plan.requestLimit, 5);
  assert.equal(both.durationMs, 30_000);
});

Deno.test("warmup runs first, with its own limits, on the profiling target", () => {
  const p = plan([
    "--warmup-request-count",
    "4",
    "--warmup-concurrency",
    "2",
    "--request-rate",
    "8",
    "--request-count",
    "20",
  ]);
  assert.deepEqual(p.phases.map((s) => s.plan.phase), ["warmup", "profiling"]);
  const [warmup, profiling] = p.phases;
  assert.equal(warmup.plan.requestLimit, 4);
  assert.equal(warmup.plan.maxConcurrency, 2);
  assert.equal(warmup.plan.url, profiling.plan.url);
  assert.equal(warmup.plan.transport, profiling.plan.transport);
  assert.equal(profiling.plan.requestLimit, 20);
  assert.equal(profiling.plan.timing?.mode, "rate");
  // A rate uses every allowed core.
  assert.equal(p.workers, 4);
  assert.match(
    describePlan(p, "URL"),
    /plan: warmup: 8 requests\/s \(poisson\), at most 2 in flight; at most 4 requests\n/,
  );
});

Deno.test("streaming is asked for only where the endpoint can stream, in the bodies too", () => {
  const streamed = plan(["--streaming"]);
  assert.equal(streamed.streaming, true);
  assert.equal(streamed.phases[0].plan.streaming, true);
  assert.equal(JSON.parse(streamed.conversations[0].bodies[1] as string).stream, true);
  assert.equal(streamed.inputConfig.streaming, true);
  const plain = plan([]);
  assert.equal(plain.streaming, false);
  assert.equal(plain.conversations[0].bodies[1], "{}");
  const embeddings = plan(["--streaming", "--endpoint-type", "embeddings"]);
  assert.equal(embeddings.streaming, false);
  assert.equal(embeddings.phases[0].plan.streaming, false);
  assert.equal(embeddings.inputConfig.streaming, false);
});

Deno.test("transport auto is the HTTP/1.1 client, through an http:// proxy when one is set", () => {
  assert.equal(plan([]).transport, "http1");
  assert.equal(plan([]).phases[0].plan.transport, "http1");
  assert.equal(plan([]).phases[0].plan.proxies, undefined);
  const proxied = plan([], {
    env: { HTTP_PROXY: "http://proxy:3128", HTTPS_PROXY: "http://proxy:3128", NO_PROXY: "" },
  });
  assert.equal(proxied.transport, "http1");
  assert.equal(proxied.proxyWarning, null);
  // Every phase's Workers get the settings: the main thread alone reads the environment.
  for (const p of proxied.phases) {
    assert.deepEqual(p.plan.proxies, { http: "http://proxy:3128", https: "http://proxy:3128" });
  }
  // A SOCKS proxy is fetch's to follow; an explicit http1 goes around it and says so.
  const socks = plan([], { env: { ALL_PROXY: "socks5://proxy:1080" } });
  assert.equal(socks.transport, "fetch");
  assert.equal(socks.phases[0].plan.proxies, undefined);
  const forced = plan(["--transport", "http1"], { env: { ALL_PROXY: "socks5://proxy:1080" } });
  assert.equal(forced.transport, "http1");
  assert.equal(forced.phases[0].plan.proxies, undefined);
  assert.match(forced.proxyWarning ?? "", /\(socks5\) is not one --transport http1 can use/);
  assert.equal(plan(["--transport", "fetch"]).transport, "fetch");
  const fetched = plan(["--transport", "fetch"], { env: { HTTP_PROXY: "http://proxy:3128" } });
  assert.equal(fetched.phases[0].plan.proxies, undefined);
});

Deno.test("Workers: one per 512 concurrent requests, within the cores", () => {
  assert.equal(plan(["--concurrency", "600"]).workers, 2);
  assert.equal(plan(["--concurrency", "600"], { cores: 1 }).workers, 1);
  assert.equal(plan(["--concurrency", "8", "--workers-max", "3"]).workers, 3);
});

Deno.test("a schedule the dataset cannot follow is a config error of the plan", () => {
  assert.throws(
    () => plan(["--fixed-schedule"]),
    (e: Error) => e instanceof ConfigError && /conversation "a" has none/.test(e.message),
  );
  const traced: Dataset = {
    ...dataset,
    conversations: [
      { sessionId: "x", turns: [{ body: "{}", timestampMs: 500 }] },
      { sessionId: "y", turns: [{ body: "{}", timestampMs: 100 }] },
    ],
  };
  // Timestamps switch the schedule on; every core then sends.
  const fixed = plan([], { data: traced });
  assert.equal(fixed.fixedSchedule, true);
  assert.equal(fixed.workers, 4);
  assert.match(describePlan(fixed, "URL"), /plan: profiling: fixed schedule of 2 conversations/);
  assert.throws(
    () => plan(["--fixed-schedule-start-offset", "600"], { data: traced }),
    ConfigError,
  );
});

Deno.test("--plain-paths all turns every fast path off", () => {
  assert.deepEqual(resolvePlainPaths(["all"]), [...FAST_PATHS]);
  assert.deepEqual(plan(["--plain-paths", "all"]).plainPaths, [...FAST_PATHS]);
  assert.deepEqual(plan([]).plainPaths, []);
});

Deno.test("a shard's plan: its part of the run, its own folder, and a seed it must be given", () => {
  const p = plan(["--random-seed", "7", "--shards", "2", "--concurrency", "2"], {
    env: { JOB_COMPLETION_INDEX: "1" },
  });
  assert.deepEqual(p.shard, { index: 1, count: 2 });
  assert.match(p.runDir, /concurrency2-shard1-of-2$/);
  assert.deepEqual(p.phases.at(-1)!.plan.shard, { index: 1, count: 2 });
  assert.equal(p.phases.at(-1)!.slots, 1);
  assert.equal(p.startAtMs, null);
  assert.match(
    describePlan(p, "u"),
    /^plan: shard 1 of 2: sessions 1, 3, 5, … of the global plan/m,
  );
  assert.throws(() => plan(["--shard", "0/2"]), /a sharded run needs --random-seed/);
  const at = plan(["--start-at", "2026-01-02T03:04:05Z"]);
  assert.equal(at.shard, null);
  assert.equal(at.startAtMs, Date.UTC(2026, 0, 2, 3, 4, 5));
  assert.match(describePlan(at, "u"), /^plan: profiling starts at 2026-01-02T03:04:05\.000Z$/m);
  assert.throws(
    () => parseOptions(profileOptions, ["--shard", "4/4"]),
    /--shard .*index 4 is not below the shard count 4/,
  );
  assert.throws(() => parseOptions(profileOptions, ["--start-at", "soon"]), ConfigError);
});
