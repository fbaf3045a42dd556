/**
 * reprise's timing error measured from outside: an independent streaming server written in C
 * (bench/fidelity/stream_server.c: one thread, epoll, none of reprise's code) logs the instant it
 * had each request and the instant before each token's write; reprise and a minimal raw client,
 * also in C (bench/fidelity/raw_client.c: the floor), run one after the other against the same
 * server, and each request's reported TTFT and chunk gaps are compared with the server's log,
 * matched by `X-Request-ID`.
 *
 *   deno task bench:fidelity [--concurrency 64,256] [--requests 1280] [--tokens 64]
 *     [--ttft-ms 50] [--gap-ms 5] [--repeat 3] [--pin] [--workers-max N] [--main PATH/main.ts]
 *     [--keep] [--plain NAME[+NAME]] [--v8-flags FLAG[,FLAG]]
 *
 * `--v8-flags` adds V8 flags to the binaries' own for reprise (both its clients), to try one.
 *
 * `--plain preconnect+warm-code` adds a third client to every run: reprise with those fast paths
 * turned off (`--plain-paths`), against the same server, to measure what they gain.
 *
 * TTFT error = reported TTFT - (first token's write - request read in full), per request: what
 * the client adds to the server's own TTFT, its sending and its reading both. Chunk-gap error =
 * each reported gap - the gap between the two writes. Both use differences of one clock only
 * (the server's for the truth, the client's for its report). Needs a C compiler (`cc`).
 */

import { parseArgs } from "node:util";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { V8_FLAGS } from "../scripts/compile.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The reprise to measure: this checkout's, or another's (`--main PATH/main.ts`, to compare). */
let MAIN = join(ROOT, "main.ts");
const SRC = join(ROOT, "bench", "fidelity");

const { values } = parseArgs({
  options: {
    concurrency: { type: "string", default: "64,256" },
    requests: { type: "string" },
    tokens: { type: "string", default: "64" },
    "ttft-ms": { type: "string", default: "50" },
    "gap-ms": { type: "string", default: "5" },
    repeat: { type: "string", default: "3" },
    pin: { type: "boolean", default: false },
    "workers-max": { type: "string" },
    main: { type: "string" },
    keep: { type: "boolean", default: false },
    plain: { type: "string" },
    "v8-flags": { type: "string" },
  },
});

function positive(name: string, text: string): number {
  const v = Number(text);
  if (!Number.isFinite(v) || v <= 0) {
    console.error(`--${name}: expected a positive number, got "${text}"`);
    Deno.exit(2);
  }
  return v;
}

if (values.main !== undefined) MAIN = values.main;
/** `--plain`: the fast paths the third client runs without. */
const PLAIN = values.plain === undefined ? [] : values.plain.split("+").filter((s) => s !== "");
const levels = values.concurrency.split(",").map((c) => Math.round(positive("concurrency", c)));
const tokens = Math.round(positive("tokens", values.tokens));
const ttftMs = positive("ttft-ms", values["ttft-ms"]);
const gapMs = positive("gap-ms", values["gap-ms"]);
const repeat = Math.round(positive("repeat", values.repeat));
/** Requests per point: 20 per stream unless given (1,280 at 64 streams). */
const requestsAt = (c: number) =>
  values.requests === undefined ? c * 20 : Math.round(positive("requests", values.requests));

/** `--pin`: the server on the last core, the clients on the others (`taskset -c`). */
const PIN: { server: string; client: string } | null = (() => {
  if (!values.pin) return null;
  const cores = navigator.hardwareConcurrency;
  if (cores < 2) throw new Error(`--pin: needs 2 cores or more; this machine has ${cores}`);
  return { server: String(cores - 1), client: cores === 2 ? "0" : `0-${cores - 2}` };
})();

const dir = await Deno.makeTempDir({ prefix: "reprise_fidelity_" });

/** Compiles the two C programs into the temporary directory. */
async function build(name: string): Promise<string> {
  const out = join(dir, name);
  let res: Deno.CommandOutput;
  try {
    res = await new Deno.Command("cc", {
      args: ["-O2", "-o", out, join(SRC, `${name}.c`)],
      stderr: "piped",
    }).output();
  } catch {
    console.error("bench:fidelity needs a C compiler: `cc` was not found");
    Deno.exit(1);
  }
  if (!res.success) {
    console.error(new TextDecoder().decode(res.stderr));
    Deno.exit(1);
  }
  return out;
}

