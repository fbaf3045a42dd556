/**
 * The live dashboard during a real run against the mock: opened in headless Chromium (Debian's
 * `chromium`, driven by playwright-core in a child process), it draws the client's and the
 * server's charts, and two screenshots a few seconds apart show the number of points rising.
 * The screenshots stay in the test's output folder (printed).
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../../src/mock/server.ts";
import { startCli } from "./helpers.ts";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
const DRIVER = fileURLToPath(new URL("./dashboard_browser_driver.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

async function waitFor<T>(f: () => T | undefined, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("timed out");
}

Deno.test({
  name: "/dashboard during a run: client and server charts grow" +
    (CHROMIUM ? "" : " (skipped: no chromium at /usr/bin/chromium)"),
  ignore: CHROMIUM === undefined,
  fn: async () => {
    const server = await startMockServer({ ttftMs: 40, itlMs: 10, outputTokens: 20 });
    const out = await Deno.makeTempDir({ prefix: "reprise-dashboard-" });
    const run = startCli([
      "profile",
      "--url",
      server.url,
      "--model",
      "m",
      "--endpoint-type",
      "chat",
      "--streaming",
      "--synthetic-input-tokens-mean",
      "20",
      "--output-tokens-mean",
      "20",
      "--concurrency",
      "4",
      "--benchmark-duration",
      "8",
      "--api-port",
      "0",
      "--api-linger-seconds",
      "0",
      "--ui",
      "none",
      "--artifact-dir",
      join(out, "artifacts"),
    ]);
    try {
      const api = await waitFor(
        () => /live API on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stderr())?.[1],
        20_000,
      );
      const res = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          `--config=${CONFIG}`,
          // Playwright probes /proc at load time, which Deno grants only with --allow-all.
          "--allow-all",
          DRIVER,
          CHROMIUM!,
          api,
          out,
        ],
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(150_000),
      }).output();
      const stdout = new TextDecoder().decode(res.stdout);
      assert.equal(res.code, 0, `browser driver failed:\n${new TextDecoder().decode(res.stderr)}`);
      const r = JSON.parse(stdout.trim().split("\n").pop()!);
      assert.deepEqual(r.foreign, []);
      assert.deepEqual(r.consoleErrors, []);
      assert.equal(r.first.status, "running", "the first screenshot is taken during the run");
      assert.ok(r.second.points > r.first.points, `points ${r.first.points} → ${r.second.points}`);
      const ids = r.charts.map((c: { id: string; group: string }) => `${c.group}/${c.id}`);
      for (
        const id of [
          "client-charts/chart-ttft",
          "client-charts/chart-output-tps",
          "server-charts/chart-server-running",
          "server-charts/chart-server-generation-tokens",
        ]
      ) assert.ok(ids.includes(id), `${id} missing: ${ids}`);
      for (const s of [r.first, r.second]) assert.ok((await Deno.stat(s.path)).size > 10_000);
      console.log(`dashboard screenshots: ${r.first.path} ${r.second.path}`);
      // The run ends on its own, as planned, with the dashboard's stream closed.
      const done = await run.done();
      assert.equal(done.code, 0, done.stderr);
    } finally {
      run.interrupt();
      await run.done().catch(() => {});
      await server.close();
    }
  },
});
