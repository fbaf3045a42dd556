/** Load shapes through the real CLI: request rate, warmup, duration and grace, failure gate, Ctrl+C. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../../src/mock/server.ts";
import { CHILD_ENV, MAIN, readRecords, runCli } from "./helpers.ts";

const PAYLOADS = fileURLToPath(new URL("../../examples/payloads.jsonl", import.meta.url));
const RUN = "m-openai-chat-concurrency";

function args(url: string, dir: string, ...more: string[]): string[] {
  return [
    "profile",
    "--url",
    url,
    "--model",
    "m",
    "--input-file",
    PAYLOADS,
    "--custom-dataset-type",
    "raw_payload",
    "--streaming",
    "--artifact-dir",
    dir,
    "--ui",
    "none",
    ...more,
  ];
}

type Meta = { intended_start_ns?: number; request_start_ns: number; benchmark_phase: string };
const meta = (r: Record<string, unknown>) => r.metadata as Meta;

Deno.test("--request-rate sends on the seeded absolute schedule and records intended times", async () => {
  const server = await startMockServer({ outputTokens: 4 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(args(
      server.url,
      dir,
      "--request-rate",
      "50",
      "--arrival-pattern",
      "constant",
      "--request-count",
      "20",
      "--random-seed",
      "3",
      // One Worker: the schedule's gaps then come from one clock, without the few microseconds
      // by which two Workers' clocks may differ on a busy machine.
      "--workers-max",
      "1",
    ));
    assert.equal(res.code, 0, res.stderr);
    const runDir = join(dir, "m-openai-chat-request_rate50");
    const records = await readRecords(join(runDir, "profile_export.jsonl"));
    assert.equal(records.length, 20);
    // JSON numbers lose the last digits of epoch ns, and float ms add ~0.3 µs: compare to 5 µs.
    const intended = records.map((r) => meta(r).intended_start_ns!).sort((a, b) => a - b);
    for (let i = 1; i < intended.length; i++) {
      assert.ok(Math.abs(intended[i] - intended[i - 1] - 20e6) < 5e3, `gap ${i}`);
    }
    for (const r of records) assert.ok(meta(r).request_start_ns >= meta(r).intended_start_ns!);
    const summary = JSON.parse(await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")));
    assert.equal(summary.schedule_lag.count, 20);
    assert.equal(summary.schedule_lag.unit, "ms");
  } finally {
    await server.close();
  }
});

Deno.test("warmup runs first, stays out of the results, and is exported as warmup_metrics", async () => {
  const server = await startMockServer({ outputTokens: 4 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(args(
      server.url,
      dir,
      "--warmup-request-count",
      "3",
      "--request-count",
      "4",
      "--concurrency",
      "2",
    ));
    assert.equal(res.code, 0, res.stderr);
    const runDir = join(dir, `${RUN}2`);
    const summary = JSON.parse(await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")));
    assert.equal(summary.request_count.avg, 4);
    assert.equal(summary.warmup_metrics.request_count.avg, 3);
    const records = await readRecords(join(runDir, "profile_export.jsonl"));
    const phases = records.map((r) => meta(r).benchmark_phase);
    assert.deepEqual(phases, ["warmup", "warmup", "warmup", ...new Array(4).fill("profiling")]);
  } finally {
    await server.close();
  }
});

Deno.test("--benchmark-duration stops issuing; requests past the grace period are cancelled", async () => {
  // Rounds of 800 ms: the first ends inside the 1.4 s duration (600 ms to spare on a slow
  // machine), the second cannot end before 1.6 s and is cut at 1.5 s.
  const server = await startMockServer({ ttftMs: 800, outputTokens: 1 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(args(
      server.url,
      dir,
      "--concurrency",
      "2",
      "--benchmark-duration",
      "1.4",
      "--benchmark-grace-period",
      "0.1",
    ));
    assert.equal(res.code, 0, res.stderr);
    const records = await readRecords(join(dir, `${RUN}2`, "profile_export.jsonl"));
    const cancelled = records.filter((r) =>
      (r.metadata as { was_cancelled: boolean }).was_cancelled
    );
    assert.equal(records.length, 4);
    assert.equal(cancelled.length, 2);
    for (const r of cancelled) assert.equal((r.error as { code: number }).code, 499);
  } finally {
    await server.close();
  }
});

Deno.test("--failed-request-threshold aborts the run with exit code 6 and writes artifacts", async () => {
  const server = await startMockServer({ errorRate: 1 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(args(
      server.url,
      dir,
      "--concurrency",
      "2",
      "--request-count",
      "200",
      "--failed-request-threshold",
      "0.5",
    ));
    assert.equal(res.code, 6, res.stderr);
    assert.match(res.stderr, /failed-request-threshold/);
    const runDir = join(dir, `${RUN}2`);
    const records = await readRecords(join(runDir, "profile_export.jsonl"));
    assert.ok(records.length >= 10 && records.length < 200, `${records.length} records`);
    await Deno.stat(join(runDir, "profile_export_aiperf.json"));
  } finally {
    await server.close();
  }
});

/**
 * Polls `ready` every 20 ms until it holds; a hang guard, not a time window: it fails only after
 * `limitMs`, far past what the wait takes on a loaded machine.
 */
