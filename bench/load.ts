/**
 * The end-to-end load benchmark (`deno task bench:load`): runs reprise as a user would (the real
 * CLI, a subprocess) against the built-in mock server (its own process) over a matrix of
 * concurrency, answer length and server timing, and reports what the client costs.
 *
 * Per point: completed requests/s, SSE events/s (content events: requests × tokens), client CPU
 * per request and per 1,000 events, peak RSS, and the error of the reported TTFT and ITL (p50,
 * p99).
 *
 * CPU per request and per event is the marginal cost: each client also runs the point with a
 * quarter of the requests just before, and the difference in CPU is divided by the difference in
 * requests. What a run costs once (start-up, the optimizing compiler's work on the hot code in
 * each isolate over the first seconds, opening the connections, the report) drops out, for the
 * baseline reader as for reprise. The whole run's cost, net of the CLI's fixed cost measured once
 * with a 1-request run (which holds start-up and the report, not the compiling), is kept beside it
 * (`whole` in the JSON, "whole runs" in the lines under the rows); `--whole` skips the shorter
 * runs and reports that alone.
 *
 * The TTFT and ITL errors are measured per request against what the mock really did: it runs with
 * `--timing-log` and logs, per `X-Request-ID`, when it handed the first and last token to the
 * response body. Up to 512 streams it runs with `--http direct` (its own HTTP/1.1 server, which
 * writes each chunk to the socket as it is made, so the log holds when the bytes left); at 4,096
 * streams with `Deno.serve`, which sends a chunk only once the mock's JavaScript turn has ended,
 * after the time it logged, but writes many streams' chunks far faster (at 4,096 x 256 50/5 it
 * delivered about 530,000 token events a second against 80,000). `--mock-http direct|deno` picks
 * one for every point. Both processes read the same clock
 * (`performance.timeOrigin + performance.now()`, epoch ns), so the client's TTFT error is its reported TTFT minus (first token sent − request
 * start), and its ITL error is its reported ITL minus (last − first token sent) / (tokens − 1).
 * This is the client's own error, without the mock's lateness (its timers fire late under load);
 * the older comparison with the mock's configured delays is kept in the JSON results as
 * `ttftVsConfiguredMs` / `itlVsConfiguredMs`, next to the two parts of the difference: the time
 * from the request's start to the mock's handler (`startToReceivedMs`) and the mock's lateness
 * after it (`mockTtftLateMs`).
 *
 * `--baseline` also runs bench/baseline_reader.ts (raw sockets, no metrics) at every point and
 * prints reprise's share of its events/s per CPU second.
 *
 * Each point gets a mock server of its own (a mock that has served a long point holds more memory
 * and may answer more slowly). With `--repeat N` every client runs N times at each point, the
 * baseline and reprise alternating, so that a slow spell of the machine falls on both: the row
 * printed is each client's median run (by CPU per event) with the medians of the N runs' timing
 * errors (TTFT and ITL, p50 and p99 each), and a line under it gives the spread of the N runs and
 * the median of the N ratios of a reprise run to the baseline run beside it.
 *
 * The mock's own CPU per request during each client's run is noted too (`mockUsPerRequest`, from
 * /proc on Linux; "mock … µs/req" under the rows). On two cores the mock is the bottleneck at the
 * zero-delay points, and a client's CPU per event follows how fast it answers: a slower mock
 * answers fewer requests per wake-up of the client. At 512 x 16 0/0, eight runs of reprise with a
 * mock of their own (200,000 requests each) split into runs where the mock cost 65-69 µs a request
 * (14,700-15,200 requests a second, reprise's Worker 27-28 µs a request) and runs where it cost
 * 77-87 (12,000-13,400 a second, the Worker 31-34 µs); serving the baseline reader it cost 55-72.
 *
 * `--plain NAME[,NAME]` measures fast paths (src/util/fast_paths.ts) against their plain paths:
 * at each point, each `--repeat` round runs reprise as it is, then once per NAME with
 * `--plain-paths NAME` (`a+b` turns two off together), so that each plain run is paired with the
 * fast run just before it. Under the rows, per NAME: the median and range over the pairs of
 * fast / plain for CPU per request (marginal and whole run) and peak RSS, and both runs' TTFT
 * error p50 and p99 (medians, ranges). A ratio under 1 is the fast path's gain.
 *
 * Flags: --quick (a small subset), --transport fetch|http1|both (default both),
 * --baseline, --whole (whole-run costs only, no shorter runs), --seconds N (target length of a
 * point, default 3), --repeat N (default 1),
 * --workers-max N (default: not passed, so reprise picks its Workers as for any user),
 * --only c=64|512,tok=256 (filter; `|` separates the values kept), --mock-http auto|direct|deno
 * (the mock's HTTP server; auto, the default: direct up to 512 streams, deno above), --pin (the
 * mock on the last core, the clients on the others, with `taskset`), --mock-sched auto|normal|idle
 * (the mock's Linux scheduling policy; idle, with `chrt`: a client woken by the mock never waits
 * behind it, but a busy mock is starved; auto, the default: idle at the paced points of up to 64
 * streams, normal elsewhere), --keep-awake (a busy loop per CPU under the idle policy, with
 * `taskset` and `chrt`, so that no vCPU halts: the host wakes a halted one milliseconds late at
 * times; a mock that would run idle runs at nice 19 instead, above the loops), --proxy (reprise's
 * requests through a forwarding HTTP proxy, bench/forward_proxy.ts, named in HTTP_PROXY), --main
 * PATH/main.ts (another checkout's reprise, to compare). Needs
 * /usr/bin/time (GNU time) for CPU and peak RSS. Writes bench/results/<timestamp>.json, every run included.
 */

import { parseArgs } from "node:util";
import { join } from "node:path";
import { percentileLinear } from "../src/metrics/stats.ts";
import { forEachLine } from "../src/dataset/lines.ts";
import { V8_FLAGS } from "../scripts/compile.ts";
import { hasChrt, keepAwake, machineTicks, startMockProcess, stealShare } from "./mock_process.ts";

