import assert from "node:assert/strict";
import { join } from "node:path";
import { profileOptions } from "../../src/config/options.ts";
import { ConfigError, parseOptions } from "../../src/config/parse.ts";
import { loadConfigText, parseWithConfigFile } from "../../src/config/file.ts";
import { CHECKED_KEYS, NOT_YET_KEYS, YAML_KEYS } from "../../src/config/file_keys.ts";
import { profileHelp } from "../../src/cli/profile.ts";
import { REFERENCE } from "../_reference.ts";

/** What a file sets, as option key → raw value. */
function load(text: string, env: Record<string, string> = {}): Record<string, unknown> {
  const values = loadConfigText(text, "bench.yaml", profileOptions, (n) => env[n]);
  return Object.fromEntries([...values].map(([k, v]) => [k, v.raw]));
}

/** The one-line message a file fails with. */
function failure(text: string, env: Record<string, string> = {}): string {
  try {
    load(text, env);
  } catch (e) {
    assert.ok(e instanceof ConfigError, `not a ConfigError: ${e}`);
    assert.ok(!e.message.includes("\n"), `more than one line: ${e.message}`);
    return e.message;
  }
  throw new Error("the file loaded");
}

Deno.test("every YAML key path names an option of the profile table", () => {
  for (const k of YAML_KEYS) {
    assert.ok(k.option in profileOptions, `${k.path} names "${k.option}", not an option`);
  }
  // A path is either mapped, checked or not built yet (checked keys may share a mapped path).
  const mapped = new Set(YAML_KEYS.map((k) => k.path));
  for (const k of NOT_YET_KEYS) assert.ok(!mapped.has(k.path), `${k.path} is in two tables`);
  for (const k of CHECKED_KEYS) assert.ok(!mapped.has(k.path), `${k.path} is in two tables`);
});

Deno.test("a key path naming an option this version lacks is a clear error, not a crash", () => {
  const { concurrency: _dropped, ...withoutConcurrency } = profileOptions;
  assert.throws(
    () =>
      loadConfigText(
        "benchmark:\n  phases: {type: concurrency, concurrency: 4}\n",
        "bench.yaml",
        withoutConcurrency,
      ),
    (e: Error) =>
      e instanceof ConfigError &&
      e.message ===
        'bench.yaml line 2: benchmark.phases.concurrency sets the option "concurrency", which this version of reprise does not have',
  );
});

Deno.test("--help names the YAML keys that set each option", () => {
  const help = profileHelp();
  assert.match(help, /--concurrency N[^\n]*yaml: benchmark\.phases\.profiling\.concurrency/);
  assert.match(help, /-f, --config FILE/);
});

Deno.test("shorthand and named forms, snake_case and camelCase, read the same", () => {
  const short = load(`
schemaVersion: "2.0"
benchmark:
  model: m
  endpoint: {url: "http://h:1", streaming: true}
  dataset: {type: synthetic, entries: 10, prompts: {isl: {mean: 100, stddev: 5}, osl: 20}}
  phases: {type: poisson, rate: 5, requests: 40, gracePeriod: 3}
`);
  const named = load(`
schema_version: "2.0"
benchmark:
  models: [m]
  endpoint: {urls: ["http://h:1"], streaming: true}
  datasets: [{name: main, type: synthetic, entries: 10, prompts: {isl: {mean: 100, stddev: 5}, osl: 20}}]
  phases:
    - {name: profiling, type: poisson, rate: 5, requests: 40, grace_period: 3}
`);
  assert.deepEqual(short, named);
  assert.deepEqual(short, {
    model: "m",
    url: "http://h:1",
    streaming: true,
    numDatasetEntries: 10,
    isl: 100,
    islStddev: 5,
    osl: 20,
    arrivalPattern: "poisson",
    requestRate: 5,
    requestCount: 40,
    benchmarkGracePeriod: 3,
  });
});

Deno.test("header names and body fields keep their spelling; other keys may be camelCase", () => {
  assert.deepEqual(
    load(`
benchmark:
  endpoint:
    headers: {X-Trace-Id: abc}
    extra: {maxTokens: 5, chat_template_kwargs: {enableThinking: false}}
    useLegacyMaxTokens: true
`),
    {
      header: ["X-Trace-Id:abc"],
      extraInputs: ['{"maxTokens":5,"chat_template_kwargs":{"enableThinking":false}}'],
      useLegacyMaxTokens: true,
    },
  );
});

