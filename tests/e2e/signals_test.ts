/**
 * SIGINT and SIGTERM at every phase of a run, through a real process (a signal is what is tested):
 * loading, waiting for the model, starting the Workers, sending a large payload, running, the
 * grace period and the API linger. Each case checks the exit code, that the process ended by its
 * own exit (not the signal's default action), and that whatever was written is whole: every
 * line of profile_export.jsonl is complete JSON and the summary says the run was cancelled.
 * The time from the signal to the exit is printed, not asserted (the machine may be loaded);
 * only a hang past HANG_MS fails a case.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../../src/mock/server.ts";
import { CHILD_ENV, MAIN } from "./helpers.ts";

const PAYLOADS = fileURLToPath(new URL("../../examples/payloads.jsonl", import.meta.url));
const RUN = "m-openai-chat-concurrency";
/** A run still going this long after its signal hangs: 10x what the slowest case takes. */
const HANG_MS = 10_000;
const onWindows = Deno.build.os === "windows";

type Sig = "SIGINT" | "SIGTERM";

/** How a signalled run ended. */
interface Ended {
  code: number;
  /** The signal that ended the process by its default action; null when it exited itself. */
  killedBy: string | null;
  stderr: string;
  /** Milliseconds from the last signal sent to the exit. */
  ms: number;
}

/**
 * Starts `reprise profile ...args` as a subprocess; `when(child)` resolves when the signals are to
 * be sent. Each signal after the first waits until the CLI said it took the one before.
 */
async function signalled(
  args: string[],
  signals: Sig[],
  when: (stderr: () => string) => Promise<void>,
): Promise<Ended> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "-A", MAIN, "profile", ...args],
    stdout: "null",
    stderr: "piped",
    stdin: "null",
    env: CHILD_ENV,
  }).spawn();
  let stderr = "";
  const stderrDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  let hang: ReturnType<typeof setTimeout> | undefined;
  try {
    await when(() => stderr);
    let sentAt = 0;
    for (const [i, sig] of signals.entries()) {
      if (i > 0) await until(() => /^stopping/m.test(stderr), "the CLI to take the first signal");
      sentAt = performance.now();
      child.kill(sig);
    }
    hang = setTimeout(() => child.kill("SIGKILL"), HANG_MS);
    const status = await child.status;
    const ms = performance.now() - sentAt;
    await stderrDone;
    return { code: status.code, killedBy: status.signal, stderr, ms };
  } finally {
    clearTimeout(hang);
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
  }
}

