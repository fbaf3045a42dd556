/**
 * Pushes the run's metrics to an OpenTelemetry collector while it runs (`--otel-url`), as AIPerf
 * does: OTLP/HTTP with the JSON encoding, cumulative histograms named after the GenAI semantic
 * conventions (`gen_ai.client.operation.duration` from the request latency,
 * `…time_to_first_chunk` from TTFT, `…time_per_output_chunk` from ITL,
 * `gen_ai.client.token.usage`) and AIPerf's `aiperf.timing.*` counters. Records are folded in on
 * the main thread as they arrive; the push runs on a timer there. A collector that cannot be
 * reached costs one warning; the run goes on.
 */

import { AT, type RecordValues } from "../metrics/metric_def.ts";
import type { RequestRecord } from "../record/record.ts";

/** The semantic conventions' advised bucket bounds. */
const DURATION_BOUNDS = [
  0.01,
  0.02,
  0.04,
  0.08,
  0.16,
  0.32,
  0.64,
  1.28,
  2.56,
  5.12,
  10.24,
  20.48,
  40.96,
  81.92,
];
const CHUNK_BOUNDS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5];
const TOKEN_BOUNDS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];

/** A cumulative histogram per attribute set. */
class Histogram {
  readonly points = new Map<string, { attrs: Record<string, string>; h: HistPoint }>();
  constructor(readonly bounds: number[]) {}

  record(value: number, attrs: Record<string, string>): void {
    const key = JSON.stringify(attrs);
    let p = this.points.get(key);
    if (!p) {
      p = {
        attrs,
        h: {
          count: 0,
          sum: 0,
          min: Infinity,
          max: -Infinity,
          buckets: new Array(this.bounds.length + 1).fill(0),
        },
      };
      this.points.set(key, p);
    }
    const h = p.h;
    h.count++;
    h.sum += value;
    h.min = Math.min(h.min, value);
    h.max = Math.max(h.max, value);
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]) i++;
    h.buckets[i]++;
  }
}

interface HistPoint {
  count: number;
  sum: number;
  min: number;
  max: number;
  buckets: number[];
}

/** What the pusher needs to know of the run. */
export interface OtelSettings {
  /** The collector: `host`, `host:port` or a URL; `/v1/metrics` is added unless given. */
  url: string;
  /** `--stream`: `metrics` (GenAI histograms), `timing` (counters) or `default` (both). */
  stream: "metrics" | "timing" | "default";
  /** `--otel-resource-attributes` as `k=v` (or `k:v`). */
  resourceAttributes: string[];
  /** `gen_ai.provider.name`: given, or inferred from the target's host; omitted when unknown. */
  provider?: string;
  model: string;
  /** `gen_ai.operation.name` (`chat`, `text_completion`, `embeddings`…). */
  operation: string;
  benchmarkId: string;
  version: string;
  /** Milliseconds between pushes. */
  intervalMs?: number;
}