Deno.test("a warmup phase maps onto the warmup options, by name or by exclude_from_results", () => {
  const v = load(`
benchmark:
  phases:
    - {name: warm, type: concurrency, concurrency: 2, requests: 7, exclude_from_results: true}
    - {name: main, type: concurrency, concurrency: 9, duration: "2m"}
`);
  assert.deepEqual(v, {
    warmupConcurrency: 2,
    warmupRequestCount: 7,
    concurrency: 9,
    benchmarkDuration: 120,
  });
  const w = load("benchmark:\n  warmup: {requests: 3}\n  profiling: {type: fixed_schedule}\n");
  assert.deepEqual(w, { warmupRequestCount: 3, fixedSchedule: true });
});

Deno.test("${VAR:default} takes the environment, else the default, typed; a missing ${VAR} names it", () => {
  const text = `
benchmark:
  model: \${MODEL:llama}
  endpoint:
    url: "http://\${HOST:localhost}:8000"
    timeout: \${TIMEOUT:600.0}
    api_key: \${KEY}
`;
  assert.deepEqual(load(text, { KEY: "sk-1" }), {
    model: "llama",
    url: "http://localhost:8000",
    requestTimeoutSeconds: 600,
    apiKey: "sk-1",
  });
  assert.equal(load(text, { KEY: "k", MODEL: "qwen", TIMEOUT: "5" }).requestTimeoutSeconds, 5);
  assert.equal(
    failure(text),
    "bench.yaml line 7: benchmark.endpoint.api_key needs the environment variable KEY, which is not set (or write ${KEY:default})",
  );
});

Deno.test("{{ expr }} renders with the file's variables, in any order; a typo is an error", () => {
  const v = load(`
variables:
  warm: "{{ base // 2 }}"
  base: 16
benchmark:
  dataset: {entries: "{{ base * 10 }}", prompts: {isl: {mean: 512, stddev: "{{ 512 // 10 }}"}}}
  phases:
    - {name: warmup, concurrency: "{{ warm }}", requests: "{{ base * '\${MULT:5}' | int }}"}
    - {name: profiling, concurrency: "{{ base * 4 }}"}
`);
  assert.deepEqual(v, {
    numDatasetEntries: 160,
    isl: 512,
    islStddev: 51,
    warmupConcurrency: 8,
    warmupRequestCount: 80,
    concurrency: 64,
  });
  assert.equal(
    failure('variables: {base: 4}\nbenchmark:\n  phases: {concurrency: "{{ bose * 2 }}"}\n'),
    'bench.yaml line 3: benchmark.phases.concurrency uses "bose", which is not among the variables; did you mean "base"?',
  );
  assert.match(
    failure('variables: {a: "{{ b }}", b: "{{ a }}"}\n'),
    /^bench\.yaml line 1: variables\.a refers to itself through other variables \(a cycle\)$/,
  );
});

Deno.test("errors name the file, the key path and line, and what was expected", () => {
  assert.equal(
    failure("benchmark:\n  phases:\n    - name: profiling\n      concurency: 8\n"),
    'bench.yaml line 4: benchmark.phases[0].concurency is not a key reprise knows; did you mean "concurrency"?',
  );
  assert.equal(
    failure('schemaVersion: "2.0"\nsweeps: {}\n'),
    'bench.yaml line 2: sweeps is not a top-level key; did you mean "sweep"? (top-level keys: schema_version, benchmark, random_seed, variables, sweep, multi_run, plot, no_sweep_table)',
  );
  // Values are validated by the option they set, as the flag's are.
  const file = loadConfigText(
    "benchmark:\n  phases: {type: concurrency, concurrency: eight}\n",
    "bench.yaml",
    profileOptions,
  );
  assert.throws(
    () => parseOptions(profileOptions, [], undefined, file),
    (e: Error) =>
      e instanceof ConfigError &&
      e.message ===
        'bench.yaml line 2: benchmark.phases.concurrency must be a positive integer, got "eight"',
  );
  assert.match(failure("benchmark:\n  model: [a\n"), /^bench\.yaml line \d: not valid YAML: /);
  assert.equal(
    failure('schemaVersion: "1.0"\n'),
    'bench.yaml line 1: schemaVersion must be "2.0", got "1.0"',
  );
  assert.equal(
    failure("benchmark:\n  model: a\n  models: [b]\n"),
    "bench.yaml line 3: benchmark.models sets --model again (already set by bench.yaml line 2: benchmark.model)",
  );
  assert.equal(
    failure("benchmark:\n  phases: {type: user_centric}\n"),
    "bench.yaml line 2: benchmark.phases.type: phase type user_centric: not supported yet",
  );
});

