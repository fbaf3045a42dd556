/**
 * `-f/--config` end to end, in-process: a YAML equivalent of an AIPerf guide's command sends the
 * same bodies and writes the same inputs.json as the flags; flags override the file; a bad file
 * is one line and exit 2 before anything is sent; `reprise config expand|validate`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { startCaptureServer } from "./capture_server.ts";
import { runCli } from "./helpers.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** Runs `reprise profile ...args` into a fresh artifact directory; returns its run directory. */
async function profile(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stderr: string; runDir: string; root: string }> {
  const root = await Deno.makeTempDir({ prefix: "reprise-e2e-yaml-" });
  const r = await runCli(["profile", ...args, "--artifact-dir", root, "--ui", "none"], { env });
  let runDir = root;
  for await (const e of Deno.readDir(root)) if (e.isDirectory) runDir = join(root, e.name);
  return { code: r.code, stderr: r.stderr, runDir, root };
}

/** The raw-payload replay guide's payloads (docs: Raw Payload Replay, "Single File"). */
const PAYLOADS = [
  {
    messages: [{ role: "user", content: "What is machine learning?" }],
    model: "Qwen/Qwen3-0.6B",
    max_tokens: 100,
  },
  {
    messages: [{ role: "user", content: "Explain neural networks." }],
    model: "Qwen/Qwen3-0.6B",
    max_tokens: 200,
  },
  {
    messages: [{ role: "user", content: "How does backpropagation work?" }],
    model: "Qwen/Qwen3-0.6B",
    max_tokens: 150,
  },
].map((p) => JSON.stringify(p)).join("\n") + "\n";

/** The guide's command as YAML; the server and the file come from the environment. */
const RAW_PAYLOAD_YAML = `schemaVersion: "2.0"
benchmark:
  model: Qwen/Qwen3-0.6B
  endpoint:
    url: \${SERVER}
    streaming: true
  dataset:
    type: file
    path: \${DATA}
    format: raw_payload
  phases:
    type: concurrency
    concurrency: 2
`;

Deno.test(
  "raw payload replay: the YAML equivalent of the guide's command sends the same bodies and writes the same inputs.json",
  opts,
  async () => {
    const dir = await Deno.makeTempDir();
    const data = join(dir, "payloads.jsonl");
    const config = join(dir, "bench.yaml");
    await Deno.writeTextFile(data, PAYLOADS);
    await Deno.writeTextFile(config, RAW_PAYLOAD_YAML);
    const roots: string[] = [dir];
    try {
      const results: { inputs: string; bodies: string[] }[] = [];
      for (const form of ["flags", "yaml"]) {
        const server = startCaptureServer();
        try {
          const args = form === "flags"
            ? [
              "--input-file",
              data,
              "--model",
              "Qwen/Qwen3-0.6B",
              "--custom-dataset-type",
              "raw_payload",
              "--streaming",
              "--url",
              server.hostPort,
              "--concurrency",
              "2",
              "--random-seed",
              "1",
            ]
            : ["-f", config, "--random-seed", "1"];
          const run = await profile(args, { SERVER: server.hostPort, DATA: data });
          roots.push(run.root);
          assert.equal(run.code, 0, `${form}: ${run.stderr}`);
          results.push({
            inputs: await Deno.readTextFile(join(run.runDir, "inputs.json")),
            bodies: server.captured.map((c) => c.body).sort(),
          });
        } finally {
          await server.close();
        }
      }
      assert.equal(results[0].bodies.length, 3);
      assert.deepEqual(results[1].bodies, results[0].bodies);
      assert.equal(results[1].inputs, results[0].inputs);
    } finally {
      for (const r of roots) await Deno.remove(r, { recursive: true }).catch(() => {});
    }
  },
);

/** Synthetic prompts with a warmup, as flags and as a two-phase YAML with a seed and variables. */
const SYNTHETIC_YAML = `schemaVersion: "2.0"
randomSeed: 7
variables:
  entries: 6
benchmark:
  model: mock-model
  endpoint:
    url: \${SERVER}
    streaming: true
  dataset:
    type: synthetic
    entries: "{{ entries }}"
    prompts: {isl: 32, osl: {mean: 4, stddev: 0}}
  phases:
    - {name: warmup, type: concurrency, concurrency: 1, requests: 2, excludeFromResults: true}
    - {name: profiling, type: concurrency, concurrency: 2, requests: "{{ entries }}"}
`;

const SYNTHETIC_FLAGS = [
  "--model",
  "mock-model",
  "--streaming",
  "--isl",
  "32",
  "--osl",
  "4",
  "--num-dataset-entries",
  "6",
  "--warmup-request-count",
  "2",
  "--warmup-concurrency",
  "1",
  "--concurrency",
  "2",
  "--request-count",
  "6",
  "--random-seed",
  "7",
];