const serverBin = await build("stream_server");
const clientBin = await build("raw_client");

/** The one request body both clients send (reprise reads it as a raw-payload dataset). */
const payload = JSON.stringify({
  model: "m",
  messages: [{ role: "user", content: "Tell me a story." }],
  max_tokens: tokens,
  stream: true,
});
const bodyFile = join(dir, "body.json");
await Deno.writeTextFile(bodyFile, payload);
const datasetFile = join(dir, "payload.jsonl");
await Deno.writeTextFile(datasetFile, payload + "\n");

const pinned = (cpus: string | undefined, args: string[]) =>
  cpus === undefined ? args : ["taskset", "-c", cpus, ...args];

interface Server {
  port: number;
  /** Stops the server; resolves with its log's path. */
  stop(): Promise<string>;
}

async function startServer(run: string): Promise<Server> {
  const log = join(dir, `${run}_server.log`);
  const args = pinned(PIN?.server, [
    serverBin,
    "--log",
    log,
    "--ttft-ms",
    String(ttftMs),
    "--gap-ms",
    String(gapMs),
    "--tokens",
    String(tokens),
  ]);
  const child = new Deno.Command(args[0], { args: args.slice(1), stdout: "piped" }).spawn();
  const reader = child.stdout.getReader();
  let text = "";
  while (!/port \d+\n/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the stream server ended before it listened");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  return {
    port: Number(/port (\d+)/.exec(text)![1]),
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      return log;
    },
  };
}

