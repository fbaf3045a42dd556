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
  /** Its process id. */
  pid: number;
  /**
   * The CPU seconds (user and system) it has used so far, from `/proc`; null where there is no
   * `/proc` to read, or without every permission (Deno reads `/proc/<pid>` files only with `-A`,
   * as the benches run).
   */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
}

/** The fields of `/proc/<pid>/stat` from field 3 (state) on; null if unreadable. */
function statFields(pid: number): string[] | null {
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
  // After the command name, which may hold spaces.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * The Linux scheduling policy of process `pid`'s main thread (`/proc/<pid>/stat` field 41: 0
 * normal, 3 batch, 5 idle); null if unreadable.
 */
export function schedulingPolicy(pid: number): number | null {
  const policy = Number(statFields(pid)?.[38]);
  return Number.isInteger(policy) ? policy : null;
}

/** The nice value of process `pid`'s main thread (`/proc/<pid>/stat` field 19); null if unreadable. */
export function niceness(pid: number): number | null {
  const nice = Number(statFields(pid)?.[16]);
  return Number.isInteger(nice) ? nice : null;
}

/** The CPUs process `pid` may run on (`Cpus_allowed_list` of `/proc/<pid>/status`); null if unreadable. */
export function allowedCpus(pid: number): string | null {
  try {
    return /^Cpus_allowed_list:\s*(\S+)/m.exec(Deno.readTextFileSync(`/proc/${pid}/status`))?.[1] ??
      null;
  } catch {
    return null;
  }
}

/** Whether `chrt` (util-linux), which `startMockProcess` runs for `idle`, runs here. */
export function hasChrt(): boolean {
  try {
    return new Deno.Command("chrt", { args: ["--help"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

/** Clock ticks per second of `/proc/<pid>/stat`'s times (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** CPU seconds used by process `pid` (`/proc/<pid>/stat` utime + stime); null if unreadable. */
export function processCpuSeconds(pid: number): number | null {
  const fields = statFields(pid);
  if (fields === null) return null;
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) / TICKS : null;
}

/** The machine's CPU time so far, in USER_HZ ticks: all of it, and what the host stole. */
export interface MachineTicks {
  total: number;
  steal: number;
}

/**
 * `/proc/stat`'s first line, summed (user, nice, system, idle, iowait, irq, softirq, steal), and
 * its steal: on a virtual machine, the time its vCPUs wanted to run and the host ran something
 * else. Null where there is no /proc/stat.
 */
export function machineTicks(): MachineTicks | null {
  let line: string;
  try {
    line = Deno.readTextFileSync("/proc/stat").split("\n", 1)[0];
  } catch {
    return null;
  }
  const f = line.trim().split(/\s+/);
  if (f[0] !== "cpu" || f.length < 9) return null;
  const n = f.slice(1, 9).map(Number);
  if (n.some((x) => !Number.isFinite(x))) return null;
  return { total: n.reduce((a, b) => a + b, 0), steal: n[7] };
}

/** The host's steal between two readings, as a share of the machine's CPU time (0-1). */
export function stealShare(before: MachineTicks | null, after: MachineTicks | null): number | null {
  if (before === null || after === null) return null;
  const total = after.total - before.total;
  return total > 0 ? (after.steal - before.steal) / total : null;
}

/**
 * Starts `reprise mock-server --port 0` with `args` (its other flags), on the CPUs `opts.cpus`
 * (a `taskset -c` list) when given, and under Linux's idle scheduling policy with `opts.idle`
 * (`chrt --idle 0`: it then runs only when no other thread of the machine wants the CPU, as a
 * server on its own hardware takes none from the client), or at the lowest priority of the
 * normal policy with `opts.lowest` (`nice -n 19`); resolves with its URL once it listens.
 */
export async function startMockProcess(
  args: string[],
  opts: { cpus?: string; idle?: boolean; lowest?: boolean } = {},
): Promise<MockProcess> {
  // `taskset`, `chrt` and `nice` execute the mock in their own process: the child's pid is the
  // mock's.
  const [program, ...rest] = [
    ...(opts.cpus === undefined ? [] : ["taskset", "-c", opts.cpus]),
    ...(opts.idle ? ["chrt", "--idle", "0"] : []),
    ...(opts.lowest ? ["nice", "-n", "19"] : []),
    Deno.execPath(),
    "run",
    "-A",
    MAIN,
    "mock-server",
    "--port",
    "0",
    ...args,
  ];
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
    pid: child.pid,
    cpuSeconds: () => processCpuSeconds(child.pid),
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** Busy loops that keep the machine's CPUs from halting (`keepAwake`). */
export interface KeepAwake {
  /** Their process ids, one per CPU, in CPU order. */
  pids: number[];
  stop(): Promise<void>;
}

/**
 * Starts one busy loop on each of CPUs 0 to `cpus` - 1 (`taskset -c`), under Linux's idle
 * scheduling policy (`chrt --idle 0`): any other thread that wants the CPU takes it from the loop
 * at once, and the CPU, never idle, never halts. On a virtual machine a halted vCPU runs again
 * only when the host schedules it, which can take milliseconds; a client woken on one then stamps
 * its reads that late (bench/notes/ttft.md, "Keeping the vCPUs awake").
 */
export function keepAwake(cpus: number): KeepAwake {
  const children = Array.from({ length: cpus }, (_, cpu) =>
    new Deno.Command("taskset", {
      args: ["-c", String(cpu), "chrt", "--idle", "0", "sh", "-c", "while :; do :; done"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn());
  return {
    pids: children.map((c) => c.pid),
    async stop() {
      for (const c of children) {
        try {
          c.kill("SIGKILL");
        } catch { /* already gone */ }
      }
      await Promise.all(children.map((c) => c.status));
    },
  };
}
