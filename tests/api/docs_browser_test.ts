/**
 * Opens /docs and /redoc from a real API server in headless Chromium (Debian's `chromium`
 * package, driven by playwright-core) and checks the operations render with no request leaving
 * the server. Playwright runs in a child process (docs_browser_driver.ts) because it needs
 * permissions the test run does not grant; the server runs here.
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { OPERATIONS } from "../../src/api/openapi.ts";
import { startApiServer } from "../../src/api/server.ts";
import { fakeSource } from "./fake_source.ts";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
const DRIVER = fileURLToPath(new URL("./docs_browser_driver.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

interface Report {
  docs: {
    rendered: string;
    title: string;
    operations: { method: string; path: string; summary: string }[];
    metricsFields: string[];
    tryResult: string;
  };
  redoc: { rendered: string; sections: number; navLinks: number; paths: string[] };
  foreign: string[];
  failed: string[];
  consoleErrors: string[];
}

Deno.test({
  name: "docs pages render every operation in a browser, offline" +
    (CHROMIUM === undefined ? " (skipped: no chromium binary at /usr/bin/chromium)" : ""),
  ignore: CHROMIUM === undefined,
  fn: async (t) => {
    const { source } = fakeSource();
    const server = await startApiServer({ host: "127.0.0.1", port: 0, source });
    let report: Report;
    try {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          `--config=${CONFIG}`,
          // Playwright probes /proc at load time, which Deno grants only with --allow-all.
          "--allow-all",
          DRIVER,
          CHROMIUM!,
          server.url,
        ],
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(150_000),
      }).output();
      const stdout = new TextDecoder().decode(out.stdout);
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, `browser driver failed:\n${stderr}\n${stdout}`);
      report = JSON.parse(stdout.trim().split("\n").pop()!);
    } finally {
      await server.close();
    }

    await t.step("/docs lists every operation with method, path and summary", () => {
      assert.equal(report.docs.rendered, String(OPERATIONS.length));
      assert.match(report.docs.title, /reprise live API/);
      assert.equal(report.docs.operations.length, OPERATIONS.length);
      for (const op of OPERATIONS) {
        const shown = report.docs.operations.find((o) => o.path === op.path);
        assert.ok(shown, `${op.path} not rendered`);
        assert.equal(shown.method.toLowerCase(), op.method);
        assert.equal(shown.summary, op.summary);
      }
    });

    await t.step("an operation shows its response schema and can be tried", () => {
      for (const f of ["reprise_version", "benchmark_id", "metrics", "streaming"]) {
        assert.ok(report.docs.metricsFields.includes(f), `field ${f} missing`);
      }
      assert.match(report.docs.tryResult, /^200 /);
      assert.match(report.docs.tryResult, /"benchmark_id": "bench-123"/);
    });

    await t.step("/redoc renders the same operations with navigation", () => {
      assert.equal(report.redoc.rendered, String(OPERATIONS.length));
      assert.equal(report.redoc.sections, OPERATIONS.length);
      assert.equal(report.redoc.navLinks, OPERATIONS.length);
      assert.ok(report.redoc.paths.includes("/api/results/files/{path}"));
    });

    await t.step("nothing was requested from elsewhere and nothing failed", () => {
      assert.deepEqual(report.foreign, []);
      assert.deepEqual(report.failed, []);
      assert.deepEqual(report.consoleErrors, []);
    });
  },
});
