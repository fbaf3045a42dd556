/**
 * The start-of-run check of the process's open-file limit: every request in flight holds a
 * socket, so a concurrency near the soft limit makes connects fail with EMFILE ("Too many open
 * files"), which the run would otherwise only report at its end.
 */

/** File descriptors the process holds besides its connections (stdio, Workers, files, the API). */
export const FD_RESERVE = 64;

/** Reads `/proc/self/limits`; null where it does not exist or cannot be read. */
export function readProcLimits(): string | null {
  try {
    return Deno.readTextFileSync("/proc/self/limits");
  } catch {
    return null;
  }
}

/** The soft limit of open files in a `/proc/self/limits` text; null when absent or unlimited. */
export function softFdLimit(limits: string | null): number | null {
  if (limits === null) return null;
  const line = limits.split("\n").find((l) => l.startsWith("Max open files"));
  const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
  if (soft === undefined || !/^\d+$/.test(soft)) return null;
  return Number(soft);
}

/**
 * One line warning that `concurrency` connections, with the process's own files, would pass the
 * soft open-file limit (and how to fix it); null when it fits or the limit is unknown.
 */
export function fdLimitWarning(concurrency: number, limits: string | null): string | null {
  const soft = softFdLimit(limits);
  if (soft === null || concurrency + FD_RESERVE <= soft) return null;
  return `warning: --concurrency ${concurrency} needs about ${concurrency + FD_RESERVE} open ` +
    `files, above this process's soft limit of ${soft} ("Too many open files" would fail ` +
    `requests): raise it with \`ulimit -n ${concurrency + FD_RESERVE}\` or lower --concurrency`;
}
