/**
 * The live dashboard: its page is self-contained under a strict CSP; its event stream sends the
 * history, then only new points, then `end` once the run is over, and ends when the server
 * closes; the history's points are interval means from the snapshots' running sums; the server's
 * latest values reach `/api/metrics` and `/metrics`.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { createApiApp } from "../../src/api/app.ts";
import { DASHBOARD_CSP, dashboardEvents } from "../../src/api/dashboard.ts";
import { LiveHistory } from "../../src/api/live_series.ts";
import type { LivePoint, LiveSnapshot } from "../../src/api/types.ts";
import type { ServerValue } from "../../src/observe/series.ts";
import { fakeSource, sampleSnapshot } from "./fake_source.ts";

const SERVER: ServerValue[] = [
  {
    metric: "vllm:num_requests_waiting",
    source: "http://h/metrics",
    labels: { model_name: "m", model: "x" },
    type: "gauge",
    value: 3,
  },
  {
    metric: "vllm:generation_tokens",
    source: "http://h/metrics",
    labels: null,
    type: "counter",
    value: 1000,
    rate: 250,
  },
  {
    metric: "vllm:time_to_first_token_seconds",
    source: "http://h/metrics",
    labels: null,
    type: "histogram",
    value: 40,
    avg: 0.125,
  },
];

/** Reads SSE events off a stream until `n` have come or it ends. */
async function readEvents(body: ReadableStream<Uint8Array>, n: number) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const events: { event: string; data: Record<string, unknown> }[] = [];
  let buf = "";
  let ended = false;
  while (events.length < n) {
    const { value, done } = await reader.read();
    if (done) {
      ended = true;
      break;
    }
    buf += value;
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const event = /^event: (.*)$/m.exec(block)![1];
      events.push({ event, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]) });
    }
  }
  if (!ended) await reader.cancel();
  return { events, ended };
}

function point(t: number, ttft: number): LivePoint {
  return { t, phase: "profiling", values: { ttft, "server-waiting": 2 } };
}

Deno.test("dashboard events: the history, then only new points, then end", async () => {
  const history: LivePoint[] = [point(0, 10), point(1, 20)];
  const { source, state } = fakeSource();
  const withHistory = { ...source, history: () => history };
  const res = dashboardEvents(withHistory, { intervalMs: 10 });
  assert.equal(res.headers.get("content-type"), "text/event-stream; charset=utf-8");
  const reading = readEvents(res.body!, 10);
  await new Promise((r) => setTimeout(r, 30));
  history.push(point(2, 30));
  await new Promise((r) => setTimeout(r, 30));
  state.status = "complete";
  const { events, ended } = await reading;
  assert.ok(ended, "the stream closes after end");
  assert.deepEqual(events.map((e) => e.event), ["points", "points", "end"]);
  const first = events[0].data as { points: LivePoint[]; charts: { id: string }[] };
  assert.deepEqual(first.points.map((p) => p.t), [0, 1]);
  assert.ok(first.charts.some((c) => c.id === "ttft"));
  assert.ok(first.charts.some((c) => c.id === "server-waiting"));
  assert.deepEqual((events[1].data.points as LivePoint[]).map((p) => p.t), [2]);
  assert.equal(events[2].data.status, "complete");
});

Deno.test("dashboard events: the server closing ends the stream; secrets are redacted", async () => {
  const { source, state } = fakeSource();
  state.snapshot = sampleSnapshot();
  const closing = new AbortController();
  const history = [{ t: 0, phase: "sk-secret-1234", values: {} }];
  const res = dashboardEvents({ ...source, history: () => history }, {
    secrets: ["sk-secret-1234"],
    signal: closing.signal,
    intervalMs: 10,
  });
  const reading = readEvents(res.body!, 10);
  setTimeout(() => closing.abort(), 50);
  const { events, ended } = await reading;
  assert.ok(ended);
  assert.equal(events[0].data.phase, "<redacted>");
});

