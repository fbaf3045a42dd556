/**
 * `reprise demo`: starts the built-in mock server in-process and profiles it with the sample
 * dataset shipped in examples/, so a new user sees a whole run with nothing else installed.
 */

import { fileURLToPath } from "node:url";
import { startMockServer } from "../mock/server.ts";
import type { Io } from "./io.ts";
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

/** Runs the demo; extra args are passed to `profile` (e.g. `--concurrency 4`). */
export async function demoCommand(args: string[], io: Io): Promise<number> {
  const server = await startMockServer({ ttftMs: 50, itlMs: 10, outputTokens: 64 });
  io.stderr(`mock server listening on ${server.url} (TTFT 50 ms, ITL 10 ms)\n`);
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
      ...args,
    ], io);
  } finally {
    await server.close();
  }
}