/** Runs `args` under GNU time when it is there; returns its CPU seconds (NaN without it). */
async function timed(args: string[]): Promise<{ cpu: number; stdout: string; stderr: string }> {
  const timeFile = await Deno.makeTempFile({ dir });
  const useTime = await exists("/usr/bin/time");
  const all = useTime ? ["/usr/bin/time", "-f", "%U %S", "-o", timeFile, ...args] : args;
  const out = await new Deno.Command(all[0], {
    args: all.slice(1),
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  const stderr = dec.decode(out.stderr);
  if (!out.success) throw new Error(`${args.slice(0, 4).join(" ")}… failed:\n${stderr}`);
  let cpu = NaN;
  if (useTime) {
    const [u, s] = (await Deno.readTextFile(timeFile)).trim().split(/\s+/).slice(-2).map(Number);
    cpu = u + s;
  }
  return { cpu, stdout: dec.decode(out.stdout), stderr };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** One client's view of one request: its start (for the order) and its reported times, ms. */
interface Seen {
  id: string;
  /** For ordering only, on the client's own clock. */
  start: number;
  ttftMs: number;
  gapsMs: number[];
}

async function runRaw(port: number, c: number, n: number, run: string) {
  const log = join(dir, `${run}_raw.log`);
  const { cpu } = await timed(pinned(PIN?.client, [
    clientBin,
    "--port",
    String(port),
    "--body-file",
    bodyFile,
    "--log",
    log,
    "--concurrency",
    String(c),
    "--requests",
    String(n),
  ]));
  const starts = new Map<string, number>();
  const events = new Map<string, number[]>();
  for (const line of (await Deno.readTextFile(log)).split("\n")) {
    const f = line.split(" ");
    if (f[0] === "S") starts.set(f[1], Number(f[2]));
    else if (f[0] === "E") {
      let list = events.get(f[1]);
      if (!list) events.set(f[1], list = []);
      list[Number(f[2])] = Number(f[3]);
    }
  }
  const seen: Seen[] = [];
  for (const [id, start] of starts) {
    const ev = events.get(id);
    if (!ev || ev.length === 0) continue;
    seen.push({
      id,
      start,
      ttftMs: (ev[0] - start) / 1e6,
      gapsMs: ev.slice(1).map((t, i) => (t - ev[i]) / 1e6),
    });
  }
  return { seen, cpu };
}

async function runReprise(port: number, c: number, n: number, run: string, plain: string[] = []) {
  const artifacts = join(dir, `${run}_reprise${plain.length > 0 ? "_plain" : ""}`);
  const { cpu } = await timed(pinned(PIN?.client, [
    Deno.execPath(),
    "run",
    "-A",
    `--v8-flags=${V8_FLAGS}${values["v8-flags"] === undefined ? "" : `,${values["v8-flags"]}`}`,
    MAIN,
    "profile",
    "--url",
    `http://127.0.0.1:${port}`,
    "--model",
    "m",
    "--endpoint-type",
    "chat",
    "--input-file",
    datasetFile,
    "--custom-dataset-type",
    "raw_payload",
    "--streaming",
    "--concurrency",
    String(c),
    "--request-count",
    String(n),
    "--transport",
    "http1",
    "--no-server-metrics",
    ...(values["workers-max"] === undefined ? [] : ["--workers-max", values["workers-max"]]),
    "--artifact-dir",
    artifacts,
    "--ui",
    "none",
    ...plain.flatMap((name) => ["--plain-paths", name]),
  ]));
  let records = "";
  for await (const e of Deno.readDir(artifacts)) {
    if (e.isDirectory) {
      records = await Deno.readTextFile(join(artifacts, e.name, "profile_export.jsonl"));
    }
  }
  const seen: Seen[] = [];
  for (const line of records.split("\n")) {
    if (!line) continue;
    // Epoch ns exceed a double's exact integers: read the start as text.
    const start = Number(/"request_start_ns":(\d+)/.exec(line)?.[1] ?? NaN) / 1e6;
    const r = JSON.parse(line) as {
      metadata: { x_request_id: string };
      metrics: Record<string, { value: number | number[] }>;
      error: unknown;
    };
    const ttft = r.metrics.time_to_first_token?.value;
    if (r.error || typeof ttft !== "number") continue;
    const gaps = r.metrics.inter_chunk_latency?.value;
    seen.push({
      id: r.metadata.x_request_id,
      start,
      ttftMs: ttft,
      gapsMs: Array.isArray(gaps) ? gaps : [],
    });
  }
  return { seen, cpu };
}

/** The server's log: per request, when it was read in full and each token's write (ns). */
async function serverLog(path: string) {
  const arrived = new Map<string, number>();
  const writes = new Map<string, number[]>();
  for (const line of (await Deno.readTextFile(path)).split("\n")) {
    const f = line.split(" ");
    if (f[0] === "A") arrived.set(f[1], Number(f[2]));
    else if (f[0] === "T") {
      let list = writes.get(f[1]);
      if (!list) writes.set(f[1], list = []);
      list[Number(f[2])] = Number(f[3]);
    }
  }
  return { arrived, writes };
}

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = Float64Array.from(xs).sort();
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

interface Errors {
  matched: number;
  ttft: { p50: number; p99: number; max: number };
  /** The requests after the first `concurrency` (by start): those the first wave does not hold. */
  ttftAfterFirstWave: { p50: number; p99: number };
  /** The first wave alone. */
  firstWave: { p50: number; max: number };
  gap: { p1: number; p50: number; p99: number };
  cpuS: number;
}

function errorsOf(
  seen: Seen[],
  log: Awaited<ReturnType<typeof serverLog>>,
  c: number,
  cpu: number,
) {
  const ordered = [...seen].sort((a, b) => a.start - b.start);
  const all: number[] = [];
  const later: number[] = [];
  const first: number[] = [];
  const gaps: number[] = [];
  let matched = 0;
  ordered.forEach((s, i) => {
    const a = log.arrived.get(s.id);
    const w = log.writes.get(s.id);
    if (a === undefined || !w || w.length === 0) return;
    matched++;
    const e = s.ttftMs - (w[0] - a) / 1e6;
    all.push(e);
    (i < c ? first : later).push(e);
    const k = Math.min(s.gapsMs.length, w.length - 1);
    for (let j = 0; j < k; j++) gaps.push(s.gapsMs[j] - (w[j + 1] - w[j]) / 1e6);
  });
  const out: Errors = {
    matched,
    ttft: { p50: quantile(all, 0.5), p99: quantile(all, 0.99), max: Math.max(...all) },
    ttftAfterFirstWave: { p50: quantile(later, 0.5), p99: quantile(later, 0.99) },
    firstWave: { p50: quantile(first, 0.5), max: Math.max(...first) },
    gap: { p1: quantile(gaps, 0.01), p50: quantile(gaps, 0.5), p99: quantile(gaps, 0.99) },
    cpuS: cpu,
  };
  return out;
}

const f2 = (x: number) => Number.isFinite(x) ? x.toFixed(2) : "-";
const results: Record<string, unknown>[] = [];
console.log(
  `bench:fidelity: ${tokens} tokens, TTFT ${ttftMs} ms, ${gapMs} ms gaps; ${repeat} run(s) ` +
    `per point${PIN ? `; server on CPU ${PIN.server}, clients on ${PIN.client}` : ""}`,
);
console.log(
  "errors in ms (reported - server's); 'later' leaves out the first wave (the first <streams> " +
    "requests); CPU is the client's whole run (GNU time)",
);
for (const c of levels) {
  const n = requestsAt(c);
  console.log(`\n${c} streams, ${n} requests`);
  console.log(
    "run client   TTFT p50   p99    max | later p50  p99 | 1st wave p50  max |" +
      "  gap p1   p50    p99 | CPU s",
  );
  for (let r = 0; r < repeat; r++) {
    const run = `c${c}_r${r}`;
    const server = await startServer(run);
    // The order alternates: neither client always runs on a server that has just warmed up.
    const clients = PLAIN.length > 0 ? ["raw", "reprise", "plain"] : ["raw", "reprise"];
    const order = r % 2 === 0 ? clients : [...clients].reverse();
    const got: Record<string, { seen: Seen[]; cpu: number }> = {};
    for (const client of order) {
      got[client] = client === "raw"
        ? await runRaw(server.port, c, n, run)
        : await runReprise(server.port, c, n, run, client === "plain" ? PLAIN : []);
    }
    const log = await serverLog(await server.stop());
    const row: Record<string, Errors> = {};
    for (const client of clients) {
      const e = errorsOf(got[client].seen, log, c, got[client].cpu);
      row[client] = e;
      console.log(
        `${String(r + 1).padStart(3)} ${client.padEnd(7)} ${f2(e.ttft.p50).padStart(7)} ` +
          `${f2(e.ttft.p99).padStart(6)} ${f2(e.ttft.max).padStart(6)} | ` +
          `${f2(e.ttftAfterFirstWave.p50).padStart(6)} ${
            f2(e.ttftAfterFirstWave.p99).padStart(5)
          } | ` +
          `${f2(e.firstWave.p50).padStart(11)} ${f2(e.firstWave.max).padStart(5)} | ` +
          `${f2(e.gap.p1).padStart(7)} ${f2(e.gap.p50).padStart(5)} ${
            f2(e.gap.p99).padStart(6)
          } | ` +
          `${f2(e.cpuS)}` + (e.matched < n ? `  (${e.matched}/${n} matched)` : ""),
      );
    }
    const margin = row.reprise.ttft.p99 - row.raw.ttft.p99;
    console.log(
      `    reprise p99 - raw p99: ${margin >= 0 ? "+" : ""}${f2(margin)} ms; ` +
        `reprise p50 ${f2(row.reprise.ttft.p50)} ms`,
    );
    if (row.plain !== undefined) {
      console.log(
        `    without ${PLAIN.join("+")}: p99 ${f2(row.plain.ttft.p99)} ms, first wave max ` +
          `${f2(row.plain.firstWave.max)} ms (reprise ${f2(row.reprise.firstWave.max)} ms)`,
      );
    }
    results.push({ streams: c, requests: n, run: r + 1, order, plain: PLAIN, ...row });
  }
}

const outDir = join(ROOT, "bench", "results");
await Deno.mkdir(outDir, { recursive: true });
const out = join(outDir, `fidelity-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
await Deno.writeTextFile(
  out,
  JSON.stringify({ tokens, ttftMs, gapMs, pin: PIN, results }, null, 2) + "\n",
);
console.log(`\nresults: ${out}`);
if (values.keep) console.log(`logs and records kept in ${dir}`);
else await Deno.remove(dir, { recursive: true });
