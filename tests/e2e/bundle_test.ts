/**
 * What is shipped is what is tested: builds the one-file bundle with `deno task bundle`'s script
 * and runs the main scenario through it — a streaming profile run against the mock server, with
 * the Worker pool running the bundle as its Worker module.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundle } from "../../scripts/bundle.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { readRecords, spawnCli } from "./helpers.ts";

const PAYLOADS = fileURLToPath(new URL("../../examples/payloads.jsonl", import.meta.url));

Deno.test("the bundle runs a streaming profile with its Worker pool and writes every artifact", async () => {
  const dir = await Deno.makeTempDir();
  const server = await startMockServer({ ttftMs: 20, itlMs: 5, outputTokens: 16 });
  try {
    const js = join(dir, "reprise.js");
    assert.equal(await bundle(js), 0, "deno bundle failed");
    const text = await Deno.readTextFile(js);
    // Minified, self-contained: no module of the checkout is loaded at run time.
    assert.doesNotMatch(text, /file:\/\//);

    const res = await spawnCli([
      "profile",
      "--url",
      server.url,
      "--model",
      "Qwen/Qwen3-0.6B",
      "--input-file",
      PAYLOADS,
      "--custom-dataset-type",
      "raw_payload",
      "--streaming",
      "--concurrency",
      "2",
      "--workers-max",
      "2",
      "--artifact-dir",
      join(dir, "artifacts"),
      "--ui",
      "none",
    ], { entry: js });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /Time to First Token/i);
    const runDir = join(dir, "artifacts", "Qwen_Qwen3-0.6B-openai-chat-concurrency2");
    for (
      const f of [
        "profile_export_aiperf.json",
        "profile_export_aiperf.csv",
        "profile_export.jsonl",
        "inputs.json",
      ]
    ) {
      assert.ok((await Deno.stat(join(runDir, f))).size > 0, `${f} is empty`);
    }
    const records = await readRecords(join(runDir, "profile_export.jsonl"));
    assert.equal(records.length, 3);
    for (const r of records) assert.equal(r.error, null);
    // Both Workers ran requests: the bundle really served as the Worker module.
    const workers = new Set(records.map((r) => (r.metadata as { worker_id: string }).worker_id));
    assert.equal(workers.size, 2, `records came from ${[...workers].join(", ")}`);
    assert.equal(server.stats().requests, 3);

    const version = await spawnCli(["--version"], { entry: js });
    assert.match(version.stdout, /^reprise \d+\.\d+\.\d+/);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
