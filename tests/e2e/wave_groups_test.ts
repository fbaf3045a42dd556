/**
 * A first wave wider than a group (load/wave.ts): every slot starts and sends its request, with
 * the groups and without (`--plain-paths wave-groups`), in-process against the built-in mock.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import type { Io } from "../../src/cli/io.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { WAVE_GROUP } from "../../src/load/wave.ts";

/** Slots in the first wave: two whole groups and part of a third. */
const SLOTS = WAVE_GROUP * 2 + 7;

async function run(url: string, more: string[]) {
  const dir = await Deno.makeTempDir({ prefix: "reprise-e2e-wave-" });
  let err = "";
  const io: Io = {
    stdout: () => {},
    stderr: (t) => void (err += t),
    env: () => undefined,
    isTerminal: false,
  };
  const input = join(dir, "payloads.jsonl");
  await Deno.writeTextFile(
    input,
    JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true }) +
      "\n",
  );
  try {
    const code = await main([
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
      String(SLOTS),
      "--request-count",
      String(SLOTS),
      "--transport",
      "http1",
      "--artifact-dir",
      dir,
      "--ui",
      "none",
      ...more,
    ], io);
    let runDir = dir;
    for await (const e of Deno.readDir(dir)) if (e.isDirectory) runDir = join(dir, e.name);
    const lines = (await Deno.readTextFile(join(runDir, "profile_export.jsonl"))).trim()
      .split("\n").map((l) => JSON.parse(l));
    return { code, err, records: lines };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("wave groups: a first wave of three groups starts every slot, as one without groups does", async () => {
  const server = await startMockServer({ ttftMs: 30, itlMs: 1, outputTokens: 4 });
  try {
    for (const more of [[], ["--plain-paths", "wave-groups"]]) {
      const r = await run(server.url, more);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.records.length, SLOTS);
      assert.ok(r.records.every((x) => x.error === null), JSON.stringify(r.records[0]));
      const ids = new Set(r.records.map((x) => x.metadata.x_request_id));
      assert.equal(ids.size, SLOTS);
    }
  } finally {
    await server.close();
  }
});
