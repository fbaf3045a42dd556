/**
 * Chart data for the report: per-request values binned over time and into histograms, with
 * bins shared by every run so that runs can be drawn on one chart.
 */

import { SERVER_CHARTS } from "../observe/server_charts.ts";
import type { RequestPoint, RunData } from "./run_data.ts";
import { serverChartBins } from "./server_data.ts";

/** One chart: an x axis and one y series per run (null where a run has no value). */
export interface ChartData {
  id: string;
  title: string;
  /** x axis label. */
  xLabel: string;
  yLabel: string;
  kind: "line" | "histogram";
  /** Where the report places it: the client's charts over time, the server's under them. */
  section: "client" | "server" | "distribution";
  x: number[];
  /** One series per run, in run order. */
  ys: (number | null)[][];
}

type Field = "ttft" | "itl" | "latency";

const FIELDS: { field: Field; label: string; id: string }[] = [
  { field: "ttft", label: "Time to First Token", id: "ttft" },
  { field: "itl", label: "Inter Token Latency", id: "itl" },
  { field: "latency", label: "Request Latency", id: "latency" },
];

/** A round bin width giving about `target` bins over `span`. */
export function niceWidth(span: number, target: number): number {
  if (!(span > 0)) return 1;
  const raw = span / target;
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

function timeBins(runs: RunData[]): { width: number; count: number } {
  let span = 0;
  for (const r of runs) for (const p of r.points) span = Math.max(span, p.endS);
  // A run without per-request records (`--export-level summary`) still has its server's span.
  for (const r of runs) {
    if (r.points.length > 0) continue;
    for (const s of r.server?.section.series ?? []) span = Math.max(span, s.t[s.t.length - 1] ?? 0);
  }
  const width = niceWidth(span, 40);
  return { width, count: Math.max(1, Math.ceil(span / width) + (span % width === 0 ? 1 : 0)) };
}

function axis(count: number, width: number, offset = 0): number[] {
  return Array.from({ length: count }, (_, i) => +(i * width + offset).toPrecision(12));
}

/** Average of a field per time bin of request start. */
function overTime(points: RequestPoint[], field: Field, width: number, count: number) {
  const sum = new Float64Array(count);
  const n = new Uint32Array(count);
  for (const p of points) {
    const v = p[field];
    if (v === undefined || p.error) continue;
    const i = Math.min(count - 1, Math.floor(p.startS / width));
    sum[i] += v;
    n[i]++;
  }
  return Array.from(sum, (s, i) => (n[i] ? s / n[i] : null));
}

/** Per time bin of request end: a per-second rate of what `amount` gives each request. */
function ratePerSecond(
  points: RequestPoint[],
  width: number,
  count: number,
  amount: (p: RequestPoint) => number,
): number[] {
  const out = new Array<number>(count).fill(0);
  for (const p of points) {
    const i = Math.min(count - 1, Math.floor(p.endS / width));
    out[i] += amount(p);
  }
  return out.map((v) => v / width);
}

function histogram(runs: RunData[], field: Field): { x: number[]; ys: (number | null)[][] } {
  const all = runs.map((r) => r.points.filter((p) => !p.error && p[field] !== undefined));
  let lo = Infinity;
  let hi = -Infinity;
  for (const pts of all) {
    for (const p of pts) {
      lo = Math.min(lo, p[field]!);
      hi = Math.max(hi, p[field]!);
    }
  }
  if (lo === Infinity) return { x: [], ys: runs.map(() => []) };
  const width = niceWidth(hi - lo, 30) || 1;
  const start = Math.floor(lo / width) * width;
  const count = Math.max(1, Math.floor((hi - start) / width) + 1);
  const ys = all.map((pts) => {
    const c = new Array<number>(count).fill(0);
    for (const p of pts) c[Math.min(count - 1, Math.floor((p[field]! - start) / width))]++;
    return c;
  });
  return { x: axis(count, width, start), ys };
}

/** Every chart of the report; charts no run has data for are left out. */
export function buildCharts(runs: RunData[]): ChartData[] {
  const { width, count } = timeBins(runs);
  const x = axis(count, width);
  const charts: ChartData[] = [];
  const hasAny = (ys: (number | null)[][]) => ys.some((y) => y.some((v) => v !== null && v !== 0));
  for (const f of FIELDS) {
    const ys = runs.map((r) => overTime(r.points, f.field, width, count));
    if (!hasAny(ys)) continue;
    charts.push({
      id: `${f.id}-time`,
      title: `${f.label} over time`,
      xLabel: "seconds since start",
      yLabel: "ms (average per interval)",
      kind: "line",
      section: "client",
      x,
      ys,
    });
  }
  const tokens = runs.map((r) =>
    ratePerSecond(r.points, width, count, (p) => (p.error ? 0 : p.osl ?? 0))
  );
  if (hasAny(tokens)) {
    charts.push({
      id: "token-throughput-time",
      title: "Output token throughput over time",
      xLabel: "seconds since start",
      yLabel: "tokens/sec",
      kind: "line",
      section: "client",
      x,
      ys: tokens,
    });
  }
  charts.push({
    id: "request-throughput-time",
    title: "Request throughput over time",
    xLabel: "seconds since start",
    yLabel: "requests/sec",
    kind: "line",
    section: "client",
    x,
    ys: runs.map((r) => ratePerSecond(r.points, width, count, (p) => (p.error ? 0 : 1))),
  });
  charts.push({
    id: "errors-time",
    title: "Errors over time",
    xLabel: "seconds since start",
    yLabel: "errors/sec",
    kind: "line",
    section: "client",
    x,
    ys: runs.map((r) => ratePerSecond(r.points, width, count, (p) => (p.error ? 1 : 0))),
  });
  // The server's metrics on the same bins, so that a queue or a full KV cache lines up with
  // the TTFT it causes.
  for (const spec of SERVER_CHARTS) {
    const ys = runs.map((r) =>
      serverChartBins(spec, r.server ?? null, r.startNs ?? null, width, count) ??
        new Array<number | null>(count).fill(null)
    );
    if (!ys.some((y) => y.some((v) => v !== null))) continue;
    charts.push({
      id: spec.id,
      title: spec.title,
      xLabel: "seconds since start",
      yLabel: spec.yLabel,
      kind: "line",
      section: "server",
      x,
      ys,
    });
  }
  for (const f of FIELDS) {
    const h = histogram(runs, f.field);
    if (h.x.length === 0) continue;
    charts.push({
      id: `${f.id}-hist`,
      title: `${f.label} distribution`,
      xLabel: "ms",
      yLabel: "requests",
      kind: "histogram",
      section: "distribution",
      ...h,
    });
  }
  return charts;
}
