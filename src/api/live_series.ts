/**
 * The live dashboard's history: one point per refresh of the run's snapshot (on the main
 * thread, at `--stats-interval`), holding each chart's value over the last interval — the
 * client's TTFT, ITL, latency and throughputs from the differences of the running sums and
 * counts, the server's from its latest scrape. Reading the history never touches a Worker.
 */

import { chartValues, SERVER_CHARTS } from "../observe/server_charts.ts";
import type { LivePoint, LiveSnapshot } from "./types.ts";

/** One chart of the dashboard. */
export interface LiveChart {
  id: string;
  title: string;
  yLabel: string;
  /** The client's measurements, or the server's (and later, the GPUs'). */
  group: "client" | "server";
}

/** The client's charts, as the report titles them. */
export const CLIENT_CHARTS: LiveChart[] = [
  { id: "ttft", title: "Time to First Token", yLabel: "ms (mean per interval)", group: "client" },
  { id: "itl", title: "Inter Token Latency", yLabel: "ms (mean per interval)", group: "client" },
  { id: "latency", title: "Request Latency", yLabel: "ms (mean per interval)", group: "client" },
  { id: "output-tps", title: "Output token throughput", yLabel: "tokens/sec", group: "client" },
  { id: "request-tps", title: "Request throughput", yLabel: "requests/sec", group: "client" },
  { id: "errors", title: "Errors", yLabel: "errors/sec", group: "client" },
];

/** Every chart the dashboard may draw: the client's, then the server's. */
export const LIVE_CHARTS: LiveChart[] = [
  ...CLIENT_CHARTS,
  ...SERVER_CHARTS.map((s) => ({
    id: s.id,
    title: s.title,
    yLabel: s.yLabel,
    group: "server" as const,
  })),
];

type Stats = Record<string, { count?: number; sum?: number } | undefined>;

/** Mean of the values added between two snapshots (from their running sums and counts). */
function intervalMean(prev: Stats, cur: Stats, tag: string): number | null {
  const n = (cur[tag]?.count ?? 0) - (prev[tag]?.count ?? 0);
  if (!(n > 0)) return null;
  return round(((cur[tag]?.sum ?? 0) - (prev[tag]?.sum ?? 0)) / n);
}

function round(v: number): number | null {
  return Number.isFinite(v) ? +v.toPrecision(6) : null;
}

/** Points kept; beyond it every other point goes, so a long run keeps its whole span. */
export const MAX_HISTORY = 1800;

/** The history of a run's charts, fed with each refreshed snapshot. */
export class LiveHistory {
  #points: LivePoint[] = [];
  #prev: { snapshot: LiveSnapshot; atMs: number } | null = null;
  #startMs: number | null = null;

  constructor(private readonly max = MAX_HISTORY) {}

  /** Adds the point of `snapshot`, taken at `atMs` (`performance.now()`), during `phase`. */
  add(snapshot: LiveSnapshot, phase: string, atMs = performance.now()): void {
    this.#startMs ??= atMs;
    const prev = this.#prev;
    this.#prev = { snapshot, atMs };
    const values: Record<string, number | null> = {};
    if (prev !== null && atMs > prev.atMs) {
      const dt = (atMs - prev.atMs) / 1000;
      const a = prev.snapshot.metrics as Stats;
      const b = snapshot.metrics as Stats;
      values.ttft = intervalMean(a, b, "time_to_first_token");
      values.itl = intervalMean(a, b, "inter_token_latency");
      values.latency = intervalMean(a, b, "request_latency");
      const delta = (tag: string, key: "count" | "sum") =>
        Math.max(0, (b[tag]?.[key] ?? 0) - (a[tag]?.[key] ?? 0));
      values["output-tps"] = round(delta("output_sequence_length", "sum") / dt);
      values["request-tps"] = round(delta("request_latency", "count") / dt);
      const errors = (s: LiveSnapshot) => s.progress.warmup.errors + s.progress.profiling.errors;
      values.errors = round(Math.max(0, errors(snapshot) - errors(prev.snapshot)) / dt);
    }
    Object.assign(values, chartValues(snapshot.server ?? []));
    this.#points.push({ t: +((atMs - this.#startMs) / 1000).toFixed(3), phase, values });
    if (this.#points.length > this.max) this.#points = this.#points.filter((_, i) => i % 2 === 0);
  }

  /** The points so far, oldest first. */
  points(): readonly LivePoint[] {
    return this.#points;
  }
}
