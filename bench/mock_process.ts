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
  /**
   * The CPU seconds (user and system) it has used so far, from `/proc`; null where there is no
   * `/proc` to read, or without every permission (Deno reads `/proc/<pid>` files only with `-A`,
   * as the benches run).
   */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
}

/** Clock ticks per second of `/proc/<pid>/stat`'s times (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** CPU seconds used by process `pid` (`/proc/<pid>/stat` utime + stime); null if unreadable. */
export function processCpuSeconds(pid: number): number | null {
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
  // Fields after the command name (which may hold spaces), from field 3 (state).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) / TICKS : null;
}

/**
 * Starts `reprise mock-server --port 0` with `args` (its other flags), on the CPUs `opts.cpus`
 * (a `taskset -c` list) when given; resolves with its URL once it listens.
 */
export async function startMockProcess(
  args: string[],
  opts: { cpus?: string } = {},
): Promise<MockProcess> {
  const command = [Deno.execPath(), "run", "-A", MAIN, "mock-server", "--port", "0", ...args];
  // `taskset` executes the mock in its own process: the child's pid is the mock's.
  const [program, ...rest] = opts.cpus === undefined
    ? command
    : ["taskset", "-c", opts.cpus, ...command];
  const child = new Deno.Command(program, {
    args: rest,
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
    cpuSeconds: () => processCpuSeconds(child.pid),
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}
