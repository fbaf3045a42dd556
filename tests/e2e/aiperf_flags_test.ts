/**
 * AIPerf's flags through the real CLI, in-process against the built-in mock: a flag reprise does
 * not support yet stops the run with one line and exit 2 before any request; AIPerf's no-op
 * values run; the log level decides what stderr shows; the export flags name and choose the
 * files as AIPerf does, and no secret reaches them.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import type { Io } from "../../src/cli/io.ts";
import { startMockServer } from "../../src/mock/server.ts";

const KEY = "sk-RAWSECRET-0123456789";

/** Runs `reprise profile` in-process; returns the exit code and the two streams. */
async function profile(
  args: string[],
  isTerminal = false,
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    env: () => undefined,
    isTerminal,
  };
  const code = await main(["profile", ...args], io);
  return { code, out, err };
}

/** The files of the one run directory under `root`. */
async function runFiles(root: string): Promise<{ dir: string; files: string[] }> {
  for await (const e of Deno.readDir(root)) {
    const dir = join(root, e.name);
    const files: string[] = [];
    for await (const f of Deno.readDir(dir)) files.push(f.name);
    return { dir, files: files.sort() };
  }
  throw new Error(`no run directory in ${root}`);
}

Deno.test("AIPerf's flags: refused before anything is sent, or accepted as no-ops", async (t) => {
  const server = await startMockServer({ outputTokens: 4 });
  const root = await Deno.makeTempDir();
  const base = ["-m", "m", "-u", server.url, "--request-count", "3", "--streaming"];
  try {
    await t.step(
      "a not-yet flag that would change the run: exit 2, one line, no request",
      async () => {
        for (
          const flag of [
            ["--search-space", "concurrency:1:64"],
            ["--cache-bust", "system_prefix"],
            ["--accuracy-benchmark", "mmlu"],
          ]
        ) {
          const dir = join(root, "refused");
          const r = await profile([...base, ...flag, "--artifact-dir", dir]);
          assert.equal(r.code, 2, flag.join(" "));
          assert.match(
            r.err,
            new RegExp(`^error: ${flag[0]}: not supported yet \\([^\\n]+\\)\\n$`),
          );
          assert.equal(r.out, "");
          await assert.rejects(Deno.stat(dir));
        }
        assert.equal(server.stats().requests, 0);
      },
    );

    await t.step("no-op values of not-yet flags and AIPerf's spellings run", async () => {
      const dir = join(root, "noop");
      const r = await profile([
        ...base,
        "--num-profile-runs",
        "1",
        "--no-server-metrics",
        "--no-gpu-telemetry",
        "--transport",
        "http",
        "--ui-type",
        "dashboard",
        "--output-artifact-dir",
        dir,
      ]);
      assert.equal(r.code, 0, r.err);
      // Not a terminal: the dashboard falls back to the progress line, which never clears a screen.
      assert.equal(r.err.includes("\x1b[?1049h"), false);
      assert.equal(server.stats().requests, 3);
    });
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the log level decides what stderr shows", async () => {
  const server = await startMockServer({ outputTokens: 4 });
  const root = await Deno.makeTempDir();
  const base = ["-m", "m", "-u", server.url, "--request-count", "3", "--ui", "none"];
  try {
    const info = await profile([...base, "--zmq-host", "h", "--artifact-dir", join(root, "a")]);
    assert.equal(info.code, 0);
    assert.match(info.err, /^artifacts: /m);
    assert.doesNotMatch(info.err, /^plan: |^trace: |has no effect/m);

    const debug = await profile([
      ...base,
      "-v",
      "--zmq-host",
      "h",
      "--artifact-dir",
      join(root, "b"),
    ]);
    assert.match(debug.err, /^plan: /m);
    assert.match(debug.err, /^--zmq-host has no effect in reprise: .+$/m);
    assert.doesNotMatch(debug.err, /^trace: /m);

    const trace = await profile([...base, "-vv", "--artifact-dir", join(root, "c")]);
    assert.equal(trace.err.match(/^trace: profiling request \S+ .*: 200 in /gm)?.length, 3);

    const asLevel = await profile([
      ...base,
      "--log-level",
      "TRACE",
      "--artifact-dir",
      join(root, "d"),
    ]);
    assert.equal(asLevel.err.match(/^trace: /gm)?.length, 3);

    const quiet = await profile([
      ...base,
      "--log-level",
      "ERROR",
      "--artifact-dir",
      join(root, "e"),
    ]);
    assert.equal(quiet.code, 0);
    assert.equal(quiet.err, "");
    // The result is not a log: stdout keeps the table.
    assert.match(quiet.out, /Request Latency/);
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("export flags: prefix, level and outputs.json as AIPerf names them, no secret", async () => {
  const server = await startMockServer({ outputTokens: 4 });
  const root = await Deno.makeTempDir();
  const base = [
    "-m",
    "m",
    "-u",
    server.url,
    "--request-count",
    "4",
    "--streaming",
    "--ui",
    "none",
    "--api-key",
    KEY,
    // These file lists are the benchmark's exports; docs/server-metrics.md has the server's.
    "--no-server-metrics",
  ];
  try {
    const raw = join(root, "raw");
    const r = await profile([
      ...base,
      "--profile-export-file",
      "foo.json",
      "--export-level",
      "raw",
      "--report",
      "--artifact-dir",
      raw,
    ]);
    assert.equal(r.code, 0, r.err);
    const { dir, files } = await runFiles(raw);
    assert.deepEqual(files, [
      "foo.csv",
      "foo.json",
      "foo.jsonl",
      "foo_raw.jsonl",
      "inputs.json",
      "outputs.json",
      "report.html",
    ]);
    // The report found the prefixed exports (without them it ends the command with an error).
    assert.match(r.err, /^report: /m);
    const lines = (await Deno.readTextFile(join(dir, "foo_raw.jsonl"))).trim().split("\n");
    assert.equal(lines.length, 4);
    for (const line of lines) {
      const doc = JSON.parse(line);
      assert.ok(Array.isArray(doc.payload.messages));
      assert.ok(doc.response.text.length > 0);
      assert.equal(doc.status, 200);
    }
    const outputs = JSON.parse(await Deno.readTextFile(join(dir, "outputs.json"))).outputs;
    assert.equal(outputs.length, 4);
    for (const o of outputs) assert.ok(o.output_text.length > 0);
    for (const f of files) {
      assert.equal((await Deno.readTextFile(join(dir, f))).includes(KEY), false, f);
    }

    const summary = join(root, "summary");
    assert.equal(
      (await profile([...base, "--export-level", "summary", "--artifact-dir", summary])).code,
      0,
    );
    assert.deepEqual((await runFiles(summary)).files, [
      "inputs.json",
      "profile_export_aiperf.csv",
      "profile_export_aiperf.json",
    ]);

    const outs = join(root, "outputs");
    assert.equal(
      (await profile([...base, "--export-outputs-json", "--artifact-dir", outs])).code,
      0,
    );
    assert.deepEqual((await runFiles(outs)).files, [
      "inputs.json",
      "outputs.json",
      "profile_export.jsonl",
      "profile_export_aiperf.csv",
      "profile_export_aiperf.json",
    ]);
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});
