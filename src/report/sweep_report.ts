/**
 * The report of sweeps, repeated runs and searches: what capacity planners look at. Throughput
 * against TTFT (p50, p99) and ITL, and throughput against per-user interactivity, one curve per
 * sweep (server), every point with its confidence interval on both axes and the SLO as a line;
 * the Pareto front across all of them; each search's path (probe by probe, pass or fail); and
 * the tables behind the pictures.
 */

import { paretoFront } from "../sweep/aggregate.ts";
import type { AggStat, SweepData, SweepPoint } from "./sweep_data.ts";
import { svgChart, type XYChart, type XYSeries } from "./svg.ts";

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"];

/** SLO lines to draw (from the command line, or the searches' own SLA filters). */
export interface SweepReportOptions {
  ttftSlaMs?: number;
  itlSlaMs?: number;
  generatedAt?: Date;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The first of `keys` a point has. */
function stat(p: SweepPoint, keys: readonly string[]): AggStat | undefined {
  for (const k of keys) if (p.metrics[k]) return p.metrics[k];
  return undefined;
}

const THROUGHPUT = ["output_token_throughput_avg", "request_throughput_avg"];
const TTFT_P99 = ["time_to_first_token_p99"];
const TTFT_P50 = ["time_to_first_token_p50"];
const ITL = ["inter_token_latency_avg"];
const PER_USER = ["output_token_throughput_per_user_avg", "e2e_output_token_throughput_avg"];

function label(p: SweepPoint): string {
  const e = Object.entries(p.parameters);
  return e.length === 0 ? "runs" : e.map(([k, v]) => `${k}=${v}`).join(", ");
}

/** The load axes: a curve runs along them; every other parameter makes a curve of its own. */
const LOAD = new Set(["concurrency", "request_rate", "num_users", "prefill_concurrency"]);

/**
 * The curves of a sweep: its points grouped by their parameters other than the load (one curve
 * per `isl=128`, …), each in order of load.
 */
function curves(s: SweepData): { suffix: string; points: SweepPoint[] }[] {
  const groups = new Map<string, SweepPoint[]>();
  for (const p of s.points) {
    const key = Object.entries(p.parameters).filter(([k]) => !LOAD.has(k)).map(([k, v]) =>
      `${k}=${v}`
    )
      .join(", ");
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  const load = (p: SweepPoint) => {
    const v = Object.entries(p.parameters).find(([k]) => LOAD.has(k))?.[1];
    return typeof v === "number" ? v : 0;
  };
  return [...groups].map(([suffix, points]) => ({
    suffix,
    points: points.sort((a, b) => load(a) - load(b)),
  }));
}

/** One series per curve of each sweep, of `y` against `x`. */
function seriesOf(sweeps: SweepData[], x: readonly string[], y: readonly string[]): XYSeries[] {
  const out: XYSeries[] = [];
  for (const s of sweeps) {
    for (const c of curves(s)) {
      out.push({
        name: c.suffix === "" ? s.name : `${s.name} (${c.suffix})`,
        color: COLORS[out.length % COLORS.length],
        points: c.points.flatMap((p) => {
          const a = stat(p, x);
          const b = stat(p, y);
          if (!a || !b) return [];
          return [{
            x: a.mean,
            y: b.mean,
            xLo: a.ci_low,
            xHi: a.ci_high,
            yLo: b.ci_low,
            yHi: b.ci_high,
            label: `${s.name}: ${label(p)}`,
          }];
        }),
      });
    }
  }
  return out;
}

/** The SLO of `tag` to draw: the option's, else the first search's filter on it. */
function slo(sweeps: SweepData[], tag: string, given?: number): number | undefined {
  if (given !== undefined) return given;
  for (const s of sweeps) {
    const filters = (s.search?.config as
      | { sla_filters?: { metric_tag: string; threshold: number }[] }
      | undefined)
      ?.sla_filters ?? [];
    const f = filters.find((x) => x.metric_tag === tag);
    if (f) return f.threshold;
  }
  return undefined;
}

function unitOf(sweeps: SweepData[], keys: readonly string[]): string {
  for (const s of sweeps) {
    for (const p of s.points) {
      const u = stat(p, keys)?.unit;
      if (u) return u;
    }
  }
  return "";
}

/** The charts of the report. */
export function sweepCharts(sweeps: SweepData[], opts: SweepReportOptions = {}): XYChart[] {
  const tput = `output throughput (${unitOf(sweeps, THROUGHPUT) || "tokens/sec"})`;
  const ttftSlo = slo(sweeps, "time_to_first_token", opts.ttftSlaMs);
  const itlSlo = slo(sweeps, "inter_token_latency", opts.itlSlaMs);
  const lines = (v: number | undefined, what: string) =>
    v === undefined ? [] : [{ y: v, label: `SLO: ${what} ${v} ms` }];
  const charts: XYChart[] = [
    {
      id: "tput-ttft-p99",
      title: "Throughput vs TTFT p99",
      xLabel: tput,
      yLabel: "TTFT p99 (ms)",
      series: seriesOf(sweeps, THROUGHPUT, TTFT_P99),
      hLines: lines(ttftSlo, "TTFT"),
    },
    {
      id: "tput-ttft-p50",
      title: "Throughput vs TTFT p50",
      xLabel: tput,
      yLabel: "TTFT p50 (ms)",
      series: seriesOf(sweeps, THROUGHPUT, TTFT_P50),
      hLines: lines(ttftSlo, "TTFT"),
    },
    {
      id: "tput-itl",
      title: "Throughput vs inter-token latency",
      xLabel: tput,
      yLabel: "ITL avg (ms)",
      series: seriesOf(sweeps, THROUGHPUT, ITL),
      hLines: lines(itlSlo, "ITL"),
    },
    {
      id: "interactivity",
      title: "Throughput vs per-user interactivity",
      xLabel: "per-user output speed (tokens/sec/user)",
      yLabel: tput,
      series: seriesOf(sweeps, PER_USER, THROUGHPUT),
    },
  ];
  // The Pareto front over every point of every sweep: higher throughput, lower TTFT p99.
  const all = seriesOf(sweeps, THROUGHPUT, TTFT_P99);
  const flat = all.flatMap((s) => s.points);
  const front = paretoFront(flat.map((p) => ({ x: p.y, y: p.x }))).map((i) => ({
    x: flat[i].x,
    y: flat[i].y,
  }));
  charts.push({
    id: "pareto",
    title: "Pareto front across servers (throughput up, TTFT p99 down)",
    xLabel: tput,
    yLabel: "TTFT p99 (ms)",
    series: all.map((s) => ({ ...s, line: false })),
    front,
    hLines: lines(ttftSlo, "TTFT"),
  });
  for (const [i, s] of sweeps.entries()) {
    if (!s.search) continue;
    const its = s.search.iterations as {
      variation_values: Record<string, number>;
      feasible: boolean;
      runs?: number;
    }[];
    const b = s.search.boundary_summary as { feasible_max: { value: number } | null } | null;
    charts.push({
      id: `search-${i}`,
      title: `Search path: ${s.name}`,
      xLabel: "probe",
      yLabel: "concurrency",
      series: [{
        name: `${s.search.recipe} (green meets the SLA, red breaks it)`,
        color: "#888",
        points: its.map((it, k) => ({
          x: k + 1,
          y: Object.values(it.variation_values)[0],
          mark: it.feasible ? "pass" : "fail",
          label: `probe ${k + 1}: ${Object.values(it.variation_values)[0]} (${it.runs ?? 1} runs)`,
        })),
      }],
      hLines: b?.feasible_max
        ? [{ y: b.feasible_max.value, label: `found: ${b.feasible_max.value}` }]
        : [],
    });
  }
  return charts;
}

function cell(s: AggStat | undefined): string {
  if (!s) return "";
  const d = Math.abs(s.mean) >= 100 ? 1 : 2;
  const half = s.ci_high !== undefined && s.ci_low !== undefined ? (s.ci_high - s.ci_low) / 2 : 0;
  return half > 0 ? `${s.mean.toFixed(d)} ± ${half.toFixed(d)}` : s.mean.toFixed(d);
}

const TABLE: [string, readonly string[]][] = [
  ["req/s", ["request_throughput_avg"]],
  ["out tok/s", ["output_token_throughput_avg"]],
  ["TTFT p50 ms", TTFT_P50],
  ["TTFT p99 ms", TTFT_P99],
  ["ITL ms", ITL],
  ["tok/s/user", PER_USER],
];

function table(s: SweepData): string {
  const names = [...new Set(s.points.flatMap((p) => Object.keys(p.parameters)))];
  const head = [...names, "runs", ...TABLE.map(([h]) => h)].map((h) => `<th>${esc(h)}</th>`).join(
    "",
  );
  const rows = s.points.map((p) =>
    `<tr>${names.map((n) => `<td>${esc(String(p.parameters[n] ?? ""))}</td>`).join("")}<td>${
      p.runs ?? ""
    }</td>${TABLE.map(([, k]) => `<td>${cell(stat(p, k))}</td>`).join("")}</tr>`
  ).join("");
  return `<table class="summary"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

function searchSummary(s: SweepData): string {
  const h = s.search!;
  const b = h.boundary_summary as {
    feasible_max: { value: number } | null;
    infeasible_min: { value: number } | null;
  } | null;
  const grid = h.grid_equivalent as { points: number; runs: number } | undefined;
  const its = (h.iterations as unknown[]).length;
  return `<p class="search">${esc(String(h.recipe))}: ${
    b?.feasible_max
      ? `largest concurrency meeting the SLA <b>${b.feasible_max.value}</b>`
      : "no concurrency met the SLA"
  }${
    b?.infeasible_min ? ` (${b.infeasible_min.value} breaks it)` : ""
  }; ${its} probes, <b>${h.run_count} runs</b>${
    grid
      ? `; a grid of the same resolution takes ${grid.points} points, <b>${grid.runs} runs</b>`
      : ""
  } (${esc(String(h.convergence_reason ?? "stopped"))}).</p>`;
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:16px;color:#222}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:16px}
.chart{border:1px solid #e3e3e3;border-radius:6px;padding:8px}
table.summary{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:8px 0}
table.summary th,table.summary td{border-bottom:1px solid #eee;padding:3px 8px;text-align:right}
`;

/** The HTML of the sweep report: self-contained, no script. */
export function renderSweepReport(sweeps: SweepData[], opts: SweepReportOptions = {}): string {
  const charts = sweepCharts(sweeps, opts);
  const title = sweeps.length === 1
    ? `reprise sweep report: ${sweeps[0].name}`
    : `reprise sweep report: ${sweeps.length} sweeps`;
  const when = (opts.generatedAt ?? new Date()).toISOString();
  const sections = sweeps.map((s) =>
    `<h3>${esc(s.name)}</h3><p><code>${esc(s.dir)}</code></p>${s.search ? searchSummary(s) : ""}${
      table(s)
    }`
  ).join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body data-rendered="${charts.length}">
<h1>${esc(title)}</h1>
<p>Generated ${
    esc(when)
  }. Each point is one configuration: the mean across its runs, with bars spanning its confidence interval on both axes.</p>
<h2>Charts</h2>
<div class="charts" id="charts">${
    charts.map((c) => `<div class="chart" id="chart-${esc(c.id)}">${svgChart(c)}</div>`).join("")
  }</div>
<h2>Configurations</h2>
${sections}
</body></html>
`;
}
