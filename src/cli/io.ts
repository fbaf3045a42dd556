/** The CLI's window on the world, injectable so tests run the whole CLI in-process. */

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
  /** Aborted on the first Ctrl+C; the second aborts `hardSignal`. */
  signal?: AbortSignal;
  hardSignal?: AbortSignal;
}

const encoder = new TextEncoder();

function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    // Without --allow-env for this name, it is simply unset.
    return undefined;
  }
}

/** The process's real stdout/stderr/env, with Ctrl+C wired to the two signals. */
export function processIo(): Io {
  const soft = new AbortController();
  const hard = new AbortController();
  const onSignal = () => {
    if (!soft.signal.aborted) soft.abort();
    else hard.abort();
  };
  try {
    Deno.addSignalListener("SIGINT", onSignal);
    if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", onSignal);
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
  };
}