/** The OTLP/HTTP metrics URL of `--otel-url`. */
export function otlpMetricsUrl(url: string): string {
  const u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`);
  if (u.port === "" && u.protocol === "http:" && !/:\d+$/.test(u.host)) u.port = "4318";
  if (u.pathname === "/" || u.pathname === "") u.pathname = "/v1/metrics";
  return u.toString();
}

/** The provider AIPerf infers from well-known API hosts; undefined for others. */
export function inferProvider(host: string): string | undefined {
  const rules: [RegExp, string][] = [
    [/(^|\.)openai\.azure\.com$/, "azure.ai.openai"],
    [/(^|\.)openai\.com$/, "openai"],
    [/(^|\.)anthropic\.com$/, "anthropic"],
    [/(^|\.)generativelanguage\.googleapis\.com$/, "gcp.gemini"],
    [/(^|\.)aiplatform\.googleapis\.com$/, "gcp.vertex_ai"],
    [/bedrock.*\.amazonaws\.com$/, "aws.bedrock"],
    [/(^|\.)mistral\.ai$/, "mistral_ai"],
    [/(^|\.)groq\.com$/, "groq"],
    [/(^|\.)deepseek\.com$/, "deepseek"],
  ];
  return rules.find(([re]) => re.test(host))?.[1];
}

/** AIPerf's `error.type` of a failed record. */
export function errorType(r: RequestRecord): string {
  if (r.cancelled) return "cancelled";
  const s = r.httpStatus;
  if (s !== null && s >= 500) return "http_5xx";
  if (s !== null && s >= 400) return "http_4xx";
  if (/timeout/i.test(r.error?.type ?? "")) return "timeout";
  if (/parse|json|decode/i.test(r.error?.type ?? "")) return "parse_error";
  return r.error?.type ?? "error";
}

const attr = (key: string, v: string | number) =>
  typeof v === "number"
    ? { key, value: { intValue: String(v) } }
    : { key, value: { stringValue: v } };

/** Folds records into OTLP metrics and pushes them on a timer. */
export class OtelPusher {
  #s: OtelSettings;
  #url: string;
  #warn: (line: string) => void;
  #duration = new Histogram(DURATION_BOUNDS);
  #ttft = new Histogram(CHUNK_BOUNDS);
  #itl = new Histogram(CHUNK_BOUNDS);
  #tokens = new Histogram(TOKEN_BOUNDS);
  #counts = { sent: 0, completed: 0, errors: 0, cancelled: 0 };
  #startNs = 0n;
  #timer: ReturnType<typeof setInterval> | undefined;
  #inFlight: Promise<void> = Promise.resolve();
  #failed = false;
  /** Pushes made (answered with a 2xx). */
  pushes = 0;

  #headers: Record<string, string> = { "content-type": "application/json" };

  constructor(settings: OtelSettings, warn: (line: string) => void) {
    this.#s = settings;
    // Credentials in the URL become a Basic header and never show in a message.
    const u = new URL(otlpMetricsUrl(settings.url));
    if (u.username !== "" || u.password !== "") {
      const user = decodeURIComponent(u.username);
      const pass = decodeURIComponent(u.password);
      this.#headers.authorization = `Basic ${btoa(`${user}:${pass}`)}`;
      u.username = "";
      u.password = "";
    }
    this.#url = u.toString();
    this.#warn = warn;
  }

  /** Starts the timer of pushes. */
  start(): void {
    this.#startNs = BigInt(Date.now()) * 1_000_000n;
    this.#timer = setInterval(() => this.#push(), this.#s.intervalMs ?? 1000);
  }

  /**
   * Folds a measured request in (profiling's only: warmup stays apart), from the values the
   * run's own metrics have: latency, TTFT, ITL and token counts.
   */
  add(r: RequestRecord, values: RecordValues): void {
    if (r.phase !== "profiling") return;
    const base: Record<string, string> = {
      "gen_ai.operation.name": this.#s.operation,
      "gen_ai.request.model": this.#s.model,
    };
    if (this.#s.provider) base["gen_ai.provider.name"] = this.#s.provider;
    this.#counts.sent++;
    if (r.cancelled) this.#counts.cancelled++;
    const failed = r.error !== null || r.cancelled;
    if (failed) this.#counts.errors++;
    else this.#counts.completed++;
    const attrs = failed ? { ...base, "error.type": errorType(r) } : base;
    const num = (i: number) => {
      const v = i >= 0 ? values[i] : undefined;
      return typeof v === "number" && Number.isFinite(v) ? v : undefined;
    };
    this.#duration.record((num(AT.latency) ?? r.endNs) / 1e9, attrs);
    if (failed) return;
    const ttft = num(AT.ttft);
    if (ttft !== undefined) this.#ttft.record(ttft / 1e9, base);
    const itl = num(AT.itl);
    if (itl !== undefined) this.#itl.record(itl / 1e9, base);
    const isl = num(AT.isl);
    if (isl !== undefined) this.#tokens.record(isl, { ...base, "gen_ai.token.type": "input" });
    const osl = num(AT.osl);
    if (osl !== undefined) this.#tokens.record(osl, { ...base, "gen_ai.token.type": "output" });
  }

  /** Stops the timer and makes a last push with the final figures. */
  async stop(): Promise<void> {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#inFlight;
    this.#push();
    await this.#inFlight;
  }

  /** The OTLP JSON body of the figures now. */
  body(): Record<string, unknown> {
    const now = String(BigInt(Date.now()) * 1_000_000n);
    const start = String(this.#startNs);
    const hist = (name: string, unit: string, description: string, h: Histogram) => ({
      name,
      unit,
      description,
      histogram: {
        aggregationTemporality: 2,
        dataPoints: [...h.points.values()].map(({ attrs, h: p }) => ({
          attributes: Object.entries(attrs).map(([k, v]) => attr(k, v)),
          startTimeUnixNano: start,
          timeUnixNano: now,
          count: String(p.count),
          sum: p.sum,
          min: p.min,
          max: p.max,
          bucketCounts: p.buckets.map(String),
          explicitBounds: h.bounds,
        })),
      },
    });
    const counter = (name: string, value: number) => ({
      name,
      unit: "{request}",
      sum: {
        aggregationTemporality: 2,
        isMonotonic: true,
        dataPoints: [{
          attributes: [attr("gen_ai.request.model", this.#s.model)],
          startTimeUnixNano: start,
          timeUnixNano: now,
          asInt: String(value),
        }],
      },
    });
    const metrics: unknown[] = [];
    if (this.#s.stream !== "timing") {
      metrics.push(
        hist("gen_ai.client.operation.duration", "s", "End-to-end request latency", this.#duration),
        hist("gen_ai.client.operation.time_to_first_chunk", "s", "Time to first token", this.#ttft),
        hist(
          "gen_ai.client.operation.time_per_output_chunk",
          "s",
          "Inter-token latency",
          this.#itl,
        ),
        hist("gen_ai.client.token.usage", "{token}", "Tokens per request", this.#tokens),
      );
    }
    if (this.#s.stream !== "metrics") {
      const c = this.#counts;
      metrics.push(
        counter("aiperf.timing.requests.sent", c.sent),
        counter("aiperf.timing.requests.completed", c.completed),
        counter("aiperf.timing.requests.errors", c.errors),
        counter("aiperf.timing.requests.cancelled", c.cancelled),
      );
    }
    const resource = [
      attr("service.name", "reprise"),
      attr("service.version", this.#s.version),
      attr("aiperf.benchmark_id", this.#s.benchmarkId),
      ...this.#s.resourceAttributes.map((kv) => {
        const i = kv.search(/[=:]/);
        return attr(kv.slice(0, i), kv.slice(i + 1));
      }),
    ];
    return {
      resourceMetrics: [{
        resource: { attributes: resource },
        scopeMetrics: [{ scope: { name: "reprise", version: this.#s.version }, metrics }],
      }],
    };
  }

  #push(): void {
    if (this.#failed) return;
    this.#inFlight = this.#inFlight.then(async () => {
      if (this.#failed) return;
      try {
        const res = await fetch(this.#url, {
          method: "POST",
          headers: this.#headers,
          body: JSON.stringify(this.body()),
          signal: AbortSignal.timeout(5000),
        });
        await res.body?.cancel();
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        this.pushes++;
      } catch (e) {
        this.#failed = true;
        this.#warn(
          `warning: the OpenTelemetry collector at ${this.#url} could not take the metrics (${
            (e as Error).message.split("\n")[0]
          }); not pushing to it`,
        );
      }
    });
  }
}
