/**
 * Writing artifact files, and what goes wrong with them. Every writer creates the directory it
 * needs; an operating system error (a full disk, an I/O error, a refusal) becomes an
 * {@link ArtifactError} naming the file and the cause in plain words, so that the command ends
 * with one line and its own exit code rather than a stack trace. A refusal by Deno's own
 * permissions (`Deno.errors.NotCapable`) is left as it is: it has its own exit code and hint.
 */

import { dirname, join } from "node:path";

/**
 * What went wrong with the artifacts: `write`, a write failed (disk full, I/O error);
 * `is_file`, the artifact directory is a file; `cannot_create`, the directory cannot be created
 * or written (under a file, a read-only file system); `denied`, the operating system refused
 * (file permissions).
 */
export type ArtifactFailure = "write" | "is_file" | "cannot_create" | "denied";

/** An artifact file or directory that cannot be written; the CLI gives each kind its exit code. */
export class ArtifactError extends Error {
  constructor(
    readonly kind: ArtifactFailure,
    /** The file or directory concerned, as the run names it. */
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ArtifactError";
  }
}

/** Plain words for the operating system's error codes an artifact write meets. */
const CAUSES: Record<string, string> = {
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EFBIG: "file too large",
  EIO: "input/output error",
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  ENOENT: "no such file or directory",
  EEXIST: "file exists",
  ENAMETOOLONG: "file name too long",
  ELOOP: "too many levels of symbolic links",
};

/** The operating system's error code of `e` (`ENOSPC`, …), or undefined. */
export function osErrorCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** The cause of an OS error in a few lowercase words, without Deno's `(os error N)` suffix. */
export function causeText(e: unknown): string {
  const code = osErrorCode(e);
  if (code !== undefined && CAUSES[code]) return CAUSES[code];
  const message = e instanceof Error ? e.message : String(e);
  const text = message.replace(/ \(os error \d+\).*$/s, "").split("\n")[0];
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** Whether `e` is the operating system refusing (file permissions), not Deno's sandbox. */
function osRefused(e: unknown): boolean {
  return e instanceof Deno.errors.PermissionDenied;
}

/**
 * `e`, a failed write of `path`, as an {@link ArtifactError} (`denied` for a refusal, else
 * `write`); Deno's permission refusal and errors that are not the file system's as they are.
 */
export function writeFailure(path: string, e: unknown): unknown {
  if (e instanceof ArtifactError || e instanceof Deno.errors.NotCapable) return e;
  if (osErrorCode(e) === undefined && !(e instanceof Deno.errors.PermissionDenied)) return e;
  return new ArtifactError(
    osRefused(e) ? "denied" : "write",
    path,
    `cannot write ${path}: ${causeText(e)}`,
    { cause: e },
  );
}

/**
 * Writes `text` to `path`, creating its directory first. A failed write removes what it left of
 * the file (a summary cut short would not parse) and throws an {@link ArtifactError}.
 */
export async function writeArtifact(path: string, text: string): Promise<void> {
  try {
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, text);
  } catch (e) {
    const failure = writeFailure(path, e);
    if (failure instanceof ArtifactError) await removeFile(path);
    throw failure;
  }
}

/**
 * Writes the concatenation of `parts` to `path` as {@link writeArtifact} does, a few megabytes at
 * a time: for files larger than one string may be (an `inputs.json` of a thousand images).
 */
export async function writeArtifactParts(path: string, parts: Iterable<string>): Promise<void> {
  const CHUNK = 4 << 20;
  try {
    await Deno.mkdir(dirname(path), { recursive: true });
    using file = await Deno.open(path, { write: true, create: true, truncate: true });
    const encoder = new TextEncoder();
    let batch: string[] = [];
    let size = 0;
    const flush = async () => {
      const bytes = encoder.encode(batch.join(""));
      for (let off = 0; off < bytes.length;) off += await file.write(bytes.subarray(off));
      batch = [];
      size = 0;
    };
    for (const part of parts) {
      batch.push(part);
      size += part.length;
      if (size >= CHUNK) await flush();
    }
    if (batch.length) await flush();
  } catch (e) {
    const failure = writeFailure(path, e);
    if (failure instanceof ArtifactError) await removeFile(path);
    throw failure;
  }
}

