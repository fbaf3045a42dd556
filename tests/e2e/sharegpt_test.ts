/**
 * ShareGPT from a local file, run in-process against the mock server: the entries AIPerf's
 * filter keeps are sent, one request each, with the recorded answer's length as max tokens.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { readRecords, runCli } from "./helpers.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** Text of exactly `n` o200k tokens. */
const ofTokens = (n: number) => "x" + " a".repeat(n - 1);

const SAMPLE = [
  {
    id: "capital",
    conversations: [
      { from: "human", value: "What is the capital of France? Answer briefly." },
      { from: "gpt", value: ofTokens(12) },
      { from: "human", value: "And of Italy?" },
      { from: "gpt", value: "Rome." },
    ],
  },
  { id: "lonely", conversations: [{ from: "human", value: "Is anyone there at all?" }] },
  {
    id: "hi",
    conversations: [{ from: "human", value: "Hi" }, { from: "gpt", value: ofTokens(9) }],
  },
  {
    id: "long",
    conversations: [
      { from: "human", value: ofTokens(1500) },
      { from: "gpt", value: ofTokens(20) },
    ],
  },
  {
    id: "poem",
    conversations: [
      { from: "system", value: "You are a poet." },
      { from: "human", value: "Write me a two line poem about the sea." },
      { from: "gpt", value: ofTokens(7) },
    ],
  },
];

Deno.test(
  "sharegpt runs end to end: filtered entries, max tokens from the answer",
  opts,
  async () => {
    const server = await startMockServer({ ttftMs: 1, itlMs: 0, outputTokens: 3 });
    const dir = await Deno.makeTempDir({ prefix: "reprise-e2e-sharegpt-" });
    try {
      const file = join(dir, "ShareGPT_V3.json");
      await Deno.writeTextFile(file, JSON.stringify(SAMPLE, null, 2));
      const art = join(dir, "artifacts");
      const res = await runCli([
        "profile",
        "--url",
        server.url.replace("http://", ""),
        "--model",
        "m",
        "--input-file",
        file,
        "--custom-dataset-type",
        "sharegpt",
        "--streaming",
        "--artifact-dir",
        art,
        "--ui",
        "none",
      ]);
      assert.equal(res.code, 0, res.stderr);
      let runDir = "";
      for await (const e of Deno.readDir(art)) if (e.isDirectory) runDir = join(art, e.name);

      const inputs = JSON.parse(await Deno.readTextFile(join(runDir, "inputs.json"))) as {
        data: { session_id: string; payloads: Record<string, unknown>[] }[];
      };
      const sent = inputs.data.map((d) => {
        assert.equal(d.payloads.length, 1);
        const p = d.payloads[0] as {
          messages: { content: string }[];
          max_completion_tokens: number;
          stream: boolean;
        };
        assert.equal(p.stream, true);
        return [d.session_id, p.messages.at(-1)!.content, p.max_completion_tokens];
      });
      assert.deepEqual(sent, [
        ["capital", "What is the capital of France? Answer briefly.", 12],
        ["poem", "Write me a two line poem about the sea.", 7],
      ]);

      const records = await readRecords(join(runDir, "profile_export.jsonl"));
      assert.equal(records.length, 2);
      const summary = JSON.parse(
        await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")),
      );
      assert.equal(summary.error_request_count?.avg ?? 0, 0);
      assert.equal(summary.input_config.datasets[0].sampling, "sequential");
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("a broken sharegpt file stops the run before any request", opts, async () => {
  const server = await startMockServer({ ttftMs: 1, itlMs: 0, outputTokens: 3 });
  const dir = await Deno.makeTempDir({ prefix: "reprise-e2e-sharegpt-" });
  try {
    const file = join(dir, "ShareGPT_V3.json");
    await Deno.writeTextFile(file, '[\n  {"id": "a", "conversations": [}\n]');
    const res = await runCli([
      "profile",
      "--url",
      server.url.replace("http://", ""),
      "--model",
      "m",
      "--input-file",
      file,
      "--custom-dataset-type",
      "sharegpt",
      "--artifact-dir",
      join(dir, "artifacts"),
      "--ui",
      "none",
    ]);
    assert.equal(res.code, 3, res.stderr); // BAD_DATASET
    assert.match(res.stderr, /ShareGPT_V3\.json.*element \[0\] \(line 2\) is not valid JSON/);
    await assert.rejects(Deno.stat(join(dir, "artifacts")));
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
