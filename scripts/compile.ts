/**
 * `deno task compile [target…]`: one standalone binary per OS with `deno compile`, into
 * `dist/reprise-<version>-<target>[.exe]`, plus `dist/SHA256SUMS` (`sha256sum -c` format).
 *
 * `deno compile` downloads the Deno runtime (`denort`) of each target. Without internet access
 * that fails: the script says so in one line and exits 1. `DENORT_BIN` names a local runtime to
 * use instead; it fits one target only, so with it the default is the host's own target.
 */

import { createHash } from "node:crypto";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { VERSION } from "../src/version.ts";

/** The repository root. */
const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Every target a release ships. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

/**
 * Files the binary needs besides main.ts's static module graph: the Worker entry (loaded by URL,
 * invisible to the graph) and the demo's sample dataset.
 */
export const INCLUDES = ["src/load/worker.ts", "examples/payloads.jsonl"];

/**
 * Permissions baked into the binary: what any command needs (server and API sockets, datasets,
 * artifacts, env settings), nothing more (no subprocesses, no system info, no FFI).
 */
export const PERMISSIONS = [
  "--allow-net",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  // The main thread lowers its own priority below the Workers' (src/util/thread_priority.ts).
  "--allow-sys=getPriority,setPriority",
];

/**
 * V8 settings baked into the binary, measured with `deno task bench:load` and the same CPU:
 * - a young generation of 4 MiB semi-spaces (V8 picks up to 16) for each of the three isolates:
 *   peak RSS at 64 streams fell from about 395 to 295 MB with 8 MiB; 4 MiB took another 20-30 MB
 *   off the 4,096-stream points (the main thread's isolate, which holds little, had filled its
 *   two 8 MiB semi-spaces as the Workers had), for about 12% more CPU per request at 512 streams
 *   of 256-token answers sent at once (more young collections), none measurable at 64 x 16,
 *   512 x 16 or 4,096 x 256;
 * - an old generation allowed to grow by half between full collections (V8 lets it grow up to
 *   4×): long streams outlive young collections, so a Worker's old generation fills with finished
 *   requests; peak RSS at 4,096 streams fell from 541–575 MB to 440 MB with growth of 100%, and
 *   from 299–311 to 287–295 MB with 50% (for 3–8% more CPU at 4,096 paced streams, none
 *   measurable at 512 streams of the zero-delay mock).
 * (Flags cannot reach a Worker's isolate from code: they are read when the process starts.)
 */
export const V8_FLAGS = "--max-semi-space-size=4,--heap-growing-percent=50";

/** The binary's file name for `target`. */
export function binaryName(version: string, target: string): string {
  return `reprise-${version}-${target}${target.includes("windows") ? ".exe" : ""}`;
}

/** The `deno compile` arguments that build `target` into `outDir`. */
export function compileArgs(target: string, version: string, outDir: string): string[] {
  return [
    "compile",
    "--quiet",
    ...PERMISSIONS,
    `--v8-flags=${V8_FLAGS}`,
    ...INCLUDES.flatMap((f) => ["--include", f]),
    "--target",
    target,
    "--output",
    join(outDir, binaryName(version, target)),
    "main.ts",
  ];
}

/** Whether `deno compile`'s error output says the runtime could not be downloaded. */
export function isDownloadFailure(stderr: string): boolean {
  return /base binary|dl\.deno\.land|denort/i.test(stderr) &&
    /error sending request|dns error|failed to lookup|connect|download/i.test(stderr);
}

/** The host's own target triple. */
export function hostTarget(): string {
  return Deno.build.target;
}

/** `sha256sum`-style lines for `files`, sorted by name. */
export async function sha256Sums(files: string[]): Promise<string> {
  const lines: string[] = [];
  for (const f of [...files].sort()) {
    const hash = createHash("sha256").update(await Deno.readFile(f)).digest("hex");
    lines.push(`${hash}  ${basename(f)}`);
  }
  return lines.map((l) => `${l}\n`).join("");
}

/** Builds `targets` into `outDir`; returns the exit code. Writes one line per problem. */
export async function compile(
  targets: string[],
  opts: { outDir?: string; denortBin?: string; log?: (t: string) => void } = {},
): Promise<number> {
  const outDir = opts.outDir ?? join(ROOT, "dist");
  const log = opts.log ?? ((t: string) => console.error(t));
  for (const t of targets) {
    if (!(TARGETS as readonly string[]).includes(t)) {
      log(`error: unknown target "${t}": expected one of ${TARGETS.join(", ")}`);
      return 2;
    }
  }
  if (opts.denortBin && targets.length > 1) {
    log(`error: DENORT_BIN is one runtime, for one target: name the target to build`);
    return 2;
  }
  await Deno.mkdir(outDir, { recursive: true });
  const built: string[] = [];
  for (const target of targets) {
    const env: Record<string, string> = opts.denortBin ? { DENORT_BIN: opts.denortBin } : {};
    const out = await new Deno.Command(Deno.execPath(), {
      args: compileArgs(target, VERSION, outDir),
      cwd: ROOT,
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    if (!out.success) {
      if (!opts.denortBin && isDownloadFailure(stderr)) {
        log(
          `error: cannot download the Deno runtime for ${target} (no internet access?); set DENORT_BIN to a local denort binary`,
        );
      } else {
        log(`error: deno compile failed for ${target}:\n${stderr.trim()}`);
      }
      return 1;
    }
    const file = join(outDir, binaryName(VERSION, target));
    built.push(file);
    log(`built ${file}`);
  }
  const sums = join(outDir, "SHA256SUMS");
  await Deno.writeTextFile(sums, await sha256Sums(built));
  log(`wrote ${sums}`);
  return 0;
}

if (import.meta.main) {
  const denortBin = Deno.env.get("DENORT_BIN") || undefined;
  const targets = Deno.args.length > 0 ? Deno.args : denortBin ? [hostTarget()] : [...TARGETS];
  Deno.exit(await compile(targets, { denortBin }));
}