Deno.test("keys of features not built yet: accepted at their default, else not supported yet", () => {
  assert.deepEqual(
    load(`
sweep: {}
multi_run: {num_runs: 1}
benchmark:
  dataset: {video: {batch_size: 0}}
`),
    {},
  );
  const cases: [string, string][] = [
    ["sweep: {type: grid, parameters: {concurrency: [1, 2]}}", "sweep: sweeps"],
    ["multiRun: {numRuns: 3}", "multiRun: multi-run confidence"],
    [
      "benchmark:\n  gpuTelemetry: {enabled: true, collector: pynvml}",
      "benchmark.gpuTelemetry: the pynvml GPU collector",
    ],
    ["benchmark:\n  dataset: {video: {width: 64}}", "benchmark.dataset.video: synthetic video"],
    [
      "benchmark:\n  datasets: [{type: synthetic}, {type: synthetic}]",
      "benchmark.datasets[1]: more than one dataset",
    ],
    ["benchmark:\n  models: [a, b]", "benchmark.models: more than one model"],
    [
      "benchmark:\n  phases:\n    - {name: profiling}\n    - {name: second}",
      "benchmark.phases[1]: more than one measured phase",
    ],
    [
      "benchmark:\n  phases:\n    - {name: warmup, type: constant, rate: 2}\n    - {type: poisson, rate: 4}",
      "benchmark.phases warmup type constant: a warmup arrival pattern other than the measured phase's (poisson)",
    ],
  ];
  for (const [text, want] of cases) {
    assert.match(failure(text), new RegExp(`: ${escape(want)}: not supported yet$`), text);
  }
});