/** Polls `ready` every 10 ms; fails only past `limitMs` (a hang, not a time window). */
async function until(ready: () => boolean, what: string, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function profileArgs(url: string, dir: string, input: string, ...more: string[]): string[] {
  return [
    "--url",
    url,
    "--model",
    "m",
    "--input-file",
    input,
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

/** The run directory under `dir`, or null when the run created none. */
async function runDirOf(dir: string): Promise<string | null> {
  for await (const e of Deno.readDir(dir)) if (e.name.startsWith(RUN)) return join(dir, e.name);
  return null;
}

/**
 * What a stopped run left is whole: every line of profile_export.jsonl is complete JSON, and the
 * summary says `was_cancelled` as expected. Returns the records.
 */
async function checkArtifacts(
  runDir: string,
  wasCancelled = true,
): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(join(runDir, "profile_export.jsonl"));
  assert.ok(text === "" || text.endsWith("\n"), "the last record line is cut short");
  const records = text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
  const summary = JSON.parse(await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")));
  assert.equal(summary.was_cancelled, wasCancelled);
  return records;
}

/** Checks how the run ended and prints the signal-to-exit time. */
function checkEnd(name: string, end: Ended, code: number): void {
  console.log(`signal to exit, ${name}: ${end.ms.toFixed(0)} ms`);
  assert.equal(end.killedBy, null, `ended by ${end.killedBy}, not by its own exit\n${end.stderr}`);
  assert.equal(end.code, code, end.stderr);
}

/** A 20 MB raw_payload line (one chat body). */
function bigPayload(): string {
  const content = "lorem ipsum dolor sit amet ".repeat(Math.ceil(20 * 2 ** 20 / 27));
  return `${JSON.stringify({ messages: [{ role: "user", content }], max_tokens: 4 })}\n`;
}

for (
  const [atMs, sig] of [[100, "SIGINT"], [300, "SIGINT"], [500, "SIGINT"], [
    300,
    "SIGTERM",
  ]] as const
) {
  Deno.test({
    name: `${sig} ${atMs} ms after start ends the run cleanly with the signal's code`,
    ignore: onWindows,
    fn: async () => {
      const server = await startMockServer({ ttftMs: 20, outputTokens: 2 });
      const dir = await Deno.makeTempDir();
      try {
        const args = profileArgs(server.url, dir, PAYLOADS, "--benchmark-duration", "60");
        const end = await signalled(args, [sig], () => sleep(atMs));
        const code = sig === "SIGINT" ? 130 : 143;
        console.log(`  (${atMs} ms: ${server.stats().requests} requests had reached the mock)`);
        // Killed by the signal before the runtime had set up its handlers: the shell's code,
        // and nothing written.
        if (end.killedBy !== null) assert.equal(end.code, code);
        else checkEnd(`${sig} at ${atMs} ms`, end, code);
        const runDir = await runDirOf(dir);
        if (runDir !== null) await checkArtifacts(runDir);
        else assert.equal(server.stats().requests, 0);
      } finally {
        await server.close();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

Deno.test({
  name: "SIGINT while a 20 MB dataset loads exits at once and writes nothing",
  ignore: onWindows,
  fn: async () => {
    const server = await startMockServer({ outputTokens: 2 });
    const dir = await Deno.makeTempDir();
    // A FIFO: the run reads the dataset as the test writes it, and the signal comes mid-file.
    const fifo = join(dir, "payload.jsonl");
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.ok(made.success);
    const bytes = new TextEncoder().encode(bigPayload());
    try {
      const args = profileArgs(server.url, join(dir, "out"), fifo, "--request-count", "1");
      let writer: Deno.FsFile | null = null;
      const end = await signalled(args, ["SIGINT"], async () => {
        writer = await Deno.open(fifo, { write: true });
        // Half the file: the pipe holds 64 KiB, so the run has read nearly all of it.
        await writer.write(bytes.subarray(0, bytes.length >> 1)).catch(() => 0);
      });
      try {
        (writer as Deno.FsFile | null)?.close();
      } catch { /* the reader is gone */ }
      checkEnd("SIGINT while loading 20 MB", end, 130);
      assert.equal(await runDirOf(dir), null);
      await assert.rejects(Deno.stat(join(dir, "out")));
      assert.equal(server.stats().requests, 0);
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "SIGTERM while waiting for the model exits at once with 143 and writes nothing",
  ignore: onWindows,
  fn: async () => {
    // A port that refuses connections: the run keeps waiting for the model.
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (l.addr as Deno.NetAddr).port;
    l.close();
    const dir = await Deno.makeTempDir();
    try {
      const args = profileArgs(
        `http://127.0.0.1:${port}`,
        dir,
        PAYLOADS,
        "--wait-for-model-timeout",
        "60",
      );
      const end = await signalled(
        args,
        ["SIGTERM"],
        (stderr) => until(() => /waiting up to/.test(stderr()), "the wait for the model"),
      );
      checkEnd("SIGTERM while waiting for the model", end, 143);
      assert.equal(await runDirOf(dir), null);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "SIGINT while the Workers start stops the run before its first request",
  ignore: onWindows,
  fn: async () => {
    const server = await startMockServer({ outputTokens: 2 });
    const dir = await Deno.makeTempDir();
    try {
      // The live API's line is printed just before the Workers start.
      const args = profileArgs(
        server.url,
        dir,
        PAYLOADS,
        "--api-port",
        "0",
        "--request-count",
        "50",
      );
      const end = await signalled(
        args,
        ["SIGINT"],
        (stderr) => until(() => /live API on/.test(stderr()), "the live API"),
      );
      checkEnd("SIGINT while the Workers start", end, 130);
      const records = await checkArtifacts((await runDirOf(dir))!);
      // The Workers may have been ready already; then the first requests may have gone out.
      assert.ok(records.length < 50, `${records.length} records`);
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "SIGINT while a 20 MB payload is sent lets it finish and records it",
  ignore: onWindows,
  fn: async () => {
    const server = await startMockServer({ outputTokens: 2 });
    const dir = await Deno.makeTempDir();
    const input = join(dir, "payload.jsonl");
    await Deno.writeTextFile(input, bigPayload());
    try {
      const args = profileArgs(server.url, dir, input, "--benchmark-duration", "60");
      const end = await signalled(
        args,
        ["SIGINT"],
        () => until(() => server.stats().requests >= 1, "the first request at the mock"),
      );
      checkEnd("SIGINT while sending 20 MB", end, 130);
      const records = await checkArtifacts((await runDirOf(dir))!);
      assert.ok(records.length >= 1, end.stderr);
      assert.ok(records.every((r) => r.error === null || r.error === undefined), end.stderr);
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "SIGTERM during the run drains it and exits 143 with every finished record",
  ignore: onWindows,
  fn: async () => {
    const server = await startMockServer({ ttftMs: 50, outputTokens: 2 });
    const dir = await Deno.makeTempDir();
    try {
      const args = profileArgs(server.url, dir, PAYLOADS, "--concurrency", "4");
      args.push("--benchmark-duration", "60");
      const end = await signalled(
        args,
        ["SIGTERM"],
        () => until(() => server.stats().requests >= 20, "20 requests at the mock"),
      );
      checkEnd("SIGTERM during the run", end, 143);
      const records = await checkArtifacts((await runDirOf(dir))!);
      assert.ok(records.length >= 16, `${records.length} records`);
      // Drained, not cancelled: the requests in flight finished.
      assert.ok(records.every((r) => r.error === null || r.error === undefined), end.stderr);
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "two SIGINTs in the grace period cancel the requests still in flight",
  ignore: onWindows,
  fn: async () => {
    const server = await startMockServer({ ttftMs: 20_000, outputTokens: 1 });
    const dir = await Deno.makeTempDir();
    try {
      const args = profileArgs(server.url, dir, PAYLOADS, "--concurrency", "2");
      args.push("--benchmark-duration", "0.2", "--benchmark-grace-period", "60");
      const end = await signalled(args, ["SIGINT", "SIGINT"], async () => {
        await until(() => server.stats().requests >= 2, "2 requests at the mock");
        // Past the duration: the phase waits in its grace period.
        await sleep(400);
      });
      checkEnd("second SIGINT in the grace period", end, 130);
      const records = await checkArtifacts((await runDirOf(dir))!);
      assert.equal(records.length, 2);
      for (const r of records) assert.equal((r.error as { code: number }).code, 499);
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "SIGINT during the API linger ends it with the finished run's exit code; its artifacts are whole",
  ignore: onWindows,
  fn: async () => {
    const server = await startMockServer({ outputTokens: 2 });
    const dir = await Deno.makeTempDir();
    try {
      const args = profileArgs(server.url, dir, PAYLOADS, "--request-count", "3");
      args.push("--api-port", "0", "--api-linger-seconds", "60");
      const end = await signalled(
        args,
        ["SIGINT"],
        (stderr) => until(() => /^artifacts:/m.test(stderr()), "the run's end"),
      );
      checkEnd("SIGINT during the API linger", end, 0);
      // The run itself completed before the signal.
      const records = await checkArtifacts((await runDirOf(dir))!, false);
      assert.equal(records.length, 3);
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
