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
  /** A permission the run needs was not granted (`deno run` without the right --allow flag). */
  PERMISSION: 5,
  /** `--failed-request-threshold` was passed: the run was aborted early. */
  FAILED_THRESHOLD: 6,
  /** Ctrl+C (or SIGTERM): artifacts hold what finished. */
  INTERRUPTED: 130,
} as const;
