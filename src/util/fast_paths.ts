/**
 * The one switch over reprise's optimizations. Each fast path is named here; `--plain-paths`
 * (or `REPRISE_PLAIN_PATHS`) names those to turn off, and `all` turns every one off, so that a
 * run takes the plain path that the fast one must agree with. The run plan sets this once, on the
 * main thread and in every Worker, before anything is measured. bench/LEDGER.md gives each its
 * measured gain and the test that compares both paths.
 */

/** The fast paths that can be turned off, by name. */
export const FAST_PATHS = [
  "record-writer",
  "narrow-columns",
  "o200k",
] as const;

/** A fast path's name. */
export type FastPath = (typeof FAST_PATHS)[number];

let plain: ReadonlySet<string> = new Set();

/** Turns off the named fast paths (`all`: every one), and turns the others on. */
export function setPlainPaths(names: readonly string[]): void {
  plain = new Set(names.includes("all") ? FAST_PATHS : names);
}

/** The fast paths turned off, for the run plan and the Workers' start message. */
export function plainPaths(): string[] {
  return [...plain];
}

/** True unless `name` was turned off. */
export function fast(name: FastPath): boolean {
  return !plain.has(name);
}