Deno.test(
  "synthetic against the built-in mock: YAML and flags write the same inputs.json; flags override the file",
  opts,
  async () => {
    const dir = await Deno.makeTempDir();
    const config = join(dir, "bench.yaml");
    await Deno.writeTextFile(config, SYNTHETIC_YAML);
    const server = await startMockServer({ outputTokens: 4 });
    const roots: string[] = [dir];
    try {
      const env = { SERVER: server.url };
      const flags = await profile([...SYNTHETIC_FLAGS, "--url", server.url]);
      roots.push(flags.root);
      assert.equal(flags.code, 0, flags.stderr);
      const before = server.stats().requests;
      const yaml = await profile(["--config", config], env);
      roots.push(yaml.root);
      assert.equal(yaml.code, 0, yaml.stderr);
      assert.equal(server.stats().requests - before, 8); // 2 warmup + 6 measured
      const read = (d: string) => Deno.readTextFile(join(d, "inputs.json"));
      assert.equal(await read(yaml.runDir), await read(flags.runDir));
      // A flag given with the file wins: another seed, other prompts.
      const other = await profile(["--config", config, "--random-seed", "8"], env);
      roots.push(other.root);
      assert.equal(other.code, 0, other.stderr);
      assert.notEqual(await read(other.runDir), await read(flags.runDir));
    } finally {
      await server.close();
      for (const r of roots) await Deno.remove(r, { recursive: true }).catch(() => {});
    }
  },
);

Deno.test("a bad config file: one line, exit 2, nothing sent, nothing written", opts, async () => {
  const dir = await Deno.makeTempDir();
  const server = startCaptureServer();
  try {
    const cases: [string, RegExp][] = [
      [
        "benchmark:\n  endpoint: {url: URL}\n  phases:\n    - {type: concurrency, concurency: 2}\n",
        /^error: .*bench\.yaml line 4: benchmark\.phases\[0\]\.concurency is not a key reprise knows; did you mean "concurrency"\?\n$/,
      ],
      [
        "benchmark:\n  endpoint: {url: URL}\nsweep:\n  type: grid\n  parameters: {concurrency: [1, 2]}\n",
        /^error: .*bench\.yaml line 4: sweep: sweeps: not supported yet\n$/,
      ],
      [
        "benchmark:\n  endpoint: {url: URL}\n  phases: {requests: -3}\n",
        /^error: .*bench\.yaml line 3: benchmark\.phases\.requests must be a positive integer, got "-3"\n$/,
      ],
    ];
    for (const [text, want] of cases) {
      const config = join(dir, "bench.yaml");
      await Deno.writeTextFile(config, text.replace("URL", server.hostPort));
      const run = await profile(["-f", config]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, want);
      assert.deepEqual([...Deno.readDirSync(run.root)], []);
      await Deno.remove(run.root, { recursive: true });
      const v = await runCli(["config", "validate", "-f", config]);
      assert.equal(v.code, 2);
      assert.equal(v.stderr, run.stderr);
    }
    assert.equal(server.captured.length, 0);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("reprise config validate and expand", opts, async () => {
  const dir = await Deno.makeTempDir();
  try {
    const config = join(dir, "bench.yaml");
    await Deno.writeTextFile(config, RAW_PAYLOAD_YAML + "  artifacts: {dir: out}\n");
    const env = { SERVER: "127.0.0.1:9", DATA: "p.jsonl" };
    const ok = await runCli(["config", "validate", config], { env });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, `${config}: valid\n`);
    const flags = await runCli(["config", "expand", "-f", config, "--concurrency", "3"], { env });
    assert.equal(flags.code, 0, flags.stderr);
    assert.equal(
      flags.stdout,
      "reprise profile --model Qwen/Qwen3-0.6B --url 127.0.0.1:9 --streaming --input-file p.jsonl --custom-dataset-type raw_payload --concurrency 3 --artifact-dir out\n",
    );
    const yaml = await runCli(["config", "expand", "-f", config, "--yaml"], { env });
    assert.equal(yaml.code, 0, yaml.stderr);
    assert.match(yaml.stdout, /^model: Qwen\/Qwen3-0\.6B$/m);
    assert.match(yaml.stdout, /^concurrency: 2$/m);
    assert.match(yaml.stdout, /^request-timeout-seconds: 21600$/m); // a default
    for (const args of [["config", "--help"], ["config", "expand", "--help"]]) {
      const help = await runCli(args);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /reprise config <expand\|validate> -f FILE/);
      assert.match(help.stdout, /yaml: benchmark\.endpoint\.url/);
    }
    const bare = await runCli(["config"]);
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /^error: reprise config needs a command \(expand or validate\)\n/);
    const missing = await runCli(["config", "validate", "-f", join(dir, "none.yaml")]);
    assert.equal(missing.code, 2);
    assert.equal(
      missing.stderr,
      `error: Cannot read config file "${join(dir, "none.yaml")}": no such file\n`,
    );
    const none = await runCli(["config", "validate"]);
    assert.equal(none.code, 2);
    assert.equal(
      none.stderr,
      "error: reprise config needs a file: -f FILE (see reprise config --help)\n",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an API key from the file never appears in expand's output", opts, async () => {
  const dir = await Deno.makeTempDir();
  try {
    const config = join(dir, "bench.yaml");
    const secret = "sk-file-secret-0123456789";
    await Deno.writeTextFile(
      config,
      `benchmark:\n  endpoint:\n    api_key: \${KEY}\n    headers: {Authorization: "Bearer ${secret}"}\n`,
    );
    for (const extra of [[], ["--yaml"]]) {
      const r = await runCli(["config", "expand", "-f", config, ...extra], {
        env: { KEY: secret },
      });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(!r.stdout.includes(secret), r.stdout);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
