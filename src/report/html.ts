/**
 * The HTML report: one self-contained file (uPlot's JS and CSS inlined, data embedded), with the
 * charts of `series.ts`, each run's summary table, and with two or more runs, their differences.
 */

import UPLOT_JS from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import UPLOT_CSS from "uplot/dist/uPlot.min.css" with { type: "text" };
import { compareRuns, type ComparisonRow } from "./compare.ts";
import type { RunData } from "./run_data.ts";
import { buildCharts } from "./series.ts";

/** Colours of runs 1, 2, 3, …: distinct, readable on white. */
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"];

/** Statistics shown in each run's table (the console table's columns). */
const TABLE_STATS = ["avg", "min", "max", "p99", "p90", "p50", "std"];

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON safe inside a <script> element. */
function scriptJson(v: unknown): string {
  return JSON.stringify(v).replace(/</g, "\\u003c");
}

function fmt(v: unknown): string {
  if (typeof v !== "number") return "";
  if (!Number.isFinite(v)) return String(v);
  const abs = Math.abs(v);
  return abs !== 0 && (abs >= 1e7 || abs < 0.01)
    ? v.toExponential(3)
    : v.toLocaleString("en-US", { maximumFractionDigits: 2 });
}

function runTable(run: RunData): string {
  const rows = Object.entries(run.metrics)
    .filter(([tag]) => tag !== "min_request_timestamp" && tag !== "max_response_timestamp")
    .map(([tag, b]) => {
      const cells = "p50" in b
        ? TABLE_STATS.map((s) => `<td>${fmt(b[s])}</td>`).join("")
        : `<td>${fmt(b.avg)}</td>${"<td></td>".repeat(TABLE_STATS.length - 1)}`;
      return `<tr><th scope="row">${esc(tag)} <span class="unit">(${
        esc(b.unit)
      })</span></th>${cells}</tr>`;
    });
  return `<table class="summary"><thead><tr><th>Metric</th>${
    TABLE_STATS.map((s) => `<th>${s}</th>`).join("")
  }</tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function changeCell(r: ComparisonRow): string {
  if (r.changePct === null) return `<td class="change"></td>`;
  const better = r.changePct === 0
    ? ""
    : (r.changePct > 0) === r.largerIsBetter
    ? "better"
    : "worse";
  const sign = r.changePct > 0 ? "+" : "";
  return `<td class="change ${better}">${sign}${r.changePct.toFixed(1)} %</td>`;
}

function comparisonTable(runs: RunData[]): string {
  const base = runs[0];
  const others = runs.slice(1);
  const perOther = others.map((o) => compareRuns(base, o));
  const head = `<tr><th>Metric</th><th>stat</th><th>${esc(base.name)}</th>${
    others.map((o) => `<th>${esc(o.name)}</th><th>change</th>`).join("")
  }</tr>`;
  const body = perOther[0].map((row, i) => {
    const cells = perOther.map((rows) => {
      const r = rows.find((x) => x.tag === row.tag && x.stat === row.stat) ?? rows[i];
      return `<td>${fmt(r.other)}</td>${changeCell(r)}`;
    }).join("");
    return `<tr><th scope="row">${esc(row.tag)} <span class="unit">(${
      esc(row.unit)
    })</span></th><td>${row.stat}</td><td>${fmt(row.base)}</td>${cells}</tr>`;
  });
  return `<table class="summary comparison" id="comparison"><thead>${head}</thead><tbody>${
    body.join("")
  }</tbody></table>`;
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:16px;color:#222}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(540px,1fr));gap:16px}
.chart{border:1px solid #e3e3e3;border-radius:6px;padding:8px;min-height:300px}
table.summary{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:8px 0}
table.summary th,table.summary td{border-bottom:1px solid #eee;padding:3px 8px;text-align:right}
table.summary th[scope=row]{text-align:left;font-weight:500}.unit{color:#888;font-weight:400}
.better{color:#137333}.worse{color:#b3261e}.runs li span{display:inline-block;width:12px;height:12px;margin-right:6px}
`;

// Draws every chart with uPlot; marks <body data-rendered="N"> when done (tests wait for it).
const CLIENT = `
(function(){
  var data = JSON.parse(document.getElementById("report-data").textContent);
  data.charts.forEach(function(c){
    var host = document.getElementById(c.section === "server" ? "server-charts"
      : c.section === "distribution" ? "distribution-charts" : "charts");
    var box = document.createElement("div"); box.className = "chart"; box.id = "chart-" + c.id;
    host.appendChild(box);
    var series = [{label: c.xLabel}];
    data.runs.forEach(function(name, i){
      var col = data.colors[i % data.colors.length];
      series.push({label: name, stroke: col, width: 2, spanGaps: true,
        fill: c.kind === "histogram" ? col + "33" : undefined,
        paths: c.kind === "histogram" ? uPlot.paths.stepped({align: 1}) : undefined,
        points: {show: c.x.length < 60}});
    });
    new uPlot({
      title: c.title, width: Math.max(480, box.clientWidth - 16), height: 260,
      scales: {x: {time: false}},
      axes: [{label: c.xLabel}, {label: c.yLabel}],
      series: series
    }, [c.x].concat(c.ys), box);
  });
  document.body.setAttribute("data-rendered", String(data.charts.length));
})();
`;

/** The report's HTML text for one or more runs (the first is the baseline of comparisons). */
export function renderReport(runs: RunData[], opts: { generatedAt?: Date } = {}): string {
  if (runs.length === 0) throw new Error("a report needs at least one run");
  const charts = buildCharts(runs);
  const data = { runs: runs.map((r) => r.name), colors: COLORS, charts };
  const title = runs.length === 1
    ? `reprise report: ${runs[0].name}`
    : `reprise report: ${runs.length} runs compared`;
  const legend = runs.map((r, i) =>
    `<li><span style="background:${COLORS[i % COLORS.length]}"></span>${esc(r.name)} — ${
      esc(String(r.info.start_time ?? ""))
    } <code>${esc(r.dir)}</code></li>`
  ).join("");
  const sections = runs.map((r) => `<h3>${esc(r.name)}</h3>${runTable(r)}`).join("");
  const when = (opts.generatedAt ?? new Date()).toISOString();
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title>
<style>${UPLOT_CSS}</style><style>${STYLE}</style>
</head><body>
<h1>${esc(title)}</h1>
<p>Generated ${esc(when)}.</p>
<ul class="runs">${legend}</ul>
<h2>Charts</h2>
<div class="charts" id="charts"></div>
${
    charts.some((c) => c.section === "server")
      ? `<h2 id="server-heading">Server (its /metrics, same time axis)</h2>
<div class="charts" id="server-charts"></div>`
      : ""
  }
<h2>Distributions</h2>
<div class="charts" id="distribution-charts"></div>
${
    runs.length > 1
      ? `<h2>Differences (against ${esc(runs[0].name)})</h2>${comparisonTable(runs)}`
      : ""
  }
<h2>Summary</h2>
${sections}
<script type="application/json" id="report-data">${scriptJson(data)}</script>
<script>${UPLOT_JS.replace(/<\/script/gi, "<\\/script")}</script>
<script>${CLIENT}</script>
</body></html>
`;
}
