/**
 * The report of a sweep of two mock configurations (two "servers" of 2 and 4 slots), opened in
 * Chromium: the throughput-latency curves of both, each point with its interval, and the SLO
 * line; the screenshot stays in the test's output folder. And `compare` of two aggregates.
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../../src/mock/server.ts";
import { runCli } from "../e2e/helpers.ts";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
const DRIVER = fileURLToPath(new URL("./sweep_report_driver.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

type Json = Record<string, unknown>;

Deno.test("the sweep report of two servers: curves with intervals and the SLO line", async (t) => {
  const servers = await Promise.all(
    [2, 4].map((slots) =>
      startMockServer({
        slots,
        decodeMs: 2,
        decodeMsPerSeq: 1,
        prefillUsPerToken: 10,
        outputTokens: 4,
      })
    ),
  );
  const tmp = await Deno.makeTempDir({ prefix: "reprise-sweep-report-" });
  const out = join(tmp, "out");
  const dirs = ["server-a", "server-b"].map((d) => join(tmp, d));
  try {
    for (const [i, server] of servers.entries()) {
      const r = await runCli([
        "profile",
        "--url",
        server.url,
        "--model",
        "mock-model",
        "--streaming",
        "--request-count",
        "6",
        "--isl",
        "16",
        "--osl",
        "4",
        "--tokenizer",
        "builtin",
        "--ui",
        "none",
        "--no-server-metrics",
        "--concurrency",
        "1,2,4",
        "--num-profile-runs",
        "2",
        "--artifact-dir",
        dirs[i],
      ]);
      assert.equal(r.code, 0, r.stderr);
    }
    const html = join(out, "sweep_report.html");
    const rep = await runCli(["report", ...dirs, "--ttft-sla-ms", "40", "-o", html]);
    assert.equal(rep.code, 0, rep.stderr);
    const text = await Deno.readTextFile(html);
    assert.ok(!/<script[^>]+src=|<link[^>]+href=/i.test(text), "no external resources");
    assert.match(text, /server-a\/mock-model-openai-chat-sweep/);

    await t.step(
      "compare of two aggregates says which differences exceed the intervals",
      async () => {
        const a = join(dirs[0], "mock-model-openai-chat-sweep", "aggregate", "concurrency_4");
        const b = join(dirs[1], "mock-model-openai-chat-sweep", "aggregate", "concurrency_4");
        const c = await runCli(["compare", a, b]);
        assert.equal(c.code, 0, c.stderr);
        assert.match(c.stdout, /time_to_first_token_p99/);
        assert.match(c.stdout, /beyond the intervals|within the intervals/);
        // Two sweeps: each concurrency both ran.
        const s = await runCli(["compare", dirs[0], dirs[1]]);
        assert.equal(s.code, 0, s.stderr);
        for (const c of [1, 2, 4]) assert.match(s.stdout, new RegExp(`^concurrency=${c}$`, "m"));
        assert.match(s.stdout, /request_throughput_avg/);
      },
    );

    await t.step({
      name: "the charts render in Chromium" + (CHROMIUM ? "" : " (skipped: no chromium)"),
      ignore: CHROMIUM === undefined,
      fn: async () => {
        const screenshot = join(out, "sweep_report.png");
        const res = await new Deno.Command(Deno.execPath(), {
          args: ["run", `--config=${CONFIG}`, "--allow-all", DRIVER, CHROMIUM!, html, screenshot],
          stdout: "piped",
          stderr: "piped",
          signal: AbortSignal.timeout(150_000),
        }).output();
        assert.equal(
          res.code,
          0,
          `browser driver failed:\n${new TextDecoder().decode(res.stderr)}`,
        );
        const r = JSON.parse(new TextDecoder().decode(res.stdout).trim().split("\n").pop()!);
        assert.deepEqual(r.foreign, []);
        assert.deepEqual(r.consoleErrors, []);
        const chart = (id: string) => r.charts.find((c: Json) => c.id === id) as Json;
        const p99 = chart("tput-ttft-p99");
        assert.ok(p99, "the throughput-TTFT chart");
        const series = p99.series as {
          name: string;
          points: number;
          intervals: number;
          line: { w: number };
        }[];
        // Both servers' curves: three concurrencies each, a line through them, and intervals drawn.
        assert.equal(series.length, 2);
        for (const s of series) {
          assert.equal(s.points, 3, s.name);
          assert.ok(s.line.w > 20, `${s.name} line`);
          assert.ok(s.intervals >= 3, `${s.name}: ${s.intervals} interval bars`);
        }
        assert.deepEqual(p99.slo, ["SLO: TTFT 40 ms"]);
        assert.ok((p99.sloLine as { w: number }).w > 100, "the SLO line spans the chart");
        assert.ok(chart("interactivity"), "the interactivity chart");
        assert.equal(chart("pareto").front, 1);
        assert.ok((await Deno.stat(screenshot)).size > 10_000);
        console.log(`sweep report screenshot: ${screenshot}`);
      },
    });
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    // The report and its screenshot stay (the output folder); the runs go.
    for (const d of dirs) await Deno.remove(d, { recursive: true });
  }
});
