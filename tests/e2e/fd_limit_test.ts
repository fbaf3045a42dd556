/**
 * A client out of file descriptors: run under `ulimit -n 256` with 1,000 concurrent requests (a
 * process boundary: the limit is the process's), reprise warns at start, files the failures as
 * the client's own (`ClientResourceExhausted`, not a server error), and says how to fix it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { CHILD_ENV, MAIN } from "./helpers.ts";

const hasShell = Deno.build.os !== "windows";

Deno.test({
  name: "ulimit -n 256 with --concurrency 1000: a warning at start, errors filed as the client's",
  ignore: !hasShell,
  async fn() {
    const server = await startMockServer({ ttftMs: 200 });
    const dir = await Deno.makeTempDir();
    try {
      const args = [
        "run",
        "--quiet",
        "--allow-all",
        MAIN,
        "profile",
        "--url",
        server.url,
        "--model",
        "m",
        "--streaming",
        "--concurrency",
        "1000",
        "--request-count",
        "1000",
        "--artifact-dir",
        dir,
        "--ui",
        "none",
      ];
      const quoted = [Deno.execPath(), ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`);
      const out = await new Deno.Command("sh", {
        args: ["-c", `ulimit -n 256 && exec ${quoted.join(" ")}`],
        stdout: "piped",
        stderr: "piped",
        stdin: "null",
        env: CHILD_ENV,
        signal: AbortSignal.timeout(120_000),
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.match(stderr, /--concurrency 1000 needs about \d+ open files, above .* limit of 256/);
      assert.match(stderr, /ran out of file descriptors .* raise the limit \(`ulimit -n`\)/);
      const runDir = join(dir, "m-openai-chat-concurrency1000");
      const summary = JSON.parse(
        await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")),
      ) as { error_summary: { error_details: { type: string }; count: number }[] };
      const types = summary.error_summary.map((e) => e.error_details.type);
      assert.deepEqual(types, ["ClientResourceExhausted"], stderr);
      assert.ok(summary.error_summary[0].count > 0);
      // Not "cannot connect": the server was there all along.
      assert.notEqual(out.code, 4, stderr);
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
