/**
 * The built-in mock server in its own process, as the benchmarks use it: its load and its heap
 * stay out of the client being measured.
 */

import { join } from "node:path";

const MAIN = join(import.meta.dirname!, "..", "main.ts");

/** A running mock server process. */
export interface MockProcess {
  /** Its base URL (`http://127.0.0.1:<port>`). */
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts `reprise mock-server --port 0` with `args` (its other flags); resolves with its URL once
 * it listens.
 */
export async function startMockProcess(args: string[]): Promise<MockProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "mock-server", "--port", "0", ...args],
    stdout: "null",
    // It announces its URL on stderr.
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/http:\/\/[\d.]+:\d+/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the mock server exited: ${text}`);
    text += value;
  }
  // Keep draining so the mock never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })().catch(() => {});
  return {
    url: /http:\/\/[\d.]+:\d+/.exec(text)![0],
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}
