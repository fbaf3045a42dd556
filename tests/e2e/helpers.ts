/** Runs the real CLI as a subprocess, as a user would. */

import { fileURLToPath } from "node:url";

/** The repository's main.ts. */
export const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));

/** Output and exit code of one CLI run. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `deno run <permissions> <entry> ...args`, bounded by `timeoutMs`. */
export async function runCli(
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
    env: { NO_COLOR: "1", ...opts.env },
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
