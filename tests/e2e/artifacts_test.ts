/**
 * Artifacts that cannot be written: a disk that fills during the run ends it with one line and
 * exit code 20, `profile_export.jsonl` made of whole lines; an artifact directory that cannot be
 * used (a file, under a file, read-only, refused by the OS) stops the run before anything is
 * sent, each with its own code. The full disk is a 64 KiB tmpfs where this machine can mount
 * one (as root), else a records file that fails after 20,000 bytes as a full disk does (also
 * with REPRISE_TEST_INJECTED_DISK=1).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ExitCode } from "../../src/cli/exit_codes.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { runCli } from "./helpers.ts";

/** Runs a command; true when it ran and succeeded. */
async function succeeds(cmd: string, args: string[]): Promise<boolean> {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output();
    return out.success;
  } catch {
    return false;
  }
}

/** Mounts a tmpfs of `size` at `dir` (read-only when asked); false when this machine cannot. */
function mountTmpfs(dir: string, size: string, readOnly = false): Promise<boolean> {
  const opts = `size=${size}${readOnly ? ",ro" : ""}`;
  return succeeds("mount", ["-t", "tmpfs", "-o", opts, "tmpfs", dir]);
}

/** Whether a tmpfs can be mounted here, tried once on a scratch directory. */
async function canMountTmpfs(): Promise<boolean> {
  const dir = await Deno.makeTempDir();
  try {
    if (!await mountTmpfs(dir, "64k")) return false;
    await succeeds("umount", [dir]);
    return true;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

// REPRISE_TEST_INJECTED_DISK=1 takes the injected way even where a tmpfs mounts.
const TMPFS = Deno.env.get("REPRISE_TEST_INJECTED_DISK") !== "1" && await canMountTmpfs();

/** One short chat payload: inputs.json stays small, so the records fill the disk. */
async function tinyDataset(dir: string): Promise<string> {
  const path = join(dir, "one.jsonl");
  await Deno.writeTextFile(path, '{"text": "hello there"}\n');
  return path;
}

/**
 * Makes `Deno.open` hand out, for `profile_export.jsonl`, a file whose writes fail with ENOSPC
 * once `capacity` bytes are in (the write that crosses it is short); returns the undo.
 */
function injectFullDisk(capacity: number): () => void {
  const realOpen = Deno.open;
  Deno.open = async (path: string | URL, options?: Deno.OpenOptions) => {
    const file = await realOpen(path, options);
    if (!String(path).endsWith("profile_export.jsonl")) return file;
    let written = 0;
    return {
      writeSync(p: Uint8Array): number {
        const room = capacity - written;
        if (room <= 0) {
          throw Object.assign(new Error("No space left on device (os error 28)"), {
            code: "ENOSPC",
          });
        }
        const n = file.writeSync(p.subarray(0, Math.min(room, p.length)));
        written += n;
        return n;
      },
      truncateSync: (len?: number) => file.truncateSync(len),
      close: () => file.close(),
    } as unknown as Deno.FsFile;
  };
  return () => {
    Deno.open = realOpen;
  };
}

Deno.test(
  `a disk that fills during the run: one line, exit code 20, whole lines (${
    TMPFS ? "on a 64 KiB tmpfs" : "injected ENOSPC after 20,000 bytes: no tmpfs here"
  })`,
  async () => {
    console.log(
      TMPFS
        ? "full disk: a 64 KiB tmpfs"
        : "full disk: injected (mount -t tmpfs failed: not root here?)",
    );
    const server = await startMockServer({ ttftMs: 1, itlMs: 0, outputTokens: 16 });
    const dir = await Deno.makeTempDir();
    const artifacts = join(dir, "artifacts");
    await Deno.mkdir(artifacts);
    let undo = () => {};
    let mounted = false;
    try {
      if (TMPFS) {
        mounted = await mountTmpfs(artifacts, "64k");
        assert.ok(mounted, "the tmpfs mounted a moment ago does not mount now");
      } else undo = injectFullDisk(20_000);
      const requests = 400;
      const res = await runCli([
        "profile",
        "--url",
        server.url,
        "--model",
        "m",
        "--streaming",
        "--input-file",
        await tinyDataset(dir),
        "--request-count",
        String(requests),
        "--concurrency",
        "4",
        "--artifact-dir",
        artifacts,
        "--ui",
        "none",
      ]);
      undo();
      assert.equal(res.code, ExitCode.ARTIFACT_WRITE, res.stderr);
      const runDir = join(artifacts, "m-openai-chat-concurrency4");
      const records = join(runDir, "profile_export.jsonl");
      // One error line, naming the file and the cause, and no stack trace.
      const errors = res.stderr.split("\n").filter((l) => l.startsWith("error"));
      assert.equal(errors.length, 1, res.stderr);
      const m = new RegExp(
        `^error: cannot write ${records.replaceAll(".", "\\.")}: no space left on device; ` +
          `the run stopped; (?:the summary of the (\\d+) requests that finished was written|` +
          `(the summary could not be written either))$`,
      ).exec(errors[0]);
      assert.ok(m, errors[0]);
      assert.doesNotMatch(res.stderr, /^\s+at |Uncaught|Error:/m);
      // It stopped issuing: far fewer requests than asked for reached the server.
      const sent = server.stats().requests;
      assert.ok(sent > 0 && sent < requests, `${sent} requests sent`);
      // Every line of the records file parses, the last one complete.
      const text = await Deno.readTextFile(records);
      assert.ok(text.length > 0 && text.endsWith("\n"), JSON.stringify(text.slice(-80)));
      const lines = text.slice(0, -1).split("\n");
      for (const line of lines) JSON.parse(line);
      assert.ok(lines.length < sent, `${lines.length} lines of ${sent} requests`);
      const summary = join(runDir, "profile_export_aiperf.json");
      if (m[2] === undefined) {
        const doc = JSON.parse(await Deno.readTextFile(summary));
        assert.equal(doc.request_count.avg, Number(m[1]));
      } else {
        // A summary that did not fit is not left half written.
        await assert.rejects(() => Deno.stat(summary), Deno.errors.NotFound);
      }
    } finally {
      undo();
      if (mounted) await succeeds("umount", [artifacts]);
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

/** Makes `dir` refuse new entries at the OS level; false when this machine cannot. */
async function refuseWrites(dir: string): Promise<"chmod" | "chattr" | null> {
  await Deno.chmod(dir, 0o555);
  try {
    await Deno.writeTextFile(join(dir, "probe"), "x");
    // Root ignores file modes: an immutable directory refuses even root.
    await Deno.remove(join(dir, "probe"));
    await Deno.chmod(dir, 0o755);
    return await succeeds("chattr", ["+i", dir]) ? "chattr" : null;
  } catch (e) {
    if (e instanceof Deno.errors.PermissionDenied) return "chmod";
    throw e;
  }
}

Deno.test("an artifact directory that cannot be used: one line, its own code, nothing sent", async (t) => {
  const server = await startMockServer({ ttftMs: 1, itlMs: 0, outputTokens: 4 });
  const dir = await Deno.makeTempDir();
  const data = await tinyDataset(dir);
  const run = (artifactDir: string) =>
    runCli([
      "profile",
      "--url",
      server.url,
      "--model",
      "m",
      "--input-file",
      data,
      "--request-count",
      "3",
      "--artifact-dir",
      artifactDir,
      "--ui",
      "none",
    ]);
  const refused = async (artifactDir: string, code: number, line: RegExp) => {
    const res = await run(artifactDir);
    assert.equal(res.code, code, res.stderr);
    assert.match(res.stderr, /^error: [^\n]+\n$/);
    assert.match(res.stderr, line);
    assert.equal(res.stdout, "");
    assert.equal(server.stats().requests, 0);
  };
  try {
    const file = join(dir, "taken");
    await Deno.writeTextFile(file, "x");

    await t.step("a file", async () => {
      await refused(
        file,
        ExitCode.ARTIFACT_DIR_IS_FILE,
        /the artifact directory .*taken is a file, not a directory/,
      );
    });

    await t.step("a path under a file", async () => {
      await refused(
        join(file, "sub", "artifacts"),
        ExitCode.ARTIFACT_DIR_CANNOT_CREATE,
        /cannot create the artifact directory .*: .*taken is a file/,
      );
    });

    await t.step("a read-only file system", async () => {
      const ro = join(dir, "ro");
      await Deno.mkdir(ro);
      if (!await mountTmpfs(ro, "64k", true)) {
        console.log("read-only case skipped: no tmpfs mount here");
        return;
      }
      try {
        await refused(
          join(ro, "artifacts"),
          ExitCode.ARTIFACT_DIR_CANNOT_CREATE,
          /cannot create the artifact directory .*: read-only file system/,
        );
      } finally {
        await succeeds("umount", [ro]);
      }
    });

    await t.step("the operating system refuses (not Deno's sandbox: not code 5)", async () => {
      const locked = join(dir, "locked");
      await Deno.mkdir(locked);
      const how = await refuseWrites(locked);
      if (how === null) {
        console.log("OS refusal case skipped: neither file modes nor chattr +i refuse here");
        return;
      }
      console.log(`OS refusal by ${how === "chmod" ? "file modes" : "chattr +i"}`);
      try {
        await refused(
          locked,
          ExitCode.ARTIFACT_DIR_DENIED,
          /cannot create the artifact directory .*locked.*: (permission denied|operation not permitted)/,
        );
      } finally {
        if (how === "chattr") await succeeds("chattr", ["-i", locked]);
        await Deno.chmod(locked, 0o755);
      }
    });

    await t.step("missing parents are created, and the run goes on", async () => {
      const res = await run(join(dir, "new", "deeper"));
      assert.equal(res.code, ExitCode.OK, res.stderr);
      assert.equal(server.stats().requests, 3);
      const runDir = join(dir, "new", "deeper", "m-openai-chat-concurrency1");
      const names = (await Array.fromAsync(Deno.readDir(runDir))).map((e) => e.name);
      assert.ok(names.includes("profile_export.jsonl"));
      assert.ok(!names.some((n) => n.includes("probe")), names.join(", "));
    });
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
