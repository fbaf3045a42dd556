/**
 * Runs the CLI for end-to-end tests: in-process through `main(args, io)` by default, as a
 * subprocess only where a process boundary is what the test is about (signals, permissions, the
 * bundle, the process environment).
 */

import { fileURLToPath } from "node:url";
import { main } from "../../src/cli/main.ts";
import type { Io } from "../../src/cli/io.ts";

/** The repository's main.ts. */
/**
 * The environment of a child reprise process: no colour, and offline for the Hugging Face hub,
 * so that no test reaches the internet for a tokenizer (a child has every permission).
 */
export const CHILD_ENV: Record<string, string> = { NO_COLOR: "1", HF_HUB_OFFLINE: "1" };

export const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));

/** Output and exit code of one CLI run. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A CLI run in progress: its output so far, a way to stop it, and its end. */
export interface CliRun {
  stdout(): string;
  stderr(): string;
  /** Ctrl+C: once drains, twice cancels (the Io signals a terminal would fire). */
  interrupt(): void;
  done(): Promise<CliResult>;
}

/**
 * The environment an in-process run sees: `env`, NO_COLOR, and the caller's REPRISE_* settings
 * (so that a whole-suite run under REPRISE_PLAIN_PATHS reaches the CLI); nothing else of the
 * machine's environment, so a run does not depend on who starts the tests.
 */
function testEnv(env: Record<string, string>): (name: string) => string | undefined {
  return (name) => {
    if (name in env) return env[name];
    if (name === "NO_COLOR") return "1";
    if (!name.startsWith("REPRISE_")) return undefined;
    try {
      return Deno.env.get(name);
    } catch {
      return undefined;
    }
  };
}

/**
 * Starts `reprise ...args` in this process. A run still going after `timeoutMs` (a hang, far
 * past any test's expected time) is interrupted twice and its result rejects.
 */
export function startCli(
  args: string[],
  opts: { env?: Record<string, string>; timeoutMs?: number } = {},
): CliRun {
  let stdout = "";
  let stderr = "";
  const soft = new AbortController();
  const hard = new AbortController();
  const interrupt = () => soft.signal.aborted ? hard.abort() : soft.abort();
  const io: Io = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: testEnv(opts.env ?? {}),
    isTerminal: false,
    signal: soft.signal,
    hardSignal: hard.signal,
  };
  const limit = opts.timeoutMs ?? 120_000;
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    soft.abort();
    hard.abort();
  }, limit);
  const result = main(args, io).then((code) => {
    if (hung) throw new Error(`reprise ${args.join(" ")} still ran after ${limit} ms`);
    return { code, stdout, stderr };
  }).finally(() => clearTimeout(timer));
  return { stdout: () => stdout, stderr: () => stderr, interrupt, done: () => result };
}

/** Runs `reprise ...args` in this process to its end. */
export function runCli(
  args: string[],
  opts: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CliResult> {
  return startCli(args, opts).done();
}

/** Runs `deno run <permissions> <entry> ...args` as a subprocess, bounded by `timeoutMs`. */
export async function spawnCli(
  args: string[],
  opts: {
    permissions?: string[];
    entry?: string;
    timeoutMs?: number;
    env?: Record<string, string>;
  } = {},
): Promise<CliResult> {
  const permissions = opts.permissions ?? ["--allow-all"];
  const cmd = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...permissions, opts.entry ?? MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    env: { ...CHILD_ENV, ...opts.env },
    signal: AbortSignal.timeout(opts.timeoutMs ?? 120_000),
  });
  const out = await cmd.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Reads `profile_export.jsonl` into objects. */
export async function readRecords(path: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(path);
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}
