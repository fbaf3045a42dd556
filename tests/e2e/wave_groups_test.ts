/**
 * A first wave wider than a group (load/wave.ts): every slot starts and sends its request, with
 * the groups and without (`--plain-paths wave-groups`), in-process against the built-in mock.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../../src/mock/server.ts";
import { WAVE_GROUP } from "../../src/load/wave.ts";
import { readRecords, runCli } from "./helpers.ts";

const PAYLOADS = fileURLToPath(new URL("../../examples/payloads.jsonl", import.meta.url));

/** Slots in the first wave: two whole groups and part of a third. */
const SLOTS = WAVE_GROUP * 2 + 7;

Deno.test("wave groups: a first wave of three groups starts every slot, as one without groups does", async () => {
  const server = await startMockServer({ ttftMs: 30, itlMs: 1, outputTokens: 4 });
  try {
    for (const more of [[], ["--plain-paths", "wave-groups"]]) {
      const dir = await Deno.makeTempDir();
      try {
        // deno-fmt-ignore
        const res = await runCli([
          "profile", "--url", server.url, "--model", "m", "--input-file", PAYLOADS,
          "--custom-dataset-type", "raw_payload", "--streaming", "--transport", "http1",
          "--concurrency", String(SLOTS), "--request-count", String(SLOTS),
          "--artifact-dir", dir, "--ui", "none", ...more,
        ]);
        assert.equal(res.code, 0, res.stderr);
        const records = await readRecords(
          join(dir, `m-openai-chat-concurrency${SLOTS}`, "profile_export.jsonl"),
        );
        assert.equal(records.length, SLOTS);
        assert.ok(records.every((r) => r.error === null), JSON.stringify(records[0]));
        const ids = new Set(
          records.map((r) => (r.metadata as { x_request_id: string }).x_request_id),
        );
        assert.equal(ids.size, SLOTS);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }
  } finally {
    await server.close();
  }
});
