/**
 * The run plan through the real CLI, in-process against the built-in mock: a config error found
 * by the plan exits 2 with one line and leaves no artifact directory behind and no request sent;
 * `--verbose` prints the plan the load runs.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import type { Io } from "../../src/cli/io.ts";
import { startMockServer } from "../../src/mock/server.ts";

/** Runs `reprise profile` in-process with `args`; returns the exit code and the two streams. */
async function profile(
  args: string[],
  signal?: AbortSignal,
  exitOnSignal?: Io["exitOnSignal"],
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    env: () => undefined,
    isTerminal: false,
    signal,
    exitOnSignal,
  };
  const code = await main(["profile", ...args, "--ui", "none"], io);
  return { code, out, err };
}

/** Whether `path` exists. */
async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/** A mock server counting the requests it answers; `requests()` reads the count. */
async function countingMock() {
  const server = await startMockServer({ outputTokens: 4 });
  let requests = 0;
  const proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    requests++;
    const url = new URL(req.url);
    return fetch(`${server.url}${url.pathname}${url.search}`, {
      method: req.method,
      headers: req.headers,
      body: req.body,
    });
  });
  return {
    url: `http://127.0.0.1:${proxy.addr.port}`,
    requests: () => requests,
    async close() {
      await proxy.shutdown();
      await server.close();
    },
  };
}

/** Runs `args` expecting a config error: exit 2, one error line, nothing created or sent. */
async function assertConfigError(args: string[], message: RegExp): Promise<void> {
  const server = await countingMock();
  const tmp = await Deno.makeTempDir({ prefix: "reprise-plan-" });
  const artifactDir = join(tmp, "artifacts");
  try {
    const res = await profile([
      "--url",
      server.url,
      "--model",
      "m",
      "--artifact-dir",
      artifactDir,
      "--api-port",
      "0",
      ...args,
    ]);
    assert.equal(res.code, 2, res.err);
    assert.match(res.err, message);
    assert.equal(res.err.trim().split("\n").length, 1, res.err);
    assert.match(res.err, /^error: /);
    assert.equal(res.out, "");
    assert.equal(await exists(artifactDir), false, "the artifact directory was created");
    assert.equal(server.requests(), 0);
  } finally {
    await server.close();
    await Deno.remove(tmp, { recursive: true });
  }
}

/** A trace file whose conversations start at 100 ms and 500 ms. */
async function traceFile(dir: string): Promise<string> {
  const path = join(dir, "trace.jsonl");
  await Deno.writeTextFile(
    path,
    `{"timestamp":500,"text_input":"a b c","output_length":3}\n` +
      `{"timestamp":100,"text_input":"d e f","output_length":3}\n`,
  );
  return path;
}

Deno.test("--fixed-schedule on a dataset without timestamps exits 2 and creates nothing", async () => {
  await assertConfigError(
    ["--fixed-schedule", "--num-conversations", "3", "--isl", "8", "--osl", "4"],
    /--fixed-schedule needs a timestamp on every conversation's first turn/,
  );
});

Deno.test("a --fixed-schedule window no conversation starts in exits 2 and creates nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reprise-plan-trace-" });
  try {
    const trace = await traceFile(dir);
    await assertConfigError(
      [
        "--input-file",
        trace,
        "--fixed-schedule-start-offset",
        "600",
        "--fixed-schedule-end-offset",
        "400",
      ],
      /no conversation starts inside --fixed-schedule-start-offset/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--verbose prints the plan of a duration-bounded run: no request total", async () => {
  const server = await startMockServer({ outputTokens: 4, ttftMs: 0, itlMs: 0 });
  const dir = await Deno.makeTempDir({ prefix: "reprise-plan-verbose-" });
  try {
    const res = await profile([
      "--url",
      server.url,
      "--model",
      "m",
      "--num-conversations",
      "2",
      "--isl",
      "8",
      "--osl",
      "4",
      "--warmup-request-count",
      "2",
      "--benchmark-duration",
      "1",
      "--benchmark-grace-period",
      "5",
      "--concurrency",
      "2",
      "--artifact-dir",
      dir,
      "-v",
    ]);
    assert.equal(res.code, 0, res.err);
    const plan = res.err.split("\n").filter((l) => l.startsWith("plan: "));
    assert.equal(plan.length, 3, res.err);
    assert.match(
      plan[0],
      /^plan: 2 conversations \(2 turns\) from synthetic .*transport (http1|fetch)/,
    );
    assert.match(plan[1], /^plan: warmup: concurrency 2; at most 2 requests$/);
    assert.match(plan[2], /^plan: profiling: concurrency 2; for 1 s \(then 5 s grace\)$/);
    // More requests than the dataset's two turns were sent: the duration bounds the run.
    const summary = JSON.parse(
      await Deno.readTextFile(
        join(dir, "m-openai-chat-concurrency2", "profile_export_aiperf.json"),
      ),
    );
    assert.ok(summary.request_count.avg > 2, JSON.stringify(summary.request_count));
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a Ctrl+C before the artifact directory exists ends the run: exit 130, nothing created or sent", async () => {
  const server = await countingMock();
  const dir = await Deno.makeTempDir({ prefix: "reprise-plan-stop-" });
  try {
    const res = await profile(
      ["--url", server.url, "--model", "m", "--num-conversations", "3", "--artifact-dir", dir],
      AbortSignal.abort(),
    );
    assert.equal(res.code, 130, res.err);
    assert.equal(server.requests(), 0);
    assert.equal(await exists(join(dir, "m-openai-chat-concurrency1")), false);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a Ctrl+C as the run starts stops it before the first phase: exit 130, artifacts, nothing sent", async () => {
  const server = await countingMock();
  const dir = await Deno.makeTempDir({ prefix: "reprise-plan-stop-" });
  const stop = new AbortController();
  try {
    // The signal comes the moment the run turns from planning to starting (and creating its
    // artifact directory): while the Workers start, the first phase not yet begun.
    const res = await profile(
      ["--url", server.url, "--model", "m", "--num-conversations", "3", "--artifact-dir", dir],
      stop.signal,
      (on) => on || queueMicrotask(() => stop.abort()),
    );
    assert.equal(res.code, 130, res.err);
    assert.match(res.err, /stopping: no new requests/);
    assert.equal(server.requests(), 0);
    const summary = JSON.parse(
      await Deno.readTextFile(
        join(dir, "m-openai-chat-concurrency1", "profile_export_aiperf.json"),
      ),
    );
    assert.equal(summary.was_cancelled, true);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
