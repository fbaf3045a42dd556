/**
 * `--plain-paths` end to end, in-process: a run with every fast path of the results turned off
 * (record writer, narrow columns, o200k counter) measures the same requests as one with them on:
 * the same records but for their times, the same token counts.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import type { Io } from "../../src/cli/io.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { FAST_PATHS, plainPaths } from "../../src/util/fast_paths.ts";

/** Runs `reprise profile --verbose` in-process; returns the exit code, stderr and its records. */
async function profile(url: string, more: string[]) {
  const artifactDir = await Deno.makeTempDir({ prefix: "reprise-e2e-plain-" });
  let err = "";
  const io: Io = {
    stdout: () => {},
    stderr: (t) => void (err += t),
    env: () => undefined,
    isTerminal: false,
  };
  const body = JSON.stringify({
    model: "m",
    messages: [{ role: "user", content: "Tell me a story about a lighthouse, é 😀." }],
    max_tokens: 24,
    stream: true,
    stream_options: { include_usage: true },
  });
  const input = join(artifactDir, "payloads.jsonl");
  await Deno.writeTextFile(input, body + "\n");
  try {
    const code = await main(
      [
        "profile",
        "--url",
        url,
        "--model",
        "m",
        "--input-file",
        input,
        "--custom-dataset-type",
        "raw_payload",
        "--streaming",
        "--concurrency",
        "4",
        "--request-count",
        "40",
        "--transport",
        "http1",
        "--verbose",
        "--artifact-dir",
        artifactDir,
        "--ui",
        "none",
        ...more,
      ],
      io,
    );
    let runDir = artifactDir;
    for await (const e of Deno.readDir(artifactDir)) {
      if (e.isDirectory) runDir = join(artifactDir, e.name);
    }
    const lines = (await Deno.readTextFile(join(runDir, "profile_export.jsonl"))).trim()
      .split("\n");
    return { code, err, records: lines.map((l) => JSON.parse(l)) };
  } finally {
    await Deno.remove(artifactDir, { recursive: true });
  }
}

/** What a record says that does not depend on when things happened. */
function untimed(r: {
  metadata: Record<string, unknown>;
  metrics: Record<string, { value: unknown; unit: string }>;
  error: unknown;
}) {
  const counts = ["output_token_count", "output_sequence_length", "input_sequence_length"];
  return {
    phase: r.metadata.benchmark_phase,
    metrics: Object.keys(r.metrics),
    counts: counts.map((tag) => r.metrics[tag]?.value),
    error: r.error,
  };
}

Deno.test("--plain-paths all: the same records and token counts", async () => {
  const server = await startMockServer({ ttftMs: 0, itlMs: 0 });
  try {
    const plain = await profile(server.url, ["--plain-paths", "all"]);
    assert.equal(plain.code, 0, plain.err);
    assert.deepEqual(plainPaths().sort(), [...FAST_PATHS].sort());
    const fast = await profile(server.url, []);
    assert.equal(fast.code, 0, fast.err);
    assert.deepEqual(plainPaths(), []);
    assert.equal(plain.records.length, 40);
    assert.equal(fast.records.length, 40);
    const want = fast.records.map(untimed);
    assert.deepEqual(plain.records.map(untimed), want);
    assert.ok(want.every((r) => r.counts[0] === 24), JSON.stringify(want[0]));
  } finally {
    await server.close();
  }
});