const ROOT = join(import.meta.dirname!, "..");
/** The reprise measured: this checkout's, or another's (`--main PATH/main.ts`, to compare). */
let MAIN = join(ROOT, "main.ts");
const BASELINE = join(ROOT, "bench", "baseline_reader.ts");

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    transport: { type: "string", default: "both" },
    plain: { type: "string" },
    baseline: { type: "boolean", default: false },
    whole: { type: "boolean", default: false },
    seconds: { type: "string", default: "3" },
    repeat: { type: "string", default: "1" },
    "workers-max": { type: "string" },
    only: { type: "string" },
    "mock-http": { type: "string", default: "auto" },
    pin: { type: "boolean", default: false },
    "mock-sched": { type: "string", default: "auto" },
    "keep-awake": { type: "boolean", default: false },
    proxy: { type: "boolean", default: false },
    main: { type: "string" },
  },
});
if (values.main !== undefined) MAIN = values.main;

/**
 * `--proxy`: reprise's runs go through a forwarding HTTP proxy of their own process
 * (bench/forward_proxy.ts, on the mock's CPU with `--pin`), named in HTTP_PROXY; the baseline
 * reader's go straight to the mock. Set once the proxy listens.
 */
let proxyEnv: Record<string, string> = {};

/**
 * `--pin`: the mock on the last core, the client on the others (`taskset -c`), so that the
 * scheduler cannot queue a woken client behind the mock on one core while another idles. Null
 * without `--pin`.
 */
const PIN: { mock: string; client: string } | null = (() => {
  if (!values.pin) return null;
  const cores = navigator.hardwareConcurrency;
  if (cores < 2) throw new Error(`--pin: needs 2 cores or more; this machine has ${cores}`);
  return { mock: String(cores - 1), client: cores === 2 ? "0" : `0-${cores - 2}` };
})();
const MOCK_HTTP = ["auto", "direct", "deno"] as const;
const mockHttp: (typeof MOCK_HTTP)[number] = MOCK_HTTP.find((k) => k === values["mock-http"]) ??
  (() => {
    throw new Error(`--mock-http: expected auto, direct or deno, got "${values["mock-http"]}"`);
  })();
const MOCK_SCHED = ["auto", "normal", "idle"] as const;
/**
 * `--mock-sched`: the mock's Linux scheduling policy. "idle" (`chrt --idle 0`): the mock runs only
 * when no other thread wants a core, so a client woken by its write never waits behind it, as
 * with a server on hardware of its own; a busy mock is starved under it. "normal": the mock and
 * the client share the cores as equals. "auto" (the default): idle at the paced points of up to
 * {@link IDLE_MOCK_MAX_STREAMS} streams, where the mock needs about half a core, normal wherever
 * it is the bottleneck; normal everywhere without `chrt`.
 */
const mockSched: (typeof MOCK_SCHED)[number] = MOCK_SCHED.find((k) => k === values["mock-sched"]) ??
  (() => {
    throw new Error(`--mock-sched: expected auto, normal or idle, got "${values["mock-sched"]}"`);
  })();
/** How the header names the mock's idle policy: nice 19 under `--keep-awake`. */
const IDLE_NAME = values["keep-awake"] ? "nice 19 (nice -n 19)" : "idle (chrt --idle 0)";
/** Paced points of up to this many streams run an idle mock under `--mock-sched auto`. */
const IDLE_MOCK_MAX_STREAMS = 64;

const CHRT = (mockSched === "auto" || values["keep-awake"]) && hasChrt();
if (values["keep-awake"] && !CHRT) {
  throw new Error("--keep-awake: needs taskset and chrt (util-linux); chrt does not run here");
}

/**
 * The mock's scheduling policy at point `p`: "lowest" (nice 19) where it would be idle under
 * `--keep-awake`, whose busy loops take the idle policy's place: a mock that is idle too would
 * share a CPU with a loop as an equal, and run late.
 */
function mockSchedAt(p: Point): "normal" | "idle" | "lowest" {
  const sched = mockSched !== "auto"
    ? mockSched
    : CHRT && p.ttftMs > 0 && p.concurrency <= IDLE_MOCK_MAX_STREAMS
    ? "idle"
    : "normal";
  return sched === "idle" && values["keep-awake"] ? "lowest" : sched;
}

/** Above this many streams, `--mock-http auto` runs the mock on `Deno.serve`. */
const DIRECT_MOCK_MAX_STREAMS = 512;

/** The mock's HTTP server at a point of `concurrency` streams. */
function mockHttpAt(concurrency: number): "deno" | "direct" {
  if (mockHttp !== "auto") return mockHttp;
  return concurrency <= DIRECT_MOCK_MAX_STREAMS ? "direct" : "deno";
}

/** One point of the matrix. */
interface Point {
  concurrency: number;
  tokens: number;
  ttftMs: number;
  itlMs: number;
}

/** What one client run cost and reported. */
interface Measured {
  client: string;
  point: Point;
  requests: number;
  errors: number;
  wallSeconds: number;
  requestsPerSecond: number;
  eventsPerSecond: number;
  cpuSeconds: number;
  /**
   * CPU per request, per 1,000 events, and events per CPU second (the per-core rate): the
   * marginal cost, from this run less the shorter run beside it (`short`), or the whole run's
   * (`whole`) when there is none.
   */
  cpuMsPerRequest: number;
  cpuMsPer1kEvents: number;
  eventsPerCpuSecond: number;
  /** The same from this run alone, net of the CLI's fixed cost (a one-request run). */
  whole: Cost;
  /** The shorter run of the same client and point whose CPU and requests were subtracted. */
  short?: { requests: number; cpuSeconds: number };
  peakRssMb: number;
  /** Reported TTFT − the mock's logged first-token send time, per request. */
  ttftVsServerMs?: Percentiles;
  /** Reported per-request ITL − the mock's logged (last − first) / (tokens − 1), per request. */
  itlVsServerMs?: Percentiles;
  /** Requests joined with the mock's timing log, and successful ones missing from it. */
  timingJoined?: number;
  timingMissing?: number;
  /** The mock's first token send time − its configured TTFT, per request: its own lateness. */
  mockTtftLateMs?: Percentiles;
  /** When the mock's handler got the request − the request's start, per request. */
  startToReceivedMs?: Percentiles;
  /** Summary TTFT and ITL percentiles − the mock's configured delays. */
  ttftVsConfiguredMs?: Percentiles;
  itlVsConfiguredMs?: Percentiles;
  /**
   * The mock's CPU during this run (the longer one) per request, in µs: what serving this client
   * cost the server. A slower mock answers fewer requests per wake-up of the client, whose CPU
   * per event then rises.
   */
  mockUsPerRequest?: number;
  /**
   * The host's steal during this run (the longer one), as a share of the machine's CPU time from
   * /proc/stat: on a virtual machine, the time its vCPUs were ready and the host ran something
   * else. A vCPU taken away for milliseconds stamps its reads that much late, whatever the client.
   */
  stealShare?: number;
  /** The mock's scheduling policy at this point (`--mock-sched`, `--keep-awake`). */
  mockSched?: "normal" | "idle" | "lowest";
  /** Which of the point's `--repeat` runs this was, from 0. */
  run?: number;
  /**
   * Against the baseline run just before it: share of its events per CPU second, CPU ratio, and
   * the CPU ratio of the whole runs.
   */
  vsBaseline?: { share: number; cpuRatio: number; wholeCpuRatio: number };
}

