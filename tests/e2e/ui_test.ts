/**
 * The live display: `--ui dashboard` on a terminal draws the full-screen view from the run's
 * snapshot and gives the screen back; off a terminal it is the progress line; `none` is silent.
 */

import assert from "node:assert/strict";
import type { LiveSnapshot } from "../../src/api/types.ts";
import { dashboardText } from "../../src/cli/dashboard.ts";
import { startProgress } from "../../src/cli/progress.ts";

const SNAPSHOT: LiveSnapshot = {
  updatedAt: "2026-01-01T00:00:00.000Z",
  info: {
    model: "qwen",
    endpoint_type: "chat",
    streaming: true,
    concurrency: 4,
    request_rate: null,
    version: "0",
  },
  metrics: {
    time_to_first_token: { unit: "ms", avg: 12.5, p50: 11, p99: 40 },
    inter_token_latency: { unit: "ms", avg: 3.25, p50: 3, p99: 9 },
    output_token_throughput: { unit: "tokens/sec", avg: 1234.5 },
  } as unknown as LiveSnapshot["metrics"],
  progress: {
    warmup: {
      sent: 0,
      completed: 0,
      errors: 0,
      cancelled: 0,
      in_flight: 0,
      sessions_started: 0,
      sessions_completed: 0,
    },
    profiling: {
      sent: 10,
      completed: 8,
      errors: 1,
      cancelled: 0,
      in_flight: 2,
      sessions_started: 10,
      sessions_completed: 8,
    },
  },
  workers: { worker_0: { requests: 8, errors: 1, in_flight: 2, state: "running" } },
};

Deno.test("the dashboard shows live TTFT, ITL, throughput, progress, errors and Workers", () => {
  const text = dashboardText(SNAPSHOT, "profiling", 3.2);
  assert.match(text, /qwen \| chat \(streaming\) \| profiling \| 3\.2 s/);
  assert.match(text, /sent 10 {2}completed 8 {2}errors 1 {2}cancelled 0 {2}in flight 2/);
  assert.match(text, /Time to first token\s+avg\s+12\.5\s+p50\s+11\.0\s+p99\s+40\.0/);
  assert.match(text, /Inter-token latency\s+avg\s+3\.3/);
  assert.match(text, /Output token throughput\s+1234\.5 tokens\/s/);
  assert.match(text, /worker_0\s+running\s+requests 8 {2}errors 1 {2}in flight 2/);
});

Deno.test("--ui dashboard on a terminal draws full-screen and gives the screen back", () => {
  const out: string[] = [];
  const control = new Int32Array(64);
  const stop = startProgress(
    "dashboard",
    true,
    (t) => out.push(t),
    () => ({ control, total: 10, phase: "profiling" }),
    () => ({ snapshot: SNAPSHOT, phase: "profiling" }),
  );
  stop();
  assert.equal(out[0], "\x1b[?1049h\x1b[?25l");
  assert.match(out[1], /Live metrics/);
  assert.equal(out.at(-1), "\x1b[?25h\x1b[?1049l");
});

Deno.test("off a terminal the dashboard is the progress line; none draws nothing", () => {
  const out: string[] = [];
  const control = new Int32Array(64);
  const source = () => ({ control, total: 10, phase: "profiling" });
  const snap = () => ({ snapshot: SNAPSHOT, phase: "profiling" });
  startProgress("dashboard", false, (t) => out.push(t), source, snap)();
  startProgress("none", true, (t) => out.push(t), source, snap)();
  assert.deepEqual(out, []);
});
