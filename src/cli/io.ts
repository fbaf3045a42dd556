/** The CLI's window on the world, injectable so tests run the whole CLI in-process. */

import { signalExitCode, type StopSignal } from "./exit_codes.ts";
import { readEnv } from "../util/env.ts";
import { yieldToWorkers } from "../util/thread_priority.ts";

/** Where output goes and where settings come from. */
export interface Io {
  /** Results (tables, JSON). */
  stdout(text: string): void;
  /** Progress, logs and errors. */
  stderr(text: string): void;
  /** Reads an environment variable; undefined when unset or not permitted. */
  env(name: string): string | undefined;
  /** Whether stderr is a terminal (live progress line, colors). */
  isTerminal: boolean;
  /**
   * Aborted on the first Ctrl+C or SIGTERM, with the signal's name (`StopSignal`) as its reason
   * (an in-process caller's abort without one counts as SIGINT); the second aborts `hardSignal`.
   */
  signal?: AbortSignal;
  hardSignal?: AbortSignal;
  /**
   * While on, a signal ends the process at once with the signal's exit code: a run turns it on
   * while it loads and plans (nothing written yet, nothing to keep) and off before it creates
   * its artifact directory, from which point a signal stops the run instead. Absent in-process:
   * the run then checks `signal` between those steps.
   */
  exitOnSignal?(on: boolean): void;
  /**
   * Called once the run's Workers have started: lowers the main thread's priority below theirs
   * (util/thread_priority.ts). Absent in-process: a caller's thread keeps its priority.
   */
  yieldToWorkers?(): void;
}

/** The signal that aborted `io.signal`: SIGTERM when its reason says so, else SIGINT. */
export function stopSignal(io: Pick<Io, "signal">): StopSignal {
  return io.signal?.reason === "SIGTERM" ? "SIGTERM" : "SIGINT";
}

const encoder = new TextEncoder();

/**
 * The process's real stdout/stderr/env, with Ctrl+C and SIGTERM wired to the two signals;
 * `exit` ends the process (main.ts's `Deno.exit`), for `exitOnSignal`.
 */
export function processIo(exit?: (code: number) => void): Io {
  const soft = new AbortController();
  const hard = new AbortController();
  let exitNow = false;
  const onSignal = (name: StopSignal) => {
    if (exitNow && exit) exit(signalExitCode(name));
    else if (!soft.signal.aborted) soft.abort(name);
    else hard.abort(name);
  };
  try {
    Deno.addSignalListener("SIGINT", () => onSignal("SIGINT"));
    if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", () => onSignal("SIGTERM"));
  } catch {
    // Signals are not available everywhere; Ctrl+C then simply ends the process.
  }
  return {
    stdout: (t) => void Deno.stdout.writeSync(encoder.encode(t)),
    stderr: (t) => void Deno.stderr.writeSync(encoder.encode(t)),
    env: readEnv,
    isTerminal: Deno.stderr.isTerminal(),
    signal: soft.signal,
    hardSignal: hard.signal,
    yieldToWorkers,
    exitOnSignal(on) {
      exitNow = on;
      // A signal taken before this was turned on ends the process now.
      if (on && soft.signal.aborted && exit) {
        exit(signalExitCode(stopSignal({ signal: soft.signal })));
      }
    },
  };
}