/** What a client's CPU comes to per request and per event. */
interface Cost {
  cpuMsPerRequest: number;
  cpuMsPer1kEvents: number;
  eventsPerCpuSecond: number;
}

/** `cpu` seconds spent on `requests` answers of `tokens` events each. */
function cost(cpu: number, requests: number, tokens: number): Cost {
  const net = Math.max(cpu, 1e-6);
  const events = Math.max(requests * tokens, 1);
  return {
    cpuMsPerRequest: (net * 1000) / Math.max(requests, 1),
    cpuMsPer1kEvents: (net * 1e6) / events,
    eventsPerCpuSecond: events / net,
  };
}

/**
 * `long` with its marginal cost: what its requests beyond `short`'s cost. Start-up, compiling the
 * hot code (each isolate compiles it again, over the first seconds), opening the connections and
 * the report at the end happen once a run, in both runs alike, and drop out.
 */
function marginal(short: Measured, long: Measured): Measured {
  const requests = long.requests - short.requests;
  if (requests <= 0) return long;
  return {
    ...long,
    ...cost(long.cpuSeconds - short.cpuSeconds, requests, long.point.tokens),
    short: { requests: short.requests, cpuSeconds: short.cpuSeconds },
  };
}

/**
 * A client's run of `requests` at a point, with its marginal cost when `short` > 0: the shorter
 * run goes first, back to back with it; only the longer one is joined with the mock's log.
 */
async function measure(
  run: (requests: number, timing: boolean) => Promise<Measured>,
  requests: number,
  short: number,
  mock: { cpuSeconds(): number | null; sched: "normal" | "idle" | "lowest" },
): Promise<Measured> {
  const before = short > 0 ? await run(short, false) : undefined;
  const mockBefore = mock.cpuSeconds();
  const ticksBefore = machineTicks();
  const m = await run(requests, true);
  const steal = stealShare(ticksBefore, machineTicks());
  const mockAfter = mock.cpuSeconds();
  if (mockBefore !== null && mockAfter !== null && m.requests > 0) {
    m.mockUsPerRequest = ((mockAfter - mockBefore) * 1e6) / m.requests;
  }
  if (steal !== null) m.stealShare = steal;
  m.mockSched = mock.sched;
  return before ? marginal(before, m) : m;
}

/**
 * Requests of the shorter run for a point of `requests`: a quarter, at least one round of the
 * slots; 0 (no shorter run) when that leaves too few to tell apart.
 */
function shortCount(p: Point, requests: number): number {
  const n = Math.max(p.concurrency, Math.round(requests / 4));
  return n <= requests / 2 ? n : 0;
}

interface Percentiles {
  p50: number;
  p99: number;
}

function matrix(): Point[] {
  const pts: Point[] = [];
  // `--only c=…` may name concurrencies of its own (256): those are the matrix's then.
  const onlyC = /(?:^|,)\s*c=([\d|]+)/.exec(values.only ?? "")?.[1];
  const concs = onlyC !== undefined
    ? onlyC.split("|").map(Number)
    : values.quick
    ? [64, 512]
    : [1, 64, 512, 4096];
  const toks = values.quick ? [256] : [16, 256];
  const timings = [[0, 0], [50, 5]];
  for (const [ttftMs, itlMs] of timings) {
    for (const tokens of toks) {
      for (const concurrency of concs) pts.push({ concurrency, tokens, ttftMs, itlMs });
    }
  }
  let out = pts;
  if (values.quick) {
    // Quick: the zero-delay points (client cost) plus c=64 at 50/5 ms (timing accuracy).
    out = pts.filter((p) => p.ttftMs === 0 || p.concurrency === 64);
  }
  if (values.only) {
    const want = new Map(
      values.only.split(",").map((kv) => {
        const [key, list = ""] = kv.split("=");
        return [key.trim(), list.split("|").map(Number)] as const;
      }),
    );
    for (const key of want.keys()) {
      if (!["c", "tok", "ttft"].includes(key)) {
        throw new Error(`--only: unknown key "${key}" (expected c, tok or ttft)`);
      }
    }
    const keeps = (key: string, v: number) => want.get(key)?.includes(v) ?? true;
    out = out.filter((p) =>
      keeps("c", p.concurrency) && keeps("tok", p.tokens) && keeps("ttft", p.ttftMs)
    );
  }
  return out;
}

/** Enough requests for about `seconds` per point, at least two rounds of the slots. */
function requestCount(p: Point, seconds: number): number {
  const perRequestMs = p.ttftMs + (p.tokens - 1) * p.itlMs;
  if (perRequestMs === 0) {
    // Zero-delay: bounded by the machine. Measured on 2 cores (2026-11-26): one stream took
    // 9,000-10,000 req/s of 16 tokens and 4,700-5,300 of 256; 64 streams and more, 13,000-27,000
    // and 6,800-10,000. The quarter-length run then lasts long enough to hold the optimizing
    // compiler's first seconds, which the marginal cost is meant to leave out.
    const rate = p.tokens >= 256
      ? (p.concurrency === 1 ? 5000 : 8000)
      : (p.concurrency === 1 ? 10000 : 20000);
    return Math.max(2 * p.concurrency, Math.round(rate * seconds));
  }
  const rounds = Math.max(2, Math.round((seconds * 1000) / perRequestMs));
  return p.concurrency * rounds;
}

