/**
 * `reprise demo`: starts the built-in mock server in-process and profiles it with the sample
 * dataset shipped in examples/, so a new user sees a whole run with nothing else installed.
 */

import { fileURLToPath } from "node:url";
import { startMockServer } from "../mock/server.ts";
import type { Io } from "./io.ts";
import { ExitCode } from "./exit_codes.ts";
import { profileCommand } from "./profile.ts";

/**
 * The sample dataset: beside the sources (`deno run`, compiled binary) or beside the bundle
 * (`dist/reprise.js` next to `examples/`).
 */
async function sampleDataset(): Promise<string> {
  const candidates = ["../../examples/payloads.jsonl", "../examples/payloads.jsonl"].map((p) =>
    fileURLToPath(new URL(p, import.meta.url))
  );
  for (const path of candidates) {
    try {
      if ((await Deno.stat(path)).isFile) return path;
    } catch { /* try the next place */ }
  }
  return candidates[0];
}

/** The `demo` help text: what it starts, what it runs, and that `profile`'s options apply. */
export function demoHelp(): string {
  return [
    "Usage: reprise demo [profile options]",
    "",
    "Start the built-in mock server in-process (TTFT 50 ms, ITL 10 ms, 64 tokens per answer) and",
    "profile it with the sample dataset examples/payloads.jsonl (raw payloads, streaming,",
    "concurrency 2, model Qwen/Qwen3-0.6B). Nothing else needs to be installed or running.",
    "",
    "Any option of `reprise profile` can follow and overrides the demo's choice, e.g.",
    "`reprise demo --concurrency 8 --request-count 200`; see `reprise profile --help`.",
    "Artifacts go to ./artifacts as for `profile`; the mock server stops when the run ends.",
    "",
  ].join("\n");
}

/** Runs the demo; extra args are passed to `profile` (e.g. `--concurrency 4`). */
export async function demoCommand(args: string[], io: Io): Promise<number> {
  // Help starts nothing.
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(demoHelp());
    return ExitCode.OK;
  }
  const server = await startMockServer({ ttftMs: 50, itlMs: 10, outputTokens: 64 });
  if (!args.includes("--quiet") && !args.includes("-q")) {
    io.stderr(`mock server listening on ${server.url} (TTFT 50 ms, ITL 10 ms)\n`);
  }
  try {
    const dataset = await sampleDataset();
    return await profileCommand([
      "--url",
      server.url,
      "--model",
      "Qwen/Qwen3-0.6B",
      "--input-file",
      dataset,
      "--custom-dataset-type",
      "raw_payload",
      "--streaming",
      "--concurrency",
      "2",
      // The mock's tokens are o200k_base words: the built-in tokenizer counts them exactly, with
      // no download and no fallback warning.
      ...(args.some((a) => a === "--tokenizer" || a.startsWith("--tokenizer=")) ? [] : [
        "--tokenizer",
        "builtin",
      ]),
      ...args,
    ], io);
  } finally {
    await server.close();
  }
}
