/**
 * `--public-dataset sharegpt` run in-process against the mock server: the local copy is found in
 * a Hugging Face hub cache (HF_HOME) or given with `--input-file`, and its prompts are sent; a
 * missing copy, a dataset not read yet and an unknown name stop the run with one line (exit 2)
 * before any request.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { runCli } from "./helpers.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** Text of exactly `n` o200k tokens. */
const ofTokens = (n: number) => "x" + " a".repeat(n - 1);

const SAMPLE = [
  {
    id: "capital",
    conversations: [
      { from: "human", value: "What is the capital of France? Answer briefly." },
      { from: "gpt", value: ofTokens(12) },
    ],
  },
  {
    id: "hi",
    conversations: [{ from: "human", value: "Hi" }, { from: "gpt", value: ofTokens(9) }],
  },
  {
    id: "poem",
    conversations: [
      { from: "human", value: "Write me a two line poem about the sea." },
      { from: "gpt", value: ofTokens(7) },
    ],
  },
];

/** What AIPerf's filter keeps of SAMPLE: (session, prompt, max tokens). */
const EXPECTED = [
  ["capital", "What is the capital of France? Answer briefly.", 12],
  ["poem", "Write me a two line poem about the sea.", 7],
];

const FILE = "ShareGPT_V3_unfiltered_cleaned_split.json";

/** Writes SAMPLE into a hub cache under `hfHome` as `huggingface-cli download` lays it out. */
async function writeHubCache(hfHome: string): Promise<void> {
  const repo = join(hfHome, "hub", "datasets--anon8231489123--ShareGPT_Vicuna_unfiltered");
  const snap = join(repo, "snapshots", "0123abcd");
  await Deno.mkdir(snap, { recursive: true });
  await Deno.mkdir(join(repo, "refs"), { recursive: true });
  await Deno.writeTextFile(join(repo, "refs", "main"), "0123abcd");
  await Deno.writeTextFile(join(snap, FILE), JSON.stringify(SAMPLE));
}

/** The (session, prompt, max tokens) of each body in a run's inputs.json. */
async function sentPrompts(art: string): Promise<unknown[][]> {
  let runDir = "";
  for await (const e of Deno.readDir(art)) if (e.isDirectory) runDir = join(art, e.name);
  const inputs = JSON.parse(await Deno.readTextFile(join(runDir, "inputs.json"))) as {
    data: { session_id: string; payloads: Record<string, unknown>[] }[];
  };
  return inputs.data.map((d) => {
    const p = d.payloads[0] as { messages: { content: string }[]; max_completion_tokens: number };
    return [d.session_id, p.messages.at(-1)!.content, p.max_completion_tokens];
  });
}

/** Runs `profile` against `url` with `extra` flags, writing artifacts under `dir`. */
function profile(url: string, dir: string, extra: string[], env: Record<string, string>) {
  return runCli([
    "profile",
    "--url",
    url.replace("http://", ""),
    "--model",
    "m",
    ...extra,
    "--artifact-dir",
    join(dir, "artifacts"),
    "--ui",
    "none",
  ], { env });
}

