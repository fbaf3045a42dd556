/**
 * The Kubernetes manifests, run without a cluster: the Indexed Job's container command runs N
 * times as local processes with the environment Kubernetes gives each pod (JOB_COMPLETION_INDEX,
 * the ConfigMap's start-at), the headless Service's names mapped to 127.0.0.1 ports and the
 * ConfigMap's files to a folder; the merge Job's command then joins them. The merged run must be
 * the unsharded run of the same plan: the same requests, each session's turns in order, the same
 * send schedule, and a summary that is what every record gives.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "yaml";
import { main } from "../../src/cli/main.ts";
import type { Io } from "../../src/cli/io.ts";
import { startMockServer } from "../../src/mock/server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const K8S = join(ROOT, "deploy/kubernetes");
/** The Service name the config's endpoint points at, and the shards' headless Service. */
const SERVER_HOST = "llm-server:8000";
const SHARD_HOST = /reprise-(\d+)\.reprise-shards:9090/g;

// deno-lint-ignore no-explicit-any
type Doc = Record<string, any>;

async function manifest(file: string): Promise<Doc> {
  return parse(await Deno.readTextFile(join(K8S, file))) as Doc;
}

/** The first container of a Job's pod template. */
function container(job: Doc): Doc {
  return job.spec.template.spec.containers[0];
}

/** `n` free 127.0.0.1 ports, all different (held together until each is known). */
function freePorts(n: number): number[] {
  const ls = Array.from({ length: n }, () => Deno.listen({ hostname: "127.0.0.1", port: 0 }));
  const ports = ls.map((l) => (l.addr as Deno.NetAddr).port);
  for (const l of ls) l.close();
  return ports;
}

/** What the pods of one local "cluster" share: ports per pod, folders, the shard count. */
interface Cluster {
  n: number;
  ports: number[];
  configDir: string;
  dirs: string[];
  mergedDir: string;
}

/** One manifest argument as it is on this machine (paths, Service names, ports, the count). */
function localize(args: string[], c: Cluster, pod: number): string[] {
  return args.map((a, i) => {
    const prev = args[i - 1];
    if (prev === "--api-port") return String(c.ports[pod]);
    if (prev === "--shards") return String(c.n);
    // Only a hang guard: the shards end in seconds.
    if (prev === "--wait-seconds") return "60";
    if (a === "0.0.0.0") return "127.0.0.1";
    if (a === "/artifacts") return c.dirs[pod];
    if (a === "/merged") return c.mergedDir;
    return a.replaceAll("/etc/reprise/", `${c.configDir}/`)
      .replace(SHARD_HOST, (_m, k) => `127.0.0.1:${c.ports[Number(k)]}`);
  });
}

/** The pod's environment: its own entries (ConfigMap keys resolved) and the Job index. */
function podEnv(ctr: Doc, data: Record<string, string>, index: number): Record<string, string> {
  const env: Record<string, string> = { JOB_COMPLETION_INDEX: String(index) };
  for (const e of ctr.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    const ref = e.valueFrom?.configMapKeyRef;
    if (ref && data[ref.key] !== undefined) env[e.name] = data[ref.key];
  }
  return env;
}

interface Line {
  meta: Record<string, unknown>;
  metrics: Record<string, { value: number }>;
  error: unknown;
  startNs: bigint;
  endNs: bigint;
  intendedNs: bigint | null;
}

function readLines(text: string): Line[] {
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => {
    const doc = JSON.parse(l);
    const ns = (k: string) => {
      const m = new RegExp(`"${k}":(\\d+)`).exec(l);
      return m === null ? null : BigInt(m[1]);
    };
    return {
      meta: doc.metadata,
      metrics: doc.metrics,
      error: doc.error,
      startNs: ns("request_start_ns")!,
      endNs: ns("request_end_ns")!,
      intendedNs: ns("intended_start_ns"),
    };
  });
}

async function runDirOf(dir: string): Promise<string> {
  for await (const e of Deno.readDir(dir)) if (e.isDirectory) return join(dir, e.name);
  throw new Error(`no run folder in ${dir}`);
}

/** numpy's linear-interpolation percentile of ascending `xs`. */
function percentile(xs: number[], p: number): number {
  const r = (p / 100) * (xs.length - 1);
  const lo = Math.floor(r);
  const hi = Math.ceil(r);
  return xs[lo] + (xs[hi] - xs[lo]) * (r - lo);
}

function close(a: number, b: number, what: string): void {
  assert.ok(
    Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)),
    `${what}: ${a} vs ${b}`,
  );
}

