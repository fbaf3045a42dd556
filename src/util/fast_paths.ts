/**
 * The one switch over reprise's optimizations. Each fast path is named here; `--plain-paths`
 * (or `REPRISE_PLAIN_PATHS`) names those to turn off, and `all` turns every one off, so that a
 * run takes the plain path that the fast one must agree with. The run plan sets this once, on the
 * main thread and in every Worker, before anything is measured. bench/LEDGER.md gives each its
 * measured gain and the test that compares both paths.
 */

/** The fast paths that can be turned off, by name. */
export const FAST_PATHS = [
  /** Runs of a stream's commonest events read from its bytes in WebAssembly (answer/sse_scan.ts). */
  "wasm-scan",
  /** Events an earlier answer sent, recognized by their bytes (answer/known_events.ts). */
  "known-events",
  /** An endpoint's text chunks read by their template, not parsed (EndpointFastPath). */
  "text-template",
  /** profile_export.jsonl lines written byte by byte, not JSON.stringify'd (export/record_writer.ts). */
  "record-writer",
  /** Whole-number metric columns kept in 1, 2 or 4 bytes a value, not 8 (metrics/column.ts). */
  "narrow-columns",
  /** Tokens counted by reprise's own o200k_base counter, not gpt-tokenizer's (tokenizer/). */
  "o200k",
  /** The slots' connections opened before a phase's clock starts (load/preconnect.ts). */
  "preconnect",
  /** The request loop's code run on canned answers before a phase's clock starts (load/warm.ts). */
  "warm-code",
  /** A phase's first wave of requests started in groups, a turn of the event loop apart (load/wave.ts). */
  "wave-groups",
  /** The main thread's priority lowered below the Workers' during a run (util/thread_priority.ts). */
  "thread-priority",
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
