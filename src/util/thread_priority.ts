/**
 * The main thread yields the CPU to the Workers. A Worker stamps each read as it returns; the
 * main thread turns records into metrics and lines, draws the display and serves the live API,
 * none of which is timed. When the two share a CPU (a pinned process, a container's CPU limit, a
 * busy machine), a main thread busy with the first records of a run (their code still compiling)
 * held a Worker's reads for milliseconds: at 256 streams on one pinned CPU, reprise's TTFT error
 * p99 was 4.7-8.6 ms with the main thread at the Worker's priority and 2.7-5.1 ms with it lowered
 * (bench/LEDGER.md, `thread-priority`).
 *
 * Linux only (there a priority is a thread's own; elsewhere it is the whole process's), with
 * Deno's `--allow-sys=getPriority,setPriority` (the binaries have it); without either nothing changes. The
 * Workers must exist first: a thread starts at the priority of the thread that made it. A process
 * that runs benchmarks one after another (a sweep) lowers it once; the Workers of its later runs
 * start as low as the main thread then, and nothing is gained or lost for them.
 */

import { getPriority, setPriority } from "node:os";
import { fast } from "./fast_paths.ts";

/** The main thread's nice value during a run: the Workers, at 0, get the CPU first. */
export const MAIN_THREAD_NICE = 10;

/** Whether this process may set a thread's priority, asked without a prompt. */
function permitted(): boolean {
  try {
    return (["getPriority", "setPriority"] as const).every((kind) =>
      Deno.permissions.querySync({ name: "sys", kind }).state === "granted"
    );
  } catch {
    return false;
  }
}

/**
 * Lowers the calling thread's priority to {@link MAIN_THREAD_NICE} (never raises it). Returns
 * whether it did; false on a system or sandbox that does not allow it, or with
 * `--plain-paths thread-priority`.
 */
export function yieldToWorkers(): boolean {
  if (Deno.build.os !== "linux" || !fast("thread-priority") || !permitted()) return false;
  try {
    // 0: the calling thread (on Linux a priority is per thread).
    if (getPriority(0) >= MAIN_THREAD_NICE) return false;
    setPriority(0, MAIN_THREAD_NICE);
    return true;
  } catch {
    return false;
  }
}