/** One line of the mock's timing log (`--timing-log`). */
interface SentLine {
  request_id: string | null;
  received_ns: bigint;
  first_token_ns: bigint | null;
  last_token_ns: bigint | null;
  tokens: number;
}

/**
 * Parses a JSON line whose `*_ns` fields are epoch ns integers, exactly: they exceed the range a
 * double holds exactly, so they are read from their source digits.
 */
function parseNsLine<T>(line: string): T {
  return JSON.parse(
    line,
    (key, value, ctx?: { source?: string }) =>
      key.endsWith("_ns") && typeof value === "number" && ctx?.source !== undefined
        ? BigInt(ctx.source)
        : value,
  );
}

/** Follows a mock's timing log: reads the lines appended since the last read. */
class TimingLogTail {
  #path: string;
  #offset = 0;
  #dec = new TextDecoder();
  /** Lines read and not yet taken, by request id. */
  #lines = new Map<string, SentLine>();

  constructor(path: string) {
    this.#path = path;
  }

  async #read(): Promise<void> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.#path);
    } catch {
      return; // Not created yet.
    }
    let bytes: Uint8Array;
    try {
      await file.seek(this.#offset, Deno.SeekMode.Start);
      bytes = new Uint8Array(await new Response(file.readable).arrayBuffer());
    } catch {
      return;
    }
    // Only whole lines: the last one may still be being written.
    const end = bytes.lastIndexOf(10);
    if (end < 0) return;
    this.#offset += end + 1;
    for (const line of this.#dec.decode(bytes.subarray(0, end)).split("\n")) {
      if (line === "") continue;
      const sent = parseNsLine<SentLine>(line);
      if (sent.request_id !== null) this.#lines.set(sent.request_id, sent);
    }
  }

  /**
   * The lines of `ids`, waiting up to `timeoutMs` for the mock to flush them (it writes at least
   * every 100 ms). Forgets every other line read so far: runs are sequential, so they belong to
   * runs already measured.
   */
  async take(ids: string[], timeoutMs = 3000): Promise<Map<string, SentLine>> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      await this.#read();
      if (ids.every((id) => this.#lines.has(id)) || performance.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const out = new Map<string, SentLine>();
    for (const id of ids) {
      const sent = this.#lines.get(id);
      if (sent) out.set(id, sent);
    }
    this.#lines.clear();
    return out;
  }
}

/**
 * A mock server in its own process, logging its send times to `timingLog`; resolves with its
 * URL once it listens.
 */
async function startMock(p: Point, timingLog: string) {
  const { ttftMs, itlMs } = p;
  const sched = mockSchedAt(p);
  const mock = await startMockProcess([
    "--http",
    mockHttpAt(p.concurrency),
    "--ttft-ms",
    String(ttftMs),
    "--itl-ms",
    String(itlMs),
    "--timing-log",
    timingLog,
  ], { cpus: PIN?.mock, idle: sched === "idle", lowest: sched === "lowest" });
  return { ...mock, sched, timing: new TimingLogTail(timingLog) };
}

/**
 * Runs `args` under GNU time (on the client's CPUs with `--pin`: `taskset` executes it in the
 * process GNU time measures); returns CPU seconds, peak RSS and wall time.
 */
async function timed(args: string[], env: Record<string, string> = {}): Promise<
  { code: number; stdout: string; stderr: string; cpu: number; rssMb: number; wall: number }
> {
  const timeFile = await Deno.makeTempFile();
  const t0 = performance.now();
  const out = await new Deno.Command("/usr/bin/time", {
    args: [
      "-f",
      "%U %S %M",
      "-o",
      timeFile,
      ...(PIN ? ["taskset", "-c", PIN.client] : []),
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...env },
  }).output();
  const wall = (performance.now() - t0) / 1000;
  const [u, s, m] = (await Deno.readTextFile(timeFile)).trim().split(/\s+/).slice(-3).map(Number);
  await Deno.remove(timeFile);
  const dec = new TextDecoder();
  return {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
    cpu: u + s,
    rssMb: m / 1024,
    wall,
  };
}

async function payloadFile(dir: string, tokens: number): Promise<string> {
  const path = join(dir, `payload_${tokens}.jsonl`);
  const line = JSON.stringify({
    model: "mock",
    messages: [{ role: "user", content: "Tell me a story." }],
    max_tokens: tokens,
    stream: true,
    stream_options: { include_usage: true },
  });
  await Deno.writeTextFile(path, line + "\n");
  return path;
}

function profileArgs(
  url: string,
  input: string,
  artifacts: string,
  transport: string,
  concurrency: number,
  requests: number,
  plain: readonly string[] = [],
): string[] {
  return [
    Deno.execPath(),
    "run",
    "-A",
    // As the released binaries run (scripts/compile.ts bakes the same flags in).
    `--v8-flags=${V8_FLAGS}`,
    MAIN,
    "profile",
    "--url",
    url,
    "--model",
    "mock",
    "--endpoint-type",
    "chat",
    "--input-file",
    input,
    "--custom-dataset-type",
    "raw_payload",
    "--streaming",
    "--concurrency",
    String(concurrency),
    "--request-count",
    String(requests),
    ...(values["workers-max"] === undefined ? [] : ["--workers-max", values["workers-max"]]),
    "--transport",
    transport,
    "--artifact-dir",
    artifacts,
    "--ui",
    "none",
    ...plain.flatMap((name) => ["--plain-paths", name]),
  ];
}

/** One line of reprise's `profile_export.jsonl`, the fields compared with the mock's log. */
interface RecordLine {
  metadata: { x_request_id: string; request_start_ns: bigint };
  metrics: {
    time_to_first_token?: { value: number };
    inter_token_latency?: { value: number };
  };
  error: unknown;
}

