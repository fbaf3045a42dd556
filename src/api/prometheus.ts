/**
 * The live snapshot in Prometheus text exposition format 0.0.4, with AIPerf's family names and
 * labels so that scrape configs, dashboards and alerts written for AIPerf keep working:
 * distributions as summaries `aiperf_{tag}_{unit}{quantile=…}` with `_sum`/`_count`, scalar
 * stats as gauges `aiperf_{tag}_{stat}_{unit}`, and the `aiperf_info` gauge. Every series
 * carries AIPerf's run labels (`benchmark_id`, `model`, `endpoint_type`, `streaming`, and
 * `concurrency` or `request_rate` when set). What AIPerf has no family for (run status, per-phase
 * and per-Worker counters) stays under reprise-named families (`reprise_*`).
 */

import { AIPERF_COMPAT_VERSION } from "../export/summary_json.ts";
import type { LiveSnapshot, MetricStats, RunInfo, RunStatus } from "./types.ts";

/** The Content-Type of the text format. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const QUANTILES: [keyof MetricStats, string][] = [
  ["p1", "0.01"],
  ["p5", "0.05"],
  ["p10", "0.1"],
  ["p25", "0.25"],
  ["p50", "0.5"],
  ["p75", "0.75"],
  ["p90", "0.9"],
  ["p95", "0.95"],
  ["p99", "0.99"],
];

const GAUGE_STATS: [keyof MetricStats, string][] = [
  ["avg", "average"],
  ["min", "minimum"],
  ["max", "maximum"],
  ["std", "standard deviation"],
  ["current", "current value"],
];

/** A metric name part made of `[a-z0-9_]`, not starting with a digit. */
export function sanitizeName(name: string): string {
  const s = name.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  return /^[0-9]/.test(s) ? `_${s}` : s;
}

/** A unit as a name suffix: `%` → percent, `/` → `_per_`, `tokens_per_sec` → tps. */
export function sanitizeUnit(unit: string): string {
  const replaced = unit
    .replaceAll("%", "percent")
    .replaceAll("/", "_per_")
    .replaceAll("tokens_per_sec", "tps")
    .replaceAll("__", "_");
  return sanitizeName(replaced);
}