/** Removes `path` if it is a file (what a failed write left of it); anything else stays. */
async function removeFile(path: string): Promise<void> {
  try {
    if ((await Deno.lstat(path)).isFile) await Deno.remove(path);
  } catch {
    // Nothing there, or it cannot be removed: the error already says the file is not written.
  }
}

/** The status of `path`, or null when nothing is there. */
async function statOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return null;
    throw e;
  }
}

/** The nearest of `path` and its parents that exists and is not a directory, if any. */
async function fileInTheWay(path: string): Promise<string | null> {
  for (let p = path;; p = dirname(p)) {
    const info = await statOrNull(p).catch(() => null);
    if (info !== null && !info.isDirectory) return p;
    if (dirname(p) === p) return null;
  }
}

/** The outermost of `path` and its parents that does not exist (mkdir would create), or null. */
async function firstMissing(path: string): Promise<string | null> {
  let missing: string | null = null;
  for (let p = path;; p = dirname(p)) {
    // A path that cannot be looked at counts as there: nothing above it is removed.
    if (await statOrNull(p).catch(() => undefined) !== null) return missing;
    missing = p;
    if (dirname(p) === p) return missing;
  }
}

/**
 * Makes sure the run's artifacts can be written, before anything is sent: `runDir` (inside
 * `artifactDir`, the directory the user named) exists as a directory or can be created, and a
 * probe file can be created, written and removed in it. What the check creates it removes: a
 * run that never starts (the server never ready) leaves no directory. Throws an
 * {@link ArtifactError} whose kind says what is wrong, naming the path; Deno's permission
 * refusal is thrown as it is.
 */
export async function checkArtifactDir(artifactDir: string, runDir: string): Promise<void> {
  for (const p of [artifactDir, runDir]) {
    const info = await statOrNull(p).catch(() => null);
    if (info !== null && !info.isDirectory) {
      throw new ArtifactError(
        "is_file",
        p,
        `the artifact directory ${p} is a file, not a directory (see --artifact-dir)`,
      );
    }
  }
  const created = await firstMissing(runDir);
  try {
    await probeDir(runDir);
  } finally {
    if (created !== null) await removeCreated(runDir, created);
  }
}

/**
 * Removes the directories the check made, from `runDir` up to `created`, each only while empty:
 * another process may have put its own run beside them meanwhile (shards of one run sharing a
 * volume, each checking its folder under the same new `--artifact-dir`).
 */
async function removeCreated(runDir: string, created: string): Promise<void> {
  for (let d = runDir;; d = dirname(d)) {
    try {
      await Deno.remove(d);
    } catch {
      return;
    }
    if (d === created || dirname(d) === d) return;
  }
}

/** Creates `runDir` and a probe file in it, and removes the probe; see {@link checkArtifactDir}. */
async function probeDir(runDir: string): Promise<void> {
  try {
    await Deno.mkdir(runDir, { recursive: true });
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw e;
    if (osRefused(e)) {
      throw new ArtifactError(
        "denied",
        runDir,
        `cannot create the artifact directory ${runDir}: ${causeText(e)}`,
        { cause: e },
      );
    }
    const file = osErrorCode(e) === "ENOTDIR" ? await fileInTheWay(runDir) : null;
    throw new ArtifactError(
      "cannot_create",
      runDir,
      `cannot create the artifact directory ${runDir}: ${
        file === null ? causeText(e) : `${file} is a file`
      }`,
      { cause: e },
    );
  }
  const probe = join(runDir, `.reprise-probe-${crypto.randomUUID()}`);
  try {
    // One byte: a full disk refuses it, where an empty file may still be created.
    await Deno.writeFile(probe, new Uint8Array([10]));
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw e;
    await Deno.remove(probe).catch(() => {});
    const code = osErrorCode(e);
    const kind: ArtifactFailure = osRefused(e)
      ? "denied"
      : code === "ENOSPC" || code === "EDQUOT" || code === "EIO"
      ? "write"
      : "cannot_create";
    throw new ArtifactError(
      kind,
      runDir,
      `cannot write in the artifact directory ${runDir}: ${causeText(e)}`,
      { cause: e },
    );
  }
  // A probe left behind is harmless; the directory was shown writable.
  await Deno.remove(probe).catch(() => {});
}