Deno.test("/dashboard: one self-contained page, its inline scripts allowed by hash only", async () => {
  const app = createApiApp(fakeSource().source);
  const res = await app.request("/dashboard");
  assert.equal(res.status, 200);
  const csp = res.headers.get("content-security-policy")!;
  assert.equal(csp, DASHBOARD_CSP);
  assert.doesNotMatch(csp, /script-src[^;]*unsafe-inline/);
  const html = await res.text();
  assert.ok(!/(src|href)="(https?:)?\/\//.test(html), "nothing from another origin");
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  assert.equal(scripts.length, 2);
  for (const s of scripts) {
    const h = createHash("sha256").update(s).digest("base64");
    assert.ok(csp.includes(`'sha256-${h}'`), "script hash in the CSP");
  }
  assert.ok(scripts[0].includes("uPlot"));
  // The page's own script parses (a slip in its template text would stop the page).
  new Function(scripts[1]);
});

Deno.test("the server's latest values on /api/metrics and /metrics", async () => {
  const { source, state } = fakeSource();
  const app = createApiApp(source);
  const none = await (await app.request("/api/metrics")).json();
  assert.deepEqual(none.reprise_server_metrics, []);
  state.snapshot = { ...sampleSnapshot(), server: SERVER };
  const body = await (await app.request("/api/metrics")).json();
  assert.deepEqual(body.reprise_server_metrics, SERVER);
  const text = await (await app.request("/metrics")).text();
  const families = parsePrometheusTextFormat(text) as {
    name: string;
    type: string;
    metrics: { value: string; labels: Record<string, string> }[];
  }[];
  const find = (n: string) => families.find((f) => f.name === n)!;
  const waiting = find("reprise_server_vllm_num_requests_waiting");
  assert.equal(waiting.type, "GAUGE");
  assert.equal(waiting.metrics[0].value, "3");
  assert.equal(waiting.metrics[0].labels.endpoint_url, "http://h/metrics");
  assert.equal(waiting.metrics[0].labels.model_name, "m");
  assert.equal(waiting.metrics[0].labels.server_model, "x", "the run's label is not overwritten");
  assert.equal(waiting.metrics[0].labels.benchmark_id, "bench-123");
  assert.equal(find("reprise_server_vllm_generation_tokens_total").type, "COUNTER");
  assert.equal(
    find("reprise_server_vllm_time_to_first_token_seconds_avg").metrics[0].value,
    "0.125",
  );
  assert.equal(
    find("reprise_server_vllm_time_to_first_token_seconds_count").metrics[0].value,
    "40",
  );
});

function snap(ttftCount: number, ttftSum: number, osl: number, errors: number): LiveSnapshot {
  const s = sampleSnapshot();
  return {
    ...s,
    metrics: {
      time_to_first_token: { unit: "ms", count: ttftCount, sum: ttftSum },
      request_latency: { unit: "ms", count: ttftCount, sum: ttftSum * 10 },
      output_sequence_length: { unit: "tokens", count: ttftCount, sum: osl },
    },
    progress: { ...s.progress, profiling: { ...s.progress.profiling, errors } },
    server: SERVER,
  };
}

Deno.test("LiveHistory: interval means and rates from the running sums; thinned when full", () => {
  const h = new LiveHistory(4);
  h.add(snap(0, 0, 0, 0), "profiling", 1000);
  h.add(snap(10, 500, 1000, 2), "profiling", 2000);
  h.add(snap(10, 500, 1000, 2), "profiling", 2500);
  const [a, b, c] = h.points();
  assert.deepEqual([a.t, b.t, c.t], [0, 1, 1.5]);
  assert.ok(!("ttft" in a.values), "no interval before the first point");
  assert.equal(b.values.ttft, 50);
  assert.equal(b.values.latency, 500);
  assert.equal(b.values["output-tps"], 1000);
  assert.equal(b.values["request-tps"], 10);
  assert.equal(b.values.errors, 2);
  assert.equal(c.values.ttft, null, "no request finished: a gap, not a zero");
  assert.equal(c.values["output-tps"], 0);
  assert.equal(b.values["server-waiting"], 3);
  assert.equal(b.values["server-generation-tokens"], 250);
  assert.equal(b.values["server-ttft"], 125);
  h.add(snap(10, 500, 1000, 2), "profiling", 3000);
  h.add(snap(10, 500, 1000, 2), "profiling", 3500);
  assert.deepEqual(h.points().map((p) => p.t), [0, 1.5, 2.5], "every other point kept");
});

Deno.test("dashboard events: a quiet run keeps the connection alive with comment lines", async () => {
  const { source } = fakeSource();
  const res = dashboardEvents({ ...source, history: () => [] }, { intervalMs: 1 });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes(": keep-alive\n\n")) text += (await reader.read()).value;
  await reader.cancel();
  assert.equal(text.match(/^event: points$/gm)?.length, 1, "the empty history is sent once");
});