/** The `q` quantile of `xs` (linear between closest ranks); NaN when empty. */
function percentiles(xs: number[]): Percentiles | undefined {
  if (xs.length === 0) return undefined;
  const sorted = Float64Array.from(xs).sort();
  return { p50: percentileLinear(sorted, 50), p99: percentileLinear(sorted, 99) };
}

const nsToMs = (ns: bigint) => Number(ns) / 1e6;

/**
 * Joins reprise's records with the mock's timing log on request id: per request, the error of the
 * reported TTFT and ITL against when the mock really sent the first and last token.
 */
async function versusServer(jsonlPath: string, timing: TimingLogTail, p: Point) {
  // Read as a stream of lines (a long point's file is larger than the longest string V8 makes),
  // keeping only the fields compared: a long point has hundreds of thousands of records.
  const records: { id: string; start: bigint; ttft: number; itl: number | undefined }[] = [];
  await forEachLine(jsonlPath, (line) => {
    const rec = parseNsLine<RecordLine>(line);
    const ttft = rec.metrics.time_to_first_token?.value;
    if (rec.error !== null || ttft === undefined) return;
    records.push({
      id: rec.metadata.x_request_id,
      start: rec.metadata.request_start_ns,
      ttft,
      itl: rec.metrics.inter_token_latency?.value,
    });
  });
  const sent = await timing.take(records.map((r) => r.id));
  const ttft: number[] = [];
  const itl: number[] = [];
  const late: number[] = [];
  const toReceived: number[] = [];
  for (const rec of records) {
    const s = sent.get(rec.id);
    if (!s || s.first_token_ns === null || s.last_token_ns === null) continue;
    ttft.push(rec.ttft - nsToMs(s.first_token_ns - rec.start));
    late.push(nsToMs(s.first_token_ns - s.received_ns) - p.ttftMs);
    toReceived.push(nsToMs(s.received_ns - rec.start));
    if (rec.itl !== undefined && s.tokens >= 2) {
      itl.push(rec.itl - nsToMs(s.last_token_ns - s.first_token_ns) / (s.tokens - 1));
    }
  }
  return {
    ttftVsServerMs: percentiles(ttft),
    itlVsServerMs: percentiles(itl),
    timingJoined: ttft.length,
    timingMissing: records.length - ttft.length,
    mockTtftLateMs: percentiles(late),
    startToReceivedMs: percentiles(toReceived),
  };
}

/**
 * One way of running reprise at every point: a transport, with the fast paths `plain` turned off
 * (`--plain-paths`); `label` names it in the rows.
 */
interface Variant {
  label: string;
  transport: string;
  plain: string[];
}

/** The variants to run: per transport, reprise as it is, then with each `--plain` entry off. */
function variants(transports: string[]): Variant[] {
  const plains = values.plain === undefined
    ? []
    : values.plain.split(",").map((e) => e.trim()).filter((e) => e !== "");
  return transports.flatMap((t) => [
    { label: `reprise/${t}`, transport: t, plain: [] },
    ...plains.map((e) => ({ label: `${t} -${e}`, transport: t, plain: e.split("+") })),
  ]);
}

/** The range of `xs` as `min-max`. */
const rangeOf = (xs: number[], d: number) =>
  `${fmt(Math.min(...xs), d)}-${fmt(Math.max(...xs), d)}`;

/**
 * The lines comparing the fast runs with the plain runs paired with them (`--plain`): per pair,
 * fast / plain of CPU per request (marginal, whole run) and peak RSS; the TTFT errors of each.
 */
function pairLines(fastRuns: Measured[], plainRuns: Measured[]): string {
  const n = Math.min(fastRuns.length, plainRuns.length);
  if (n === 0) return "";
  const pairs = Array.from({ length: n }, (_, i) => [fastRuns[i], plainRuns[i]] as const);
  const ratio = (f: (m: Measured) => number) => {
    const xs = pairs.map(([a, b]) => f(a) / f(b));
    return `${fmt(median(xs), 3)} (${rangeOf(xs, 3)})`;
  };
  let out = `  fast/plain over ${n} pairs: CPU/req ${ratio((m) => m.cpuMsPerRequest)}, ` +
    `whole-run CPU/req ${ratio((m) => m.whole.cpuMsPerRequest)}, ` +
    `peak RSS ${ratio((m) => m.peakRssMb)}`;
  const ttft = (ms: Measured[], k: "p50" | "p99") => {
    const xs = ms.flatMap((m) => m.ttftVsServerMs ? [m.ttftVsServerMs[k]] : []);
    return xs.length === 0 ? "-" : `${fmt(median(xs), 3)} (${rangeOf(xs, 3)})`;
  };
  const f = pairs.map(([a]) => a);
  const pl = pairs.map(([, b]) => b);
  if (f.some((m) => m.ttftVsServerMs)) {
    out += `\n  TTFT err ms, fast vs plain: p50 ${ttft(f, "p50")} vs ${ttft(pl, "p50")}; ` +
      `p99 ${ttft(f, "p99")} vs ${ttft(pl, "p99")}`;
  }
  out += `\n  peak RSS MB, fast vs plain: ${fmt(median(f.map((m) => m.peakRssMb)), 0)} ` +
    `(${rangeOf(f.map((m) => m.peakRssMb), 0)}) vs ${fmt(median(pl.map((m) => m.peakRssMb)), 0)} ` +
    `(${rangeOf(pl.map((m) => m.peakRssMb), 0)}); CPU ms/req ` +
    `${fmt(median(f.map((m) => m.cpuMsPerRequest)), 3)} vs ` +
    `${fmt(median(pl.map((m) => m.cpuMsPerRequest)), 3)}`;
  return out;
}

/** A running mock, as a reprise run needs it. */
interface MockHandle {
  url: string;
  timing: TimingLogTail;
}

/**
 * Runs reprise at one point for `requests` requests; `fixedCpu` is the start-up cost subtracted
 * for the whole-run figures. `timing` joins its records with the mock's log (TTFT and ITL error).
 */
