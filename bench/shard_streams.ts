/**
 * How many concurrent streams one shard holds: `reprise profile` (the real CLI, a subprocess,
 * with the release binary's V8 flags) keeps `C` streaming requests open at once against the
 * built-in mock (slow tokens, so every stream stays open for seconds), spread over several
 * `127.0.0.x` addresses (one mock process bound to each) so that the client is not held to one
 * destination's ephemeral ports (each process may hold as many sockets as `ulimit -n` allows: the
 * client's streams are bounded by it, here 20,000). Per point: the client's peak RSS (VmHWM) and its CPU seconds
 * (user + system, from /proc), each also per stream, and how many streams were open at once.
 *
 *   deno run -A bench/shard_streams.ts [streams,…] [addresses] [tokens] [itl ms]
 *
 * RSS is robust to other load on the machine; CPU seconds are what the client used, but on a
 * loaded machine they include the cost of being descheduled (cache misses, wake-ups).
 */

import { join } from "node:path";
import { processCpuSeconds } from "./mock_process.ts";
import { V8_FLAGS } from "../scripts/compile.ts";

const MAIN = join(import.meta.dirname!, "..", "main.ts");
const POINTS = (Deno.args[0] ?? "1000,5000,10000").split(",").map(Number);
const ADDRESSES = Number(Deno.args[1] ?? 4);
/** Tokens per answer and the time between them: by default each stream is open about 4 x 2.5 s. */
const TOKENS = Number(Deno.args[2] ?? 4);
const ITL_MS = Number(Deno.args[3] ?? 2500);

/** Sockets `pid` holds open now (its fds that are sockets); 0 once it has ended. */
function openSockets(pid: number): number {
  let n = 0;
  try {
    for (const e of Deno.readDirSync(`/proc/${pid}/fd`)) {
      try {
        if (Deno.readLinkSync(`/proc/${pid}/fd/${e.name}`).startsWith("socket:")) n++;
      } catch { /* closed meanwhile */ }
    }
  } catch { /* ended */ }
  return n;
}

/** `VmHWM` (peak RSS) of `pid` in bytes; null once it has ended. */
function peakRss(pid: number): number | null {
  try {
    const m = /^VmHWM:\s*(\d+) kB/m.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
    return m === null ? null : Number(m[1]) * 1024;
  } catch {
    return null;
  }
}

async function untilUp(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      const res = await fetch(`${url}/v1/models`);
      await res.body?.cancel();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} did not come up`);
}

const port = 20_000 + Math.floor(Math.random() * 20_000);
const mocks = Array.from({ length: ADDRESSES }, (_, k) => {
  const host = `127.0.0.${k + 1}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "mock-server",
      "--host",
      host,
      "--port",
      String(port),
      "--itl-ms",
      String(ITL_MS),
      "--output-tokens",
      String(TOKENS),
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  return { url: `http://${host}:${port}`, child };
});

const results: Record<string, unknown>[] = [];
try {
  await Promise.all(mocks.map((m) => untilUp(m.url)));
  for (const streams of POINTS) {
    const dir = await Deno.makeTempDir();
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        `--v8-flags=${V8_FLAGS}`,
        MAIN,
        "profile",
        "-m",
        "mock",
        ...mocks.flatMap((m) => ["--url", m.url]),
        "--endpoint-type",
        "chat",
        "--streaming",
        "--concurrency",
        String(streams),
        "--request-count",
        String(streams),
        "--num-conversations",
        "64",
        "--isl",
        "32",
        "--random-seed",
        "1",
        "--request-timeout-seconds",
        "120",
        "--export-level",
        "summary",
        "--no-server-metrics",
        "--ui",
        "none",
        "--artifact-dir",
        dir,
      ],
      env: { HF_HUB_OFFLINE: "1" },
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const err = new Response(child.stderr).text();
    let rss = 0;
    let cpu = 0;
    let sockets = 0;
    let polls = 0;
    const t0 = performance.now();
    const poll = setInterval(() => {
      rss = Math.max(rss, peakRss(child.pid) ?? 0);
      cpu = Math.max(cpu, processCpuSeconds(child.pid) ?? 0);
      // Counting thousands of fds costs the bench some CPU: twice a second.
      if (polls++ % 5 === 0) sockets = Math.max(sockets, openSockets(child.pid));
    }, 100);
    const status = await child.status;
    clearInterval(poll);
    const wallS = (performance.now() - t0) / 1000;
    const summary = await (async () => {
      for await (const e of Deno.readDir(dir)) {
        if (!e.isDirectory) continue;
        return JSON.parse(await Deno.readTextFile(join(dir, e.name, "profile_export_aiperf.json")));
      }
      return null;
    })();
    await Deno.remove(dir, { recursive: true });
    const row = {
      streams,
      ok: status.success,
      completed: summary?.request_count?.avg ?? null,
      errors: summary?.error_request_count?.avg ?? 0,
      peakOpenSockets: sockets,
      peakRssMB: +(rss / 2 ** 20).toFixed(1),
      rssPerStreamKB: +(rss / 1024 / streams).toFixed(1),
      cpuSeconds: +cpu.toFixed(2),
      cpuMsPerStream: +((cpu * 1000) / streams).toFixed(3),
      wallSeconds: +wallS.toFixed(1),
    };
    results.push(row);
    console.log(JSON.stringify(row));
    if (!status.success) console.error((await err).slice(-2000));
  }
} finally {
  for (const m of mocks) {
    try {
      m.child.kill("SIGTERM");
    } catch { /* ended */ }
    await m.child.status;
  }
}
console.log(
  JSON.stringify({ addresses: ADDRESSES, tokens: TOKENS, itlMs: ITL_MS, results }, null, 2),
);