/** A mock server and a temp folder for one test, both cleaned up after it. */
async function withSetup(
  fn: (url: string, dir: string, requests: () => number) => Promise<void>,
): Promise<void> {
  const server = await startMockServer({ ttftMs: 1, itlMs: 0, outputTokens: 3 });
  const dir = await Deno.makeTempDir({ prefix: "reprise-e2e-pubds-" });
  try {
    await fn(server.url, dir, () => server.stats().requests);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("--public-dataset sharegpt finds the copy in the HF_HOME hub cache", opts, async () => {
  await withSetup(async (url, dir, requests) => {
    const hfHome = join(dir, "hf");
    await writeHubCache(hfHome);
    const env = { HF_HOME: hfHome, REPRISE_DATASETS: join(dir, "none") };
    const res = await profile(url, dir, ["--public-dataset", "sharegpt"], env);
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(await sentPrompts(join(dir, "artifacts")), EXPECTED);
    assert.ok(requests() >= 2);
    // The summary's input_config says which dataset ran, not "synthetic".
    let runDir = "";
    for await (const e of Deno.readDir(join(dir, "artifacts"))) {
      if (e.isDirectory) runDir = join(dir, "artifacts", e.name);
    }
    const summary = JSON.parse(
      await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")),
    ) as { input_config: { datasets: { type: string; public_dataset?: string }[] } };
    assert.deepEqual(
      [summary.input_config.datasets[0].type, summary.input_config.datasets[0].public_dataset],
      ["public", "sharegpt"],
    );
  });
});

Deno.test("--public-dataset sharegpt finds the copy under REPRISE_DATASETS", opts, async () => {
  await withSetup(async (url, dir) => {
    const own = join(dir, "datasets");
    await Deno.mkdir(join(own, "sharegpt"), { recursive: true });
    await Deno.writeTextFile(join(own, "sharegpt", FILE), JSON.stringify(SAMPLE));
    const env = { HF_HOME: join(dir, "empty-hf"), REPRISE_DATASETS: own };
    const res = await profile(url, dir, ["--public-dataset", "sharegpt"], env);
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(await sentPrompts(join(dir, "artifacts")), EXPECTED);
  });
});

Deno.test("--public-dataset sharegpt --input-file reads the given copy", opts, async () => {
  await withSetup(async (url, dir) => {
    const file = join(dir, "my_sharegpt.json");
    await Deno.writeTextFile(file, JSON.stringify(SAMPLE));
    const env = { HF_HOME: join(dir, "empty-hf"), REPRISE_DATASETS: join(dir, "none") };
    const res = await profile(
      url,
      dir,
      ["--public-dataset", "sharegpt", "--input-file", file],
      env,
    );
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(await sentPrompts(join(dir, "artifacts")), EXPECTED);
  });
});

Deno.test("--public-dataset sharegpt without a local copy: exit 2, one line", opts, async () => {
  await withSetup(async (url, dir, requests) => {
    const hfHome = join(dir, "empty-hf");
    const env = { HF_HOME: hfHome, REPRISE_DATASETS: join(dir, "none") };
    const res = await profile(url, dir, ["--public-dataset", "sharegpt"], env);
    assert.equal(res.code, 2, res.stderr);
    const lines = res.stderr.trim().split("\n");
    assert.equal(lines.length, 1, res.stderr);
    assert.match(lines[0], /ShareGPT_V3_unfiltered_cleaned_split\.json not found/);
    assert.ok(lines[0].includes(join(hfHome, "hub")), lines[0]);
    assert.match(lines[0], /huggingface-cli download anon8231489123\/ShareGPT_Vicuna_unfiltered/);
    assert.match(lines[0], /--input-file/);
    assert.equal(requests(), 0);
    await assert.rejects(Deno.stat(join(dir, "artifacts")));
  });
});

Deno.test("--public-dataset aimo: exit 2, not supported yet, nothing sent", opts, async () => {
  await withSetup(async (url, dir, requests) => {
    const res = await profile(url, dir, ["--public-dataset", "aimo"], {});
    assert.equal(res.code, 2, res.stderr);
    assert.equal(res.stderr.trim().split("\n").length, 1, res.stderr);
    assert.match(res.stderr, /--public-dataset aimo: not supported yet/);
    assert.equal(requests(), 0);
  });
});

Deno.test("--public-dataset with an unknown name lists the known ones", opts, async () => {
  await withSetup(async (url, dir, requests) => {
    const res = await profile(url, dir, ["--public-dataset", "sharegtp"], {});
    assert.equal(res.code, 2, res.stderr);
    assert.equal(res.stderr.trim().split("\n").length, 1, res.stderr);
    assert.match(res.stderr, /"sharegtp" is not a known dataset; known: sharegpt, aimo,/);
    assert.equal(requests(), 0);
  });
});
