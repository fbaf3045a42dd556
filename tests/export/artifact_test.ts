/** The artifact directory check, and artifact write failures named in plain words. */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  ArtifactError,
  causeText,
  checkArtifactDir,
  writeArtifact,
  writeFailure,
} from "../../src/export/artifact.ts";

/** An OS error as Deno throws it: a message with `(os error N)`, and the errno name as `code`. */
function osError(
  code: string,
  message: string,
  cls: new (m: string) => Error = Error,
): Error {
  return Object.assign(new cls(`${message} (os error 28): write 'x'`), { code });
}

Deno.test("causeText: the cause in a few words, without Deno's os error suffix", () => {
  assert.equal(causeText(osError("ENOSPC", "No space left on device")), "no space left on device");
  assert.equal(causeText(osError("EIO", "Input/output error")), "input/output error");
  assert.equal(causeText(osError("EROFS", "Read-only file system")), "read-only file system");
  assert.equal(causeText(osError("EWHAT", "Something Odd")), "something Odd");
  assert.equal(causeText(new Error("Plain failure")), "plain failure");
});

Deno.test("writeFailure: OS errors become ArtifactErrors; Deno's refusal and bugs stay as they are", () => {
  const full = writeFailure("a/b.json", osError("ENOSPC", "No space left on device"));
  assert.ok(full instanceof ArtifactError);
  assert.equal(full.kind, "write");
  assert.equal(full.message, "cannot write a/b.json: no space left on device");
  const refused = writeFailure(
    "a/b.json",
    osError("EACCES", "Permission denied", Deno.errors.PermissionDenied),
  );
  assert.ok(refused instanceof ArtifactError);
  assert.equal(refused.kind, "denied");
  const sandbox = new Deno.errors.NotCapable('Requires write access to "a"');
  assert.equal(writeFailure("a/b.json", sandbox), sandbox);
  const bug = new TypeError("x is undefined");
  assert.equal(writeFailure("a/b.json", bug), bug);
});

Deno.test("checkArtifactDir: missing parents are fine, and the check leaves nothing behind", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const runDir = join(dir, "a", "b", "run");
    await checkArtifactDir(join(dir, "a"), runDir);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dir)), []);
    // An existing directory is fine too, and keeps what it holds, without a probe.
    await Deno.mkdir(runDir, { recursive: true });
    await Deno.writeTextFile(join(runDir, "old.txt"), "x");
    await checkArtifactDir(join(dir, "a"), runDir);
    const names = (await Array.fromAsync(Deno.readDir(runDir))).map((e) => e.name);
    assert.deepEqual(names, ["old.txt"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("checkArtifactDir: another process's run in a folder the check made is left alone", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Shards sharing a volume: each checks its run folder under the same new artifact folder,
    // and the other shard's run appears while this check runs (once the check has made its
    // folder; tried again when the check was over before that could be seen).
    const artifacts = join(dir, "bench");
    const mine = join(artifacts, "run-shard0-of-2");
    const theirs = join(artifacts, "run-shard1-of-2");
    let raced = false;
    for (let attempt = 0; attempt < 50 && !raced; attempt++) {
      let done = false;
      const check = checkArtifactDir(artifacts, mine).finally(() => done = true);
      while (!done) {
        if (await Deno.stat(mine).then(() => true, () => false)) {
          await Deno.mkdir(theirs, { recursive: true });
          await Deno.writeTextFile(join(theirs, "profile_export.jsonl"), "{}\n");
          raced = true;
          break;
        }
      }
      await check;
    }
    assert.ok(raced, "the check never ran while the other run appeared");
    assert.equal(await Deno.readTextFile(join(theirs, "profile_export.jsonl")), "{}\n");
    assert.deepEqual((await Array.fromAsync(Deno.readDir(artifacts))).map((e) => e.name), [
      "run-shard1-of-2",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("checkArtifactDir: a file, or a path under a file, each with its own kind", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "taken");
    await Deno.writeTextFile(file, "x");
    await assert.rejects(
      () => checkArtifactDir(file, join(file, "run")),
      (e) =>
        e instanceof ArtifactError && e.kind === "is_file" && e.path === file &&
        e.message ===
          `the artifact directory ${file} is a file, not a directory (see --artifact-dir)`,
    );
    // The run's directory inside the artifact directory is a file.
    await assert.rejects(
      () => checkArtifactDir(dir, file),
      (e) => e instanceof ArtifactError && e.kind === "is_file" && e.path === file,
    );
    const under = join(file, "sub", "artifacts");
    await assert.rejects(
      () => checkArtifactDir(under, join(under, "run")),
      (e) =>
        e instanceof ArtifactError && e.kind === "cannot_create" &&
        e.message.endsWith(`: ${file} is a file`),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeArtifact: a failed write names the file and cause, and removes no directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // A directory where the file should be: the write fails, as a full disk's would.
    const path = join(dir, "summary.json");
    await Deno.mkdir(path);
    await assert.rejects(
      () => writeArtifact(path, "{}"),
      (e) =>
        e instanceof ArtifactError && e.kind === "write" &&
        e.message === `cannot write ${path}: is a directory`,
    );
    assert.ok((await Deno.stat(path)).isDirectory);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