async function runReprise(
  variant: Variant,
  p: Point,
  mock: MockHandle,
  input: string,
  dir: string,
  fixedCpu: number,
  requests: number,
  timing: boolean,
): Promise<Measured> {
  const artifacts = await Deno.makeTempDir({ dir });
  const res = await timed(
    profileArgs(
      mock.url,
      input,
      artifacts,
      variant.transport,
      p.concurrency,
      requests,
      variant.plain,
    ),
    proxyEnv,
  );
  if (res.code !== 0) {
    throw new Error(`reprise exited with ${res.code}: ${res.stderr.slice(-2000)}`);
  }
  const runDir = join(artifacts, [...Deno.readDirSync(artifacts)][0].name);
  const summary = JSON.parse(await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")));
  const truth = timing
    ? await versusServer(join(runDir, "profile_export.jsonl"), mock.timing, p)
    : {};
  await Deno.remove(artifacts, { recursive: true });
  const completed = summary.request_count?.avg ?? requests;
  const duration = summary.benchmark_duration?.avg ?? res.wall;
  const errors = Math.round((summary.request_error_rate?.avg ?? 0) * completed);
  const events = completed * p.tokens;
  const whole = cost(res.cpu - fixedCpu, completed, p.tokens);
  const err = (m: Percentiles | undefined, configured: number) =>
    m ? { p50: m.p50 - configured, p99: m.p99 - configured } : undefined;
  return {
    client: variant.label,
    point: p,
    requests: completed,
    errors,
    wallSeconds: duration,
    requestsPerSecond: completed / duration,
    eventsPerSecond: events / duration,
    cpuSeconds: res.cpu,
    ...whole,
    whole,
    peakRssMb: res.rssMb,
    ...truth,
    ttftVsConfiguredMs: err(summary.time_to_first_token, p.ttftMs),
    itlVsConfiguredMs: err(summary.inter_token_latency, p.itlMs),
  };
}

/**
 * The baseline reader's TTFT error against the mock's log: when its first token read came
 * against when the mock sent it. What is left is loopback and the mock's own write path.
 */
async function baselineVersusServer(file: string, timing: TimingLogTail) {
  const lines: { request_id: string; first_token_ns: bigint }[] = [];
  await forEachLine(file, (l) => {
    lines.push(parseNsLine(l));
  });
  const sent = await timing.take(lines.map((l) => l.request_id));
  const ttft: number[] = [];
  for (const l of lines) {
    const s = sent.get(l.request_id);
    if (s?.first_token_ns != null) ttft.push(nsToMs(l.first_token_ns - s.first_token_ns));
  }
  return {
    ttftVsServerMs: percentiles(ttft),
    timingJoined: ttft.length,
    timingMissing: lines.length - ttft.length,
  };
}

/** Runs the baseline reader at one point; the arguments are as for {@link runReprise}. */
async function runBaseline(
  p: Point,
  mock: MockHandle,
  input: string,
  fixedCpu: number,
  dir: string,
  requests: number,
  timing: boolean,
): Promise<Measured> {
  const url = mock.url;
  // Only where the server waits before the first token: elsewhere the reader's cost is the point.
  const timingsFile = timing && p.ttftMs > 0 ? join(dir, "baseline_timings.jsonl") : null;
  const res = await timed([
    Deno.execPath(),
    "run",
    "-A",
    BASELINE,
    "--url",
    `${url}/v1/chat/completions`,
    "--body-file",
    input,
    "--concurrency",
    String(p.concurrency),
    "--requests",
    String(requests),
    ...(timingsFile ? ["--timings", timingsFile] : []),
  ]);
  if (res.code !== 0) throw new Error(`baseline exited with ${res.code}: ${res.stderr}`);
  const truth = timingsFile ? await baselineVersusServer(timingsFile, mock.timing) : {};
  const out = JSON.parse(res.stdout.trim().split("\n").pop()!);
  const events = out.requests * p.tokens;
  const whole = cost(res.cpu - fixedCpu, out.requests, p.tokens);
  return {
    client: "baseline",
    point: p,
    requests: out.requests,
    errors: out.errors,
    wallSeconds: out.seconds,
    requestsPerSecond: out.requests / out.seconds,
    eventsPerSecond: events / out.seconds,
    cpuSeconds: res.cpu,
    ...whole,
    whole,
    peakRssMb: res.rssMb,
    ...truth,
  };
}

const fmt = (n: number | undefined, d = 1) =>
  n === undefined || !Number.isFinite(n) ? "-" : n.toFixed(d);

function row(m: Measured, base?: Measured): string {
  const p = m.point;
  const cols = [
    m.client.padEnd(14),
    String(p.concurrency).padStart(5),
    String(p.tokens).padStart(4),
    `${p.ttftMs}/${p.itlMs}`.padStart(6),
    String(m.requests).padStart(6),
    String(m.errors).padStart(4),
    fmt(m.requestsPerSecond, 0).padStart(7),
    fmt(m.eventsPerSecond, 0).padStart(8),
    fmt(m.eventsPerCpuSecond, 0).padStart(8),
    fmt(m.cpuMsPerRequest, 3).padStart(7),
    fmt(m.cpuMsPer1kEvents, 2).padStart(7),
    fmt(m.peakRssMb, 0).padStart(5),
    `${fmt(m.ttftVsServerMs?.p50, 2)}/${fmt(m.ttftVsServerMs?.p99, 2)}`.padStart(13),
    `${fmt(m.itlVsServerMs?.p50, 2)}/${fmt(m.itlVsServerMs?.p99, 2)}`.padStart(13),
    base && m !== base
      ? `${fmt((100 * m.eventsPerCpuSecond) / base.eventsPerCpuSecond, 0)}% ${
        fmt(m.cpuMsPer1kEvents / base.cpuMsPer1kEvents, 2)
      }x`.padStart(12)
      : "",
  ];
  return cols.join(" ");
}

const HEADER = [
  "client".padEnd(14),
  "conc".padStart(5),
  "tok".padStart(4),
  "ttft/itl".padStart(6),
  "reqs".padStart(6),
  "err".padStart(4),
  "req/s".padStart(7),
  "events/s".padStart(8),
  "ev/cpu-s".padStart(8),
  "cpu ms/req".padStart(7),
  "ms/1k ev".padStart(7),
  "RSS MB".padStart(5),
  "TTFT err p50/p99".padStart(13),
  "ITL err p50/p99".padStart(13),
  "vs baseline".padStart(12),
].join(" ");

/** A reprise run against the baseline run beside it. */
function versus(base: Measured, m: Measured): NonNullable<Measured["vsBaseline"]> {
  return {
    share: m.eventsPerCpuSecond / base.eventsPerCpuSecond,
    cpuRatio: m.cpuMsPer1kEvents / base.cpuMsPer1kEvents,
    wholeCpuRatio: m.whole.cpuMsPer1kEvents / base.whole.cpuMsPer1kEvents,
  };
}

/** The run with the median CPU per event (the lower of the two middle ones for an even count). */
function medianRun(ms: Measured[]): Measured {
  const sorted = [...ms].sort((a, b) => a.cpuMsPer1kEvents - b.cpuMsPer1kEvents);
  return sorted[(sorted.length - 1) >> 1];
}

/** Each percentile's median over the runs that have it (undefined when none has). */
function medianPercentiles(ps: (Percentiles | undefined)[]): Percentiles | undefined {
  const have = ps.filter((p): p is Percentiles => p !== undefined);
  if (have.length === 0) return undefined;
  return { p50: median(have.map((p) => p.p50)), p99: median(have.map((p) => p.p99)) };
}

/**
 * The row of a `--repeat` point: the median run by CPU per event, with the timing errors the
 * medians of the runs' (each percentile on its own): the run in the middle by CPU may be any of
 * them by its TTFT tail.
 */
function medianRow(ms: Measured[]): Measured {
  return {
    ...medianRun(ms),
    ttftVsServerMs: medianPercentiles(ms.map((m) => m.ttftVsServerMs)),
    itlVsServerMs: medianPercentiles(ms.map((m) => m.itlVsServerMs)),
  };
}

/** The median of `xs` (the mean of the two middle values for an even count). */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * The mock's CPU per request serving `m`'s client (and `base`'s) and the host's steal over `m`'s run,
 * for the line under a row.
 */
function mockNote(m: Measured, base?: Measured): string {
  const steal = m.stealShare === undefined ? "" : `; host steal ${fmt(100 * m.stealShare, 1)}%`;
  if (m.mockUsPerRequest === undefined) return steal;
  const beside = base?.mockUsPerRequest;
  return `; mock ${fmt(m.mockUsPerRequest, 0)} µs/req` +
    (beside === undefined ? "" : ` (${fmt(beside, 0)} serving the baseline)`) + steal;
}

/** The line under a `--repeat` row: the runs' spread and, for reprise, the ratios per pair. */
function spread(ms: Measured[]): string {
  const range = (xs: number[], d: number) =>
    `${fmt(Math.min(...xs), d)}-${fmt(Math.max(...xs), d)}`;
  let out = `  ${ms.length} runs: ms/1k ev ${range(ms.map((m) => m.cpuMsPer1kEvents), 2)}, ` +
    `RSS ${range(ms.map((m) => m.peakRssMb), 0)} MB`;
  const mockUs = ms.flatMap((m) => m.mockUsPerRequest === undefined ? [] : [m.mockUsPerRequest]);
  if (mockUs.length > 0) out += `, mock ${range(mockUs, 0)} µs/req`;
  const steals = ms.flatMap((m) => m.stealShare === undefined ? [] : [100 * m.stealShare]);
  if (steals.length > 0) out += `, host steal ${range(steals, 1)}%`;
  // The row's timing errors are the runs' medians; here is their range.
  const ttft = ms.flatMap((m) => m.ttftVsServerMs ? [m.ttftVsServerMs] : []);
  if (ttft.length > 0) {
    out += `, TTFT err p50 ${range(ttft.map((t) => t.p50), 2)} ms, p99 ${
      range(ttft.map((t) => t.p99), 2)
    } ms`;
  }
  const pairs = ms.flatMap((m) => m.vsBaseline ? [m.vsBaseline] : []);
  if (pairs.length > 0) {
    const shares = pairs.map((v) => 100 * v.share);
    const ratios = pairs.map((v) => v.cpuRatio);
    const wholes = pairs.map((v) => v.wholeCpuRatio);
    out += `; against the baseline run beside each: ${fmt(median(shares), 0)}% ` +
      `(${range(shares, 0)}%), ${fmt(median(ratios), 2)}x (${range(ratios, 2)}x)`;
    if (ms.some((m) => m.short)) {
      out += `; whole runs ${fmt(median(wholes), 2)}x (${range(wholes, 2)}x)`;
    }
  }
  const missing = ms.reduce((n, m) => n + (m.timingMissing ?? 0), 0);
  if (missing > 0) out += `; ${missing} requests missing from the mock's timing log`;
  return out;
}

/** Starts bench/forward_proxy.ts and points reprise's runs at it (`proxyEnv`). */
async function startProxy(): Promise<{ stop(): Promise<void> }> {
  const script = join(ROOT, "bench", "forward_proxy.ts");
  const args = [Deno.execPath(), "run", "-A", script];
  const all = PIN ? ["taskset", "-c", PIN.mock, ...args] : args;
  const child = new Deno.Command(all[0], { args: all.slice(1), stdout: "piped" }).spawn();
  const reader = child.stdout.getReader();
  let text = "";
  while (!/port \d+\n/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the forwarding proxy ended before it listened");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  const url = `http://127.0.0.1:${/port (\d+)/.exec(text)![1]}`;
  // Both spellings: the lower case wins when both are set, and an inherited one must not.
  proxyEnv = { HTTP_PROXY: url, http_proxy: url, NO_PROXY: "", no_proxy: "" };
  console.log(`reprise's requests go through a forwarding proxy at ${url} (--proxy)`);
  return {
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

async function main(): Promise<void> {
  const transports = values.transport === "both" ? ["http1", "fetch"] : [values.transport!];
  const clients = variants(transports);
  const dir = await Deno.makeTempDir({ prefix: "reprise-bench-" });
  const points = matrix();
  const results: Measured[] = [];
  const mocks = new Set<Awaited<ReturnType<typeof startMock>>>();
  const awake = values["keep-awake"] ? keepAwake(navigator.hardwareConcurrency) : null;
  const proxy = values.proxy ? await startProxy() : null;
  try {
    const inputs = new Map<number, string>();
    for (const p of points) {
      if (!inputs.has(p.tokens)) inputs.set(p.tokens, await payloadFile(dir, p.tokens));
    }
    const logOf = (key: string) => join(dir, `timing_${key.replace("/", "_")}.jsonl`);
    const first = await startMock(
      { concurrency: 1, tokens: 16, ttftMs: 0, itlMs: 0 },
      logOf("fixed"),
    );
    mocks.add(first);
    // The CLI's fixed cost (start-up, dataset, report, artifacts): one 1-request run.
    const fixed = await timed(
      profileArgs(
        first.url,
        inputs.values().next().value!,
        await Deno.makeTempDir({ dir }),
        transports[0],
        1,
        1,
      ),
      proxyEnv,
    );
    const fixedBase = values.baseline
      ? await timed([
        Deno.execPath(),
        "run",
        "-A",
        BASELINE,
        "--url",
        `${first.url}/v1/chat/completions`,
        "--body-file",
        inputs.values().next().value!,
        "--requests",
        "1",
      ])
      : null;
    console.log(
      (values.whole
        ? "CPU per request and event: each whole run's"
        : "CPU per request and event: marginal, a run less one with a quarter of its requests; " +
          "whole runs'") +
        ` net of a fixed cost of reprise ${fixed.cpu.toFixed(2)} CPU s` +
        (fixedBase ? `, baseline ${fixedBase.cpu.toFixed(2)} CPU s` : "") +
        `; workers-max ${
          values["workers-max"] ?? "default"
        }; ${navigator.hardwareConcurrency} cores${
          PIN ? ` (--pin: the mock on CPU ${PIN.mock}, the clients on ${PIN.client})` : ""
        }; the mock's scheduling policy ${
          mockSched === "auto"
            ? CHRT
              ? `${IDLE_NAME} at the paced points of up to ${IDLE_MOCK_MAX_STREAMS} streams, normal elsewhere`
              : "normal (no chrt here)"
            : mockSched === "idle"
            ? IDLE_NAME
            : "normal"
        }${
          awake
            ? `; --keep-awake: a busy loop on each of the ${awake.pids.length} CPUs (chrt --idle 0)`
            : ""
        }\n`,
    );
    await first.stop();
    mocks.delete(first);
    console.log(
      "TTFT err, ITL err: p50/p99 ms of each request's reported value minus the mock's logged " +
        `send times (--timing-log; mock server --http ${
          mockHttp === "auto"
            ? `direct up to ${DIRECT_MOCK_MAX_STREAMS} streams, deno above`
            : mockHttp
        });\nthe baseline's TTFT err ` +
        "(timed points only) is its first token read minus the same: loopback and the mock's own " +
        "write path\n",
    );
    console.log(HEADER);
    const repeat = Number(values.repeat);
    if (!Number.isInteger(repeat) || repeat < 1) {
      throw new Error(
        `--repeat: expected a whole number of runs, 1 or more; got "${values.repeat}"`,
      );
    }
    for (const p of points) {
      const key = `${p.ttftMs}/${p.itlMs}`;
      // A mock of its own per point: one that has served a long point holds more memory.
      const mock = await startMock(p, logOf(`${p.concurrency}_${p.tokens}_${key}`));
      mocks.add(mock);
      try {
        const input = inputs.get(p.tokens)!;
        const requests = requestCount(p, Number(values.seconds));
        const short = values.whole ? 0 : shortCount(p, requests);
        const bases: Measured[] = [];
        const runs = new Map<string, Measured[]>(clients.map((v) => [v.label, []]));
        for (let i = 0; i < repeat; i++) {
          let base: Measured | undefined;
          if (values.baseline) {
            base = {
              ...(await measure(
                (n, timing) => runBaseline(p, mock, input, fixedBase!.cpu, dir, n, timing),
                requests,
                short,
                mock,
              )),
              run: i,
            };
            results.push(base);
            bases.push(base);
            if (repeat === 1) console.log(row(base));
          }
          for (const v of clients) {
            try {
              const m: Measured = {
                ...(await measure(
                  (n, timing) => runReprise(v, p, mock, input, dir, fixed.cpu, n, timing),
                  requests,
                  short,
                  mock,
                )),
                run: i,
              };
              if (base) m.vsBaseline = versus(base, m);
              results.push(m);
              runs.get(v.label)!.push(m);
              if (repeat === 1) {
                console.log(row(m, base));
                if (m.short) {
                  console.log(
                    `  whole run: ${fmt(m.whole.cpuMsPer1kEvents, 2)} ms/1k ev` +
                      (m.vsBaseline ? `, ${fmt(m.vsBaseline.wholeCpuRatio, 2)}x` : "") +
                      mockNote(m, base),
                  );
                }
                if (m.timingMissing) {
                  console.log(`  ${m.timingMissing} requests missing from the mock's timing log`);
                }
              }
            } catch (e) {
              console.log(`${v.label} at ${JSON.stringify(p)} failed: ${(e as Error).message}`);
            }
          }
        }
        if (repeat > 1) {
          const base = bases.length > 0 ? medianRow(bases) : undefined;
          if (base) console.log(row(base) + "\n" + spread(bases));
          for (const v of clients) {
            const ms = runs.get(v.label)!;
            if (ms.length > 0) console.log(row(medianRow(ms), base) + "\n" + spread(ms));
          }
        }
        for (const v of clients) {
          if (v.plain.length === 0) continue;
          const lines = pairLines(runs.get(`reprise/${v.transport}`)!, runs.get(v.label)!);
          if (lines !== "") console.log(`${v.label}:\n${lines}`);
        }
      } finally {
        await mock.stop();
        mocks.delete(mock);
      }
    }
  } finally {
    for (const m of mocks) await m.stop();
    await awake?.stop();
    await proxy?.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  const outDir = join(ROOT, "bench", "results");
  await Deno.mkdir(outDir, { recursive: true });
  const file = join(outDir, `${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  await Deno.writeTextFile(
    file,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        cores: navigator.hardwareConcurrency,
        options: values,
        results,
      },
      null,
      2,
    ),
  );
  console.log(`\nresults: ${file}`);
}

await main();