/** The summary's request_latency, count and throughput recomputed from the records by hand. */
function checkSummary(summary: Doc, lines: Line[]): void {
  const ok = lines.filter((l) => l.meta.benchmark_phase === "profiling" && l.error === null);
  assert.equal(summary.request_count.avg, ok.length);
  const lat = ok.map((l) => l.metrics.request_latency.value).sort((a, b) => a - b);
  const mean = lat.reduce((s, x) => s + x, 0) / lat.length;
  const block = summary.request_latency;
  close(block.avg, mean, "avg");
  close(block.min, lat[0], "min");
  close(block.max, lat[lat.length - 1], "max");
  for (const p of [1, 5, 10, 25, 50, 75, 90, 95, 99]) {
    close(block[`p${p}`], percentile(lat, p), `p${p}`);
  }
  const std = Math.sqrt(lat.reduce((s, x) => s + (x - mean) ** 2, 0) / lat.length);
  close(block.std, std, "std");
  const start = ok.reduce((m, l) => l.startNs < m ? l.startNs : m, ok[0].startNs);
  const end = ok.reduce((m, l) => l.endNs > m ? l.endNs : m, ok[0].endNs);
  close(summary.request_throughput.avg, ok.length / (Number(end - start) / 1e9), "throughput");
}

/** A plan kind: the profile.yaml it runs, and the dataset file it reads. */
interface Kind {
  name: string;
  /** Turns the config's `profiling` phase into this kind's; null keeps the manifest's. */
  phase: Record<string, unknown> | null;
  dataset: { file: string; format: string; text: string } | null;
  scheduled: boolean;
  /** The ConfigMap's start-at is left empty: the pods meet at shard 0's start barrier. */
  barrier?: boolean;
}

const KINDS: Kind[] = [
  {
    name: "concurrency (the manifest's config), started at the barrier",
    phase: null,
    dataset: null,
    scheduled: false,
    barrier: true,
  },
  {
    name: "request rate, Poisson, two-turn conversations",
    phase: { type: "poisson", rate: 60 },
    dataset: {
      file: "chats.jsonl",
      format: "multi_turn",
      text: Array.from(
        { length: 12 },
        (_, i) =>
          JSON.stringify({
            session_id: `c${i}`,
            turns: [{ text: `hi ${i}` }, { text: `more ${i}` }],
          }),
      )
        .join("\n") + "\n",
    },
    scheduled: true,
  },
  {
    name: "fixed schedule",
    phase: { type: "fixed_schedule" },
    dataset: {
      file: "trace.jsonl",
      format: "single_turn",
      text: Array.from(
        { length: 16 },
        (_, i) => JSON.stringify({ timestamp: Math.round(i * 37 + (i % 3) * 11), text: `t ${i}` }),
      )
        .join("\n") + "\n",
    },
    scheduled: true,
  },
];

/** An in-process command's streams, kept for a failed assertion's message. */
function quietIo(): Io & { text: () => string } {
  let text = "";
  return {
    stdout: () => {},
    stderr: (t) => void (text += t),
    env: (k) => k === "HF_HUB_OFFLINE" ? "1" : undefined,
    isTerminal: false,
    text: () => text,
  };
}