Deno.test("the telemetry sections set the telemetry options", () => {
  assert.deepEqual(
    load(`
benchmark:
  gpuTelemetry:
    enabled: true
    collector: dcgm
    mode: summary
    urls: [http://node1:9400/metrics]
  server_metrics: {urls: [http://a:8081], formats: [json, jsonl]}
`),
    {
      gpuTelemetry: ["http://node1:9400/metrics"],
      serverMetrics: ["http://a:8081"],
      serverMetricsFormats: ["json", "jsonl"],
    },
  );
  assert.deepEqual(
    load("benchmark:\n  gpu_telemetry: {enabled: false}\n  server_metrics: {enabled: false}\n"),
    { noGpuTelemetry: true, noServerMetrics: true },
  );
  assert.deepEqual(
    load(`
benchmark:
  otel:
    metrics_url: http://localhost:4318
    stream_metrics_enabled: true
    stream_timing_enabled: false
    custom_resource_attributes: {deployment.environment: local}
    gen_ai_provider: vllm
`),
    {
      otelUrl: "http://localhost:4318",
      stream: "metrics",
      otelResourceAttributes: ["deployment.environment=local"],
      genAiProvider: "vllm",
    },
  );
  assert.match(
    failure("benchmark:\n  server_metrics: {url: x}\n"),
    /benchmark\.server_metrics has no key "url" \(known: enabled, urls, formats\)/,
  );
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

Deno.test("flags and env vars override the file; the file overrides defaults and counts as given", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "bench.yaml");
    await Deno.writeTextFile(
      file,
      "benchmark:\n  model: m\n  endpoint: {url: 'http://h:1'}\n  phases: {concurrency: 4, requests: 9}\n",
    );
    const env = (n: string) => n === "REPRISE_TRANSPORT" ? "fetch" : undefined;
    const p = await parseWithConfigFile(profileOptions, ["-f", file, "--concurrency", "2"], env);
    assert.equal(p.values.concurrency, 2);
    assert.equal(p.values.requestCount, 9);
    assert.equal(p.values.model, "m");
    assert.equal(p.values.transport, "fetch");
    assert.equal(p.values.arrivalPattern, "poisson");
    assert.ok(p.given.has("requestCount") && !p.given.has("arrivalPattern"));
    await assert.rejects(
      parseWithConfigFile(profileOptions, ["--config", join(dir, "none.yaml")]),
      (e: Error) =>
        e instanceof ConfigError &&
        e.message === `Cannot read config file "${join(dir, "none.yaml")}": no such file`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const REF = join(REFERENCE, "external");
const TEMPLATES = `${REF}/aiperf/src/aiperf/config/templates`;

/**
 * Each example config of the reference and how it loads: "ok", or the feature it needs that
 * reprise has not built yet (the error must then be "…: <feature>: not supported yet").
 */
const EXAMPLES: Record<string, string> = {
  [`${TEMPLATES}/minimal.yaml`]: "ok",
  [`${TEMPLATES}/audio_multimodal.yaml`]: "ok",
  [`${TEMPLATES}/multimodal_vision.yaml`]: "ok",
  [`${TEMPLATES}/gpu_telemetry.yaml`]: "ok",
  [`${TEMPLATES}/sweep_distributions.yaml`]: "multi-run confidence",
  [`${REF}/aiperf-k8s-branch/dev/deploy/test-benchmark-config.yaml`]: "ok",
  [`${REF}/aiperf-k8s-branch/dev/deploy/bench-30w-5m.yaml`]: "AIPerf's earlier config layout",
  [`${REF}/aiperf-k8s-branch/dev/deploy/dynamo-benchmark-config.yaml`]:
    "AIPerf's earlier config layout",
};

/** The YAML blocks of the YAML tutorial, by position: "ok", a not-yet feature, or "fragment". */
const PAGE = `${REF}/aiperf/docs/tutorials/yaml-config.md`;
const PAGE_BLOCKS = [
  "sweeps", // the concurrency sweep
  "ok", // minimal.yaml
  "fragment", // the anatomy sketch, `{...}` placeholders
  "ok", // shorthand
  "ok", // named
  "inline dataset records",
  "multi-run confidence", // snake_case
  "multi-run confidence", // camelCase
  "fragment", // the editor schema comment
  "ok", // environment variables
  "ok", // variables and {{ }}
  "ok", // warmup + profiling
  "phases.adaptive_scale",
  "fragment", // an sla: block of a phase
  "fragment", // an sla: block of a phase
  "sweeps", // grid sweep
  "multi-run confidence",
];

function expectLoad(text: string, name: string, want: string): void {
  const env = (n: string) => n === "OPENAI_API_KEY" ? "sk-test" : undefined;
  let message = "";
  try {
    loadConfigText(text, name, profileOptions, env);
  } catch (e) {
    assert.ok(e instanceof ConfigError, `${name}: ${e}`);
    message = e.message;
  }
  if (want === "ok") assert.equal(message, "", name);
  else if (want === "fragment") assert.notEqual(message, "", name);
  else assert.match(message, new RegExp(`: ${escape(want)}: not supported yet`), name);
}

Deno.test("every example config of the reference loads, or needs a feature not built yet", async () => {
  for (const [path, want] of Object.entries(EXAMPLES)) {
    expectLoad(await Deno.readTextFile(path), path, want);
  }
  const templates = [...Deno.readDirSync(TEMPLATES)].filter((e) => e.name.endsWith(".yaml"));
  for (const t of templates) assert.ok(`${TEMPLATES}/${t.name}` in EXAMPLES, t.name);
  const page = await Deno.readTextFile(PAGE);
  const blocks = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, PAGE_BLOCKS.length);
  blocks.forEach((b, i) => expectLoad(b, `${PAGE} block ${i}`, PAGE_BLOCKS[i]));
});

Deno.test("docs/config-file.md lists every YAML key and every not-supported feature", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/config-file.md", import.meta.url));
  for (const k of YAML_KEYS) {
    assert.ok(doc.includes(`\`${k.path}\``), `${k.path} is not in the doc`);
  }
  for (const k of NOT_YET_KEYS) {
    const last = k.path.split(".").at(-1)!;
    assert.ok(doc.includes(last), `${k.path} is not in the doc`);
  }
});
