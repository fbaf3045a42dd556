/**
 * Every exit code of the CLI and what decides it, in one place; the README's "Exit codes" table
 * lists the same codes, and scripts rely on them.
 */

import { ConfigError } from "../config/parse.ts";
import { DatasetError } from "../dataset/types.ts";
import { ArtifactError, type ArtifactFailure } from "../export/artifact.ts";

/** Exit codes, documented in the README; scripts rely on them. */
export const ExitCode = {
  OK: 0,
  /** The run finished but requests failed (every request, or past the failure threshold). */
  RUN_FAILED: 1,
  /** A flag or env var is invalid. */
  BAD_CONFIG: 2,
  /** The dataset cannot be read. */
  BAD_DATASET: 3,
  /** The server could not be reached at all. */
  UNREACHABLE: 4,
  /**
   * A permission the run needs was not granted (`deno run` without the right --allow flag):
   * Deno's sandbox refused, not the operating system.
   */
  PERMISSION: 5,
  /** `--failed-request-threshold` was passed: the run was aborted early. */
  FAILED_THRESHOLD: 6,
  /** An artifact could not be written (disk full, I/O error): the run stopped issuing. */
  ARTIFACT_WRITE: 20,
  /** The artifact directory is a file. */
  ARTIFACT_DIR_IS_FILE: 21,
  /** The artifact directory cannot be created or written (under a file, read-only). */
  ARTIFACT_DIR_CANNOT_CREATE: 22,
  /** The operating system refused to create or write the artifacts (file permissions). */
  ARTIFACT_DIR_DENIED: 23,
  /** Ctrl+C (SIGINT, 128 + 2): artifacts hold what finished. */
  INTERRUPTED: 130,
  /** SIGTERM (128 + 15, the shells' convention for a process ended by it): as INTERRUPTED. */
  TERMINATED: 143,
} as const;

/** The signals that stop a run: the first drains it, the second cancels what is in flight. */
export type StopSignal = "SIGINT" | "SIGTERM";

/**
 * The code of a run or command stopped by `signal`: 128 + the signal's number, as a shell
 * reports a process that the signal ended; SIGINT when the signal is not known.
 */
export function signalExitCode(signal?: StopSignal): number {
  return signal === "SIGTERM" ? ExitCode.TERMINATED : ExitCode.INTERRUPTED;
}

/** The exit code of each kind of artifact failure. */
const ARTIFACT_CODES: Record<ArtifactFailure, number> = {
  write: ExitCode.ARTIFACT_WRITE,
  is_file: ExitCode.ARTIFACT_DIR_IS_FILE,
  cannot_create: ExitCode.ARTIFACT_DIR_CANNOT_CREATE,
  denied: ExitCode.ARTIFACT_DIR_DENIED,
};

/**
 * The code for an error that ends a command before or outside a run: a config, dataset,
 * artifact or permission error is the user's to fix, told in one line; null for anything else
 * (a bug).
 */
export function errorExitCode(e: unknown): number | null {
  if (e instanceof ConfigError) return ExitCode.BAD_CONFIG;
  if (e instanceof DatasetError) return ExitCode.BAD_DATASET;
  if (e instanceof ArtifactError) return ARTIFACT_CODES[e.kind];
  if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
    return ExitCode.PERMISSION;
  }
  return null;
}

/** How a run ended, as far as its exit code goes. */
export interface RunEnd {
  /** The run itself failed (a Worker died); its message, secrets already removed. */
  failure: string | null;
  /** An artifact could not be written: the line that says which and why; absent: none. */
  artifactFailure?: string | null;
  interrupted: boolean;
  /** The signal that interrupted the run (SIGINT when not said): it picks the code. */
  signal?: StopSignal;
  /** `--failed-request-threshold` tripped. */
  thresholdTripped: boolean;
  /** Requests answered or failed, and how many of those failed, by error type. */
  completed: number;
  errors: number;
  errorTypes: ReadonlySet<string>;
}

/**
 * The error type of a request that could not connect (answer/failure.ts `ErrorType.CONNECT`):
 * a run whose every failure is of this type never made a connection.
 */
export const CANNOT_CONNECT = "ConnectionError";

/** The error type of a request the client itself had no resources for (`ErrorType.EXHAUSTED`). */
export const CLIENT_EXHAUSTED = "ClientResourceExhausted";

/**
 * The exit code of a finished run, the error line that explains it (null for none) and a warning
 * line (null for none), in this order: the run failed, an artifact could not be written, it was
 * interrupted, the failure threshold
 * tripped, every request failed (unreachable only when no request could connect: every failure
 * is `ConnectionError`). Requests the client had no resources for (EMFILE and the like) are the
 * client's fault: the warning says so and how to fix it, whatever the code (docs/errors.md).
 */
export function runExitCode(
  end: RunEnd,
  names: { failedRequestThreshold?: number; baseUrl: string },
): { code: number; error: string | null; warning: string | null } {
  const warning = end.errorTypes.has(CLIENT_EXHAUSTED)
    ? "warning: some requests failed because this client ran out of file descriptors or local " +
      "ports (ClientResourceExhausted in error_summary), not because of the server: raise the " +
      "limit (`ulimit -n`) or lower --concurrency"
    : null;
  return { ...exitOf(end, names), warning };
}

/** The code and error line of `runExitCode`. */
function exitOf(
  end: RunEnd,
  names: { failedRequestThreshold?: number; baseUrl: string },
): { code: number; error: string | null } {
  if (end.failure !== null) return { code: ExitCode.RUN_FAILED, error: end.failure };
  if (end.artifactFailure) return { code: ExitCode.ARTIFACT_WRITE, error: end.artifactFailure };
  if (end.interrupted) return { code: signalExitCode(end.signal), error: null };
  if (end.thresholdTripped) {
    return {
      code: ExitCode.FAILED_THRESHOLD,
      error: `aborted: the failed-request ratio passed --failed-request-threshold ` +
        `${names.failedRequestThreshold}; see error_summary in profile_export_aiperf.json`,
    };
  }
  if (end.completed > 0 && end.errors === end.completed) {
    const unreachable = end.errorTypes.size === 1 && end.errorTypes.has(CANNOT_CONNECT);
    return {
      code: unreachable ? ExitCode.UNREACHABLE : ExitCode.RUN_FAILED,
      error: `every request failed${
        unreachable ? ` (cannot connect to ${names.baseUrl})` : ""
      }; see error_summary in profile_export_aiperf.json`,
    };
  }
  return { code: ExitCode.OK, error: null };
}