for (const kind of KINDS) {
  Deno.test(`the Kubernetes Job, run as N=1, 2 and 4 local pods: ${kind.name}`, async () => {
    const job = await manifest("job.yaml");
    const mergeJob = await manifest("merge-job.yaml");
    const configMap = await manifest("configmap.yaml");
    assert.equal(job.spec.completionMode, "Indexed");
    assert.equal(job.spec.parallelism, job.spec.completions);
    const ctr = container(job);
    assert.deepEqual(ctr.command, ["reprise"]);
    const server = await startMockServer({ outputTokens: 3 });
    const root = await Deno.makeTempDir();
    const procs: { child: Deno.ChildProcess; err: Promise<string> }[] = [];
    let failure: Error | null = null;
    try {
      // The ConfigMap's files, with the server's Service name pointing at the mock.
      const data: Record<string, string> = { ...configMap.data };
      const host = new URL(server.url).host;
      const config = parse(data["profile.yaml"]) as Doc;
      if (kind.phase) config.benchmark.phases.profiling = kind.phase;
      if (kind.dataset) {
        data[kind.dataset.file] = kind.dataset.text;
        config.benchmark.dataset.path = `/etc/reprise/${kind.dataset.file}`;
        config.benchmark.dataset.format = kind.dataset.format;
      }
      data["profile.yaml"] = JSON.stringify(config);
      const configDir = join(root, "config");
      await Deno.mkdir(configDir);
      for (const [name, text] of Object.entries(data)) {
        await Deno.writeTextFile(
          join(configDir, name),
          text.replaceAll(SERVER_HOST, host).replaceAll("/etc/reprise/", `${configDir}/`),
        );
      }
      // One instant for every pod of every size, a few seconds ahead: they load meanwhile.
      const startAtMs = Math.ceil(Date.now() / 1000) * 1000 + 4000;
      const startAt = new Date(startAtMs).toISOString();
      data["start-at"] = kind.barrier ? "" : startAt;
      const ports = freePorts(7);
      const clusters: Cluster[] = [1, 2, 4].map((n) => ({
        n,
        ports: ports.splice(0, n),
        configDir,
        dirs: Array.from({ length: n }, (_, i) => join(root, `n${n}`, `pod${i}`)),
        mergedDir: join(root, `n${n}`, "merged"),
      }));
      for (const c of clusters) {
        for (let i = 0; i < c.n; i++) {
          // The pod's emptyDir exists when it starts.
          await Deno.mkdir(c.dirs[i], { recursive: true });
          const args = localize([...ctr.args], c, i);
          const child = new Deno.Command(Deno.execPath(), {
            args: ["run", "--allow-all", join(ROOT, "main.ts"), ...args],
            env: podEnv(ctr, data, i),
            stdout: "null",
            stderr: "piped",
          }).spawn();
          procs.push({ child, err: new Response(child.stderr).text() });
        }
      }
      // The same plan on one machine, in-process, from the same instant.
      const single = join(root, "single");
      const singleIo = quietIo();
      const code = await main([
        "profile",
        "--config",
        join(configDir, "profile.yaml"),
        "--artifact-dir",
        single,
        "--start-at",
        startAt,
        "--ui",
        "none",
      ], singleIo);
      assert.equal(code, 0, singleIo.text());
      const one = readLines(
        await Deno.readTextFile(join(await runDirOf(single), "profile_export.jsonl")),
      )
        .filter((l) => l.meta.benchmark_phase === "profiling");
      const key = (l: Line) =>
        `${l.meta.session_num}/${l.meta.turn_index}/${l.meta.conversation_id}`;

      for (const c of clusters) {
        const mc = container(mergeJob);
        // One URL a shard: the manifest lists four.
        const own = (mc.args as string[]).filter((a) => {
          const m = /reprise-(\d+)\.reprise-shards/.exec(a);
          return m === null || Number(m[1]) < c.n;
        });
        const mergeArgs = localize(own, c, 0);
        assert.equal(mergeArgs.filter((a) => a.startsWith("http://")).length, c.n);
        const mergeIo = quietIo();
        assert.equal(await main(mergeArgs, mergeIo), 0, mergeIo.text());
        const merged = readLines(
          await Deno.readTextFile(join(c.mergedDir, "profile_export.jsonl")),
        );
        const summary = JSON.parse(
          await Deno.readTextFile(join(c.mergedDir, "profile_export_aiperf.json")),
        );
        // The same requests as one machine's run, none failed, each by the shard it belongs to.
        assert.deepEqual(
          merged.map(key).sort(),
          one.map(key).sort(),
          `N=${c.n}: requests\n${mergeIo.text()}`,
        );
        assert.ok(merged.every((l) => l.error === null));
        for (const l of merged) assert.equal(l.meta.shard_index, Number(l.meta.session_num) % c.n);
        // Each session's turns in order.
        const bySession = new Map<unknown, Line[]>();
        for (const l of merged) {
          bySession.set(l.meta.session_num, [...bySession.get(l.meta.session_num) ?? [], l]);
        }
        for (const turns of bySession.values()) {
          turns.sort((a, b) => a.startNs < b.startNs ? -1 : 1);
          assert.deepEqual(turns.map((t) => t.meta.turn_index), turns.map((_, i) => i));
        }
        // The send schedule: each session's first turn meant at the single run's time (one
        // machine: the clocks agree to well under a millisecond).
        if (kind.scheduled) {
          const at = new Map(
            one.filter((l) => l.meta.turn_index === 0).map((
              l,
            ) => [l.meta.session_num, l.intendedNs!]),
          );
          for (const l of merged.filter((l) => l.meta.turn_index === 0)) {
            const diff = Number(l.intendedNs! - at.get(l.meta.session_num)!) / 1e6;
            assert.ok(Math.abs(diff) < 1, `N=${c.n} session ${l.meta.session_num}: ${diff} ms off`);
          }
        }
        checkSummary(summary, merged);
        const shards = JSON.parse(await Deno.readTextFile(join(c.mergedDir, "shards.json")));
        assert.equal(shards.shards.length, c.n);
        // One start for all the pods: the instant given, or the one the barrier fixed.
        const zeros = new Set(shards.shards.map((s: Doc) => s.profiling_start_ns));
        assert.equal(zeros.size, 1);
        if (!kind.barrier) assert.deepEqual([...zeros], [`${BigInt(startAtMs) * 1_000_000n}`]);
        assert.deepEqual(shards.warnings, [], mergeIo.text());
      }
    } catch (e) {
      failure = e as Error;
    }
    // The shards linger for the merge; a signal ends the linger.
    for (const p of procs) {
      try {
        p.child.kill("SIGINT");
      } catch { /* already ended */ }
    }
    const ends = await Promise.all(
      procs.map(async (p) => ({ status: await p.child.status, err: await p.err })),
    );
    await server.close();
    await Deno.remove(root, { recursive: true });
    // A failed check says what every pod said.
    if (failure !== null) {
      failure.message += ends.map((e, i) => `\n--- pod ${i} (exit ${e.status.code}):\n${e.err}`)
        .join("");
      throw failure;
    }
    for (const e of ends) assert.equal(e.status.code, 0, e.err);
  });
}
