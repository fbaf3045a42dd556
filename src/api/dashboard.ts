/**
 * The live web dashboard on the API port (`/dashboard`): the report's charts over time, the
 * client's and the server's side by side, growing while the run goes. The page inlines uPlot
 * (the report's charting library) and reads `/dashboard/events`, a server-sent event stream that
 * sends the run's history at once, then the new points on a fixed cadence. The stream reads the
 * run state's history on the main thread; it never waits on, or adds work to, a request.
 */

import { createHash } from "node:crypto";
import UPLOT_JS from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import UPLOT_CSS from "uplot/dist/uPlot.min.css" with { type: "text" };
import { redactValues } from "../config/redact.ts";
import { LIVE_CHARTS } from "./live_series.ts";
import type { ApiSource, LivePoint } from "./types.ts";

/** The page's path. */
export const DASHBOARD_PATH = "/dashboard";
/** The event stream's path. */
export const EVENTS_PATH = "/dashboard/events";

/** How often the stream looks for new points: the display's cadence. */
export const EVENTS_INTERVAL_MS = 1000;
/** Looks without a new point before a comment line keeps the connection alive through proxies. */
const KEEPALIVE_TICKS = 15;

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1400px;padding:16px;color:#222}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin-top:20px;border-bottom:1px solid #ddd}
#status{color:#555}.cols{display:grid;grid-template-columns:1fr 1fr;gap:16px}
.chart{border:1px solid #e3e3e3;border-radius:6px;padding:6px;margin-bottom:12px;min-height:250px}
`;

// Creates a chart the first time a point carries its value, appends each point, redraws once
// per message; <body data-points="N"> counts the points drawn (tests read it).
const CLIENT = `
(function(){
  var charts = {};
  var total = 0;
  function ensure(spec){
    if (charts[spec.id]) return charts[spec.id];
    var host = document.getElementById(spec.group + "-charts");
    var box = document.createElement("div"); box.className = "chart"; box.id = "chart-" + spec.id;
    host.appendChild(box);
    var data = [[], []];
    var u = new uPlot({
      title: spec.title, width: Math.max(360, host.clientWidth - 16), height: 220,
      scales: {x: {time: false}},
      axes: [{label: "seconds since start"}, {label: spec.yLabel}],
      series: [{label: "s"}, {label: spec.title, stroke: spec.group === "server" ? "#d62728" : "#1f77b4",
        width: 2, spanGaps: true, points: {show: false}}]
    }, data, box);
    return charts[spec.id] = {u: u, data: data};
  }
  var source = new EventSource(location.pathname.replace(/[/]?$/, "/events"));
  source.addEventListener("points", function(e){
    var msg = JSON.parse(e.data);
    var touched = {};
    msg.points.forEach(function(p){
      msg.charts.forEach(function(spec){
        if (!(spec.id in p.values)) return;
        var c = ensure(spec);
        c.data[0].push(p.t); c.data[1].push(p.values[spec.id]); total++;
        touched[spec.id] = c;
      });
    });
    Object.keys(touched).forEach(function(id){ touched[id].u.setData(touched[id].data); });
    document.getElementById("status").textContent = msg.status + " | " + msg.phase +
      " | " + (msg.points.length ? msg.points[msg.points.length - 1].t.toFixed(0) : "-") + " s";
    document.body.setAttribute("data-points", String(total));
    document.body.setAttribute("data-status", msg.status);
  });
  source.addEventListener("end", function(){ source.close(); });
})();
`;

function hash(text: string): string {
  return `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
}

/** The page's Content-Security-Policy: its own two inline scripts, its events, nothing else. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  `script-src ${hash(UPLOT_JS)} ${hash(CLIENT)}`,
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The dashboard page: self-contained, no request but its own event stream. */
export function dashboardPage(title: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title>
<style>${UPLOT_CSS}</style><style>${STYLE}</style>
</head><body data-points="0">
<h1>${esc(title)}</h1>
<div id="status">connecting</div>
<div class="cols">
<section><h2>Client</h2><div id="client-charts"></div></section>
<section><h2>Server</h2><div id="server-charts"></div></section>
</div>
<script>${UPLOT_JS}</script>
<script>${CLIENT}</script>
</body></html>
`;
}

const FINAL = new Set(["complete", "failed", "cancelled"]);

/**
 * The event stream: a `points` event with the history so far, then one with the new points each
 * `intervalMs` (none when nothing changed); once the run has finished and its last points are
 * sent, an `end` event, and the stream closes. `signal` (the server closing) ends it at once.
 */
export function dashboardEvents(
  source: ApiSource,
  opts: { secrets?: string[]; signal?: AbortSignal; intervalMs?: number } = {},
): Response {
  const encoder = new TextEncoder();
  const secrets = opts.secrets ?? [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastT = -Infinity;
  let idle = 0;
  let onAbort = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const close = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
        try {
          controller.close();
        } catch {
          // Already closed by the client.
        }
      };
      onAbort = close;
      const send = (event: string, data: unknown) => {
        const text = redactValues(JSON.stringify(data), secrets);
        controller.enqueue(encoder.encode(`event: ${event}\ndata: ${text}\n\n`));
      };
      const tick = () => {
        const status = source.status();
        const all = source.history?.() ?? [];
        const fresh: LivePoint[] = all.filter((p) => p.t > lastT);
        if (fresh.length > 0 || lastT === -Infinity) {
          if (fresh.length > 0) lastT = fresh[fresh.length - 1].t;
          send("points", {
            status,
            phase: all[all.length - 1]?.phase ?? "",
            charts: LIVE_CHARTS,
            points: fresh,
          });
          if (lastT === -Infinity) lastT = -1;
          idle = 0;
        } else if (++idle >= KEEPALIVE_TICKS) {
          idle = 0;
          controller.enqueue(encoder.encode(": keep-alive\n\n"));
        }
        if (FINAL.has(status)) {
          send("end", { status });
          close();
          return;
        }
        timer = setTimeout(tick, opts.intervalMs ?? EVENTS_INTERVAL_MS);
      };
      if (opts.signal?.aborted) return close();
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      tick();
    },
    cancel() {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
    },
  });
  return new Response(stream, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Accel-Buffering": "no",
    },
  });
}