async function until(ready: () => boolean, what: string, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Starts the CLI as a subprocess (a real SIGINT is what is tested), waits until the mock has
 * received `inFlight` requests, then sends SIGINT `times` times, each after the CLI has said
 * it took the one before (two signals sent at once may arrive as one).
 */
async function interrupt(
  server: { url: string; stats(): { requests: number } },
  dir: string,
  times: number,
  inFlight: number,
  more: string[],
) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "-A", MAIN, ...args(server.url, dir, ...more)],
    stdout: "null",
    stderr: "piped",
    stdin: "null",
    env: CHILD_ENV,
  }).spawn();
  let stderr = "";
  const stderrDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  const killer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  try {
    await until(() => server.stats().requests >= inFlight, `${inFlight} requests at the mock`);
    for (let i = 0; i < times; i++) {
      const notes = (stderr.match(/^(stopping|cancelling)/gm) ?? []).length;
      child.kill("SIGINT");
      await until(
        () => (stderr.match(/^(stopping|cancelling)/gm) ?? []).length > notes,
        `the CLI to take SIGINT ${i + 1}`,
      );
    }
    const status = await child.status;
    await stderrDone;
    return { code: status.code, stderr, jsonl: join(dir, `${RUN}2`, "profile_export.jsonl") };
  } finally {
    clearTimeout(killer);
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
  }
}

Deno.test("Ctrl+C once drains requests in flight; artifacts are written; exit 130", async () => {
  const server = await startMockServer({ ttftMs: 200, outputTokens: 1 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await interrupt(server, dir, 1, 2, [
      "--concurrency",
      "2",
      "--benchmark-duration",
      "60",
    ]);
    assert.equal(res.code, 130, res.stderr);
    const records = await readRecords(res.jsonl);
    assert.ok(records.length >= 2);
    // The grace period (30 s by default) let every request in flight finish.
    assert.ok(records.every((r) => r.error === null || r.error === undefined), res.stderr);
    await Deno.stat(join(dir, `${RUN}2`, "profile_export_aiperf.json"));
  } finally {
    await server.close();
  }
});

Deno.test("Ctrl+C twice cancels requests in flight; they are recorded as cancelled", async () => {
  const server = await startMockServer({ ttftMs: 20_000, outputTokens: 1 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await interrupt(server, dir, 2, 2, [
      "--concurrency",
      "2",
      "--benchmark-duration",
      "60",
    ]);
    assert.equal(res.code, 130, res.stderr);
    const records = await readRecords(res.jsonl);
    assert.equal(records.length, 2);
    for (const r of records) assert.equal((r.error as { code: number }).code, 499);
    await Deno.stat(join(dir, `${RUN}2`, "profile_export_aiperf.json"));
  } finally {
    await server.close();
  }
});