/** A label value escaped as the format requires (backslash, double quote, newline). */
export function escapeLabelValue(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

function escapeHelp(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");
}

/** A sample value: `NaN`, `+Inf`, `-Inf` as the format spells them. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function labels(pairs: Record<string, string>): string {
  const entries = Object.entries(pairs);
  if (entries.length === 0) return "";
  return `{${entries.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(",")}}`;
}

/** Collects families so that one name is never described twice. */
class Exposition {
  private readonly lines: string[] = [];
  private readonly seen = new Set<string>();

  family(
    name: string,
    type: "gauge" | "counter" | "summary",
    help: string,
    samples: [suffix: string, labels: Record<string, string>, value: number][],
  ): void {
    if (this.seen.has(name) || samples.length === 0) return;
    this.seen.add(name);
    this.lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
    for (const [suffix, l, v] of samples) {
      this.lines.push(`${name}${suffix}${labels(l)} ${formatValue(v)}`);
    }
  }

  text(): string {
    return this.lines.length ? this.lines.join("\n") + "\n" : "";
  }
}

function num(v: unknown): number | undefined {
  return typeof v === "number" ? v : undefined;
}

/** A rate as AIPerf's labels spell a float: `10.0`, `2.5`. */
function pythonFloat(v: number): string {
  return Number.isInteger(v) ? `${v}.0` : String(v);
}

/**
 * The labels AIPerf puts on every series: the run's identity and its load settings, all as
 * strings (`streaming` is `true`/`false`; `concurrency` and `request_rate` only when set).
 */
export function runLabels(snapshot: LiveSnapshot, run: RunInfo): Record<string, string> {
  const labels: Record<string, string> = {
    benchmark_id: run.benchmark_id,
    model: snapshot.info.model,
    endpoint_type: snapshot.info.endpoint_type,
    streaming: String(snapshot.info.streaming),
  };
  if (snapshot.info.concurrency !== null) labels.concurrency = String(snapshot.info.concurrency);
  if (snapshot.info.request_rate !== null) {
    labels.request_rate = pythonFloat(snapshot.info.request_rate);
  }
  return labels;
}

/** The `/metrics` body for the current snapshot. */
export function formatPrometheus(
  snapshot: LiveSnapshot,
  run: RunInfo,
  status: RunStatus,
): string {
  const out = new Exposition();
  const base = runLabels(snapshot, run);

  // `version` is the AIPerf release whose formats reprise follows; reprise's own version is
  // the `reprise_version` label and the `reprise_info` series.
  out.family("aiperf_info", "gauge", "AIPerf benchmark information", [
    ["", { ...base, version: AIPERF_COMPAT_VERSION, reprise_version: snapshot.info.version }, 1],
  ]);
  out.family("reprise_info", "gauge", "reprise benchmark information", [
    ["", { ...base, version: snapshot.info.version }, 1],
  ]);
  out.family(
    "reprise_run_status",
    "gauge",
    "1 for the run's current status, 0 for the others",
    (["starting", "running", "complete", "failed", "cancelled"] as const).map((
      s,
    ) => ["", { ...base, status: s }, s === status ? 1 : 0]),
  );

  for (const [tag, m] of Object.entries(snapshot.metrics)) {
    const name = `aiperf_${sanitizeName(tag)}`;
    const unitSuffix = m.unit ? `_${sanitizeUnit(m.unit)}` : "";
    const title = typeof m.header === "string" && m.header ? m.header : tag;
    const inUnit = m.unit ? ` (in ${m.unit})` : "";
    const quantiles = QUANTILES
      .map(([k, q]) => [q, num(m[k])] as const)
      .filter((e): e is readonly [string, number] => e[1] !== undefined);
    const count = num(m.count);
    const sum = num(m.sum);

    if (quantiles.length > 0) {
      const samples: [string, Record<string, string>, number][] = quantiles.map((
        [q, v],
      ) => ["", { ...base, quantile: q }, v]);
      if (sum !== undefined) samples.push(["_sum", base, sum]);
      if (count !== undefined) samples.push(["_count", base, count]);
      out.family(`${name}${unitSuffix}`, "summary", `${title}${inUnit}`, samples);
    }
    for (const [k, display] of GAUGE_STATS) {
      const v = num(m[k]);
      if (v === undefined) continue;
      out.family(`${name}_${k}${unitSuffix}`, "gauge", `${title} ${display}${inUnit}`, [
        ["", base, v],
      ]);
    }
    // Without quantiles there is no summary to carry count and sum: expose them as gauges.
    if (quantiles.length === 0) {
      if (count !== undefined) {
        out.family(`${name}_count${unitSuffix}`, "gauge", `${title} observation count`, [
          ["", base, count],
        ]);
      }
      if (sum !== undefined) {
        out.family(`${name}_sum${unitSuffix}`, "gauge", `${title} observation sum${inUnit}`, [
          ["", base, sum],
        ]);
      }
    }
  }

  const phases = Object.entries(snapshot.progress);
  const perPhase = (pick: (p: (typeof phases)[number][1]) => number) =>
    phases.map(([phase, p]) =>
      ["", { ...base, phase }, pick(p)] as [
        string,
        Record<string, string>,
        number,
      ]
    );
  out.family("reprise_requests_sent_total", "counter", "Requests sent", perPhase((p) => p.sent));
  out.family(
    "reprise_requests_completed_total",
    "counter",
    "Requests completed (successful or not)",
    perPhase((p) => p.completed),
  );
  out.family(
    "reprise_requests_errors_total",
    "counter",
    "Requests that ended with an error",
    perPhase((p) => p.errors),
  );
  out.family(
    "reprise_requests_cancelled_total",
    "counter",
    "Requests cancelled",
    perPhase((p) => p.cancelled),
  );
  out.family(
    "reprise_requests_in_flight",
    "gauge",
    "Requests sent and not yet finished",
    perPhase((p) => p.in_flight),
  );
  out.family(
    "reprise_sessions_started_total",
    "counter",
    "Conversations started",
    perPhase((p) => p.sessions_started),
  );
  out.family(
    "reprise_sessions_completed_total",
    "counter",
    "Conversations completed",
    perPhase((p) => p.sessions_completed),
  );

  const workers = Object.entries(snapshot.workers);
  const perWorker = (pick: (w: (typeof workers)[number][1]) => number) =>
    workers.map(([id, w]) =>
      ["", { ...base, worker_id: id }, pick(w)] as [
        string,
        Record<string, string>,
        number,
      ]
    );
  out.family(
    "reprise_worker_requests_total",
    "counter",
    "Requests finished by each Worker",
    perWorker((w) => w.requests),
  );
  out.family(
    "reprise_worker_errors_total",
    "counter",
    "Failed requests of each Worker",
    perWorker((w) => w.errors),
  );
  out.family(
    "reprise_worker_in_flight",
    "gauge",
    "Requests in flight in each Worker",
    perWorker((w) => w.in_flight),
  );

  return out.text();
}
