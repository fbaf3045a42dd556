/** `reprise mock-server`: runs the mock until SIGINT/SIGTERM or an abort signal. */

import { type MockOptions, startMockServer } from "./server.ts";

/** Where the command writes and what stops it. */
export interface MockCliIo {
  stderr: (line: string) => void;
  /** Stops the server when aborted (tests, embedding). */
  signal?: AbortSignal;
}

/** Signals that stop the server; SIGTERM cannot be listened to on Windows. */
const STOP_SIGNALS: Deno.Signal[] = Deno.build.os === "windows"
  ? ["SIGINT", "SIGBREAK"]
  : ["SIGINT", "SIGTERM"];

/**
 * Starts the mock server, prints `mock server listening on <url>`, and resolves 0 once it is
 * closed after SIGINT/SIGTERM or `io.signal` aborting. Invalid options reject.
 */
export async function runMockServer(opts: MockOptions, io: MockCliIo): Promise<number> {
  if (io.signal?.aborted) return 0;
  const server = await startMockServer(opts);
  const { promise: stopped, resolve: stop } = Promise.withResolvers<void>();
  const listeners: Deno.Signal[] = [];
  for (const sig of STOP_SIGNALS) {
    try {
      Deno.addSignalListener(sig, stop);
      listeners.push(sig);
    } catch { /* not supported here */ }
  }
  io.signal?.addEventListener("abort", () => stop(), { once: true });
  // Announce only once a stop signal is handled, so a caller may send one straight away.
  io.stderr(`mock server listening on ${server.url}`);
  try {
    await stopped;
  } finally {
    for (const sig of listeners) Deno.removeSignalListener(sig, stop);
    await server.close();
  }
  return 0;
}
