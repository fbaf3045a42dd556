/** AIPerf's Server Metrics, GPU Telemetry and Network Latency options of `profile`. */

import { z } from "zod";
import { compat, opt } from "./spec.ts";

/** A list whose items may also be given as one comma list (`json,csv,jsonl`). */
const commaList = z.array(z.string()).transform((v) =>
  v.flatMap((x) => x.split(",")).map((x) => x.trim()).filter((x) => x !== "")
);

const NET = "network latency probing is not built yet";

/**
 * AIPerf's telemetry options. Like AIPerf, reprise scrapes `<url>/metrics` by default and the
 * DCGM exporters on `localhost:9400` and `:9401` when they answer, and pushes to an
 * OpenTelemetry collector when given one (src/observe/); network latency probing is not built.
 */
export const telemetryOptions = {
  serverMetrics: opt<string[]>({
    flag: "server-metrics",
    kind: "list",
    manyValues: true,
    schema: commaList,
    expect: "one or more URLs",
    metavar: "URL",
    optionalValue: true,
    group: "Telemetry",
    help:
      "Scrape the server's Prometheus /metrics (on by default: the target's /metrics) and these URLs during the run.",
  }),
  noServerMetrics: opt<boolean>({
    flag: "no-server-metrics",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Telemetry",
    help: "Do not scrape the server's /metrics.",
  }),
  serverMetricsFormats: opt<string[]>({
    flag: "server-metrics-formats",
    kind: "list",
    manyValues: true,
    schema: commaList,
    expect: "json, csv, jsonl or parquet",
    metavar: "FORMAT",
    default: ["json", "csv"],
    group: "Telemetry",
    help:
      "Export formats of the scraped metrics: json, csv, jsonl (every scrape, warmup included); parquet is not written.",
    check: (v) =>
      v.find((f) => !["json", "csv", "jsonl", "parquet"].includes(f)) === undefined
        ? undefined
        : "must be json, csv, jsonl or parquet",
  }),
  gpuTelemetry: opt<string[]>({
    flag: "gpu-telemetry",
    kind: "list",
    manyValues: true,
    schema: commaList,
    expect: "DCGM exporter URLs, a custom-fields CSV or dashboard",
    metavar: "URL|FILE.csv",
    optionalValue: true,
    group: "Telemetry",
    help:
      "Show GPU telemetry in the console and scrape these DCGM exporters too (localhost:9400 and :9401 are always tried); a .csv names DCGM fields to add, as dcgm-exporter reads them. pynvml and amdsmi are not supported.",
    check: (v) =>
      v.find((x) => x === "pynvml" || x === "amdsmi") === undefined
        ? undefined
        : "must be DCGM exporter URLs, a .csv or dashboard: pynvml and amdsmi are not supported yet",
  }),
  noGpuTelemetry: opt<boolean>({
    flag: "no-gpu-telemetry",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Telemetry",
    help: "Do not collect GPU telemetry (not even from the default DCGM exporters).",
  }),
  otelUrl: opt<string>({
    flag: "otel-url",
    kind: "string",
    schema: z.string().min(1),
    expect: "a host, host:port or URL",
    metavar: "URL",
    group: "Telemetry",
    help:
      "Push the run's metrics to this OpenTelemetry collector while it runs (OTLP/HTTP JSON, GenAI semantic conventions; port 4318 and /v1/metrics unless given).",
  }),
  stream: opt<string>({
    flag: "stream",
    kind: "string",
    schema: z.enum(["metrics", "timing", "default"]),
    expect: "metrics, timing or default",
    default: "default",
    group: "Telemetry",
    help:
      "What --otel-url receives: metrics (the GenAI histograms), timing (request counters) or default (both).",
  }),
  otelResourceAttributes: opt<string[]>({
    flag: "otel-resource-attributes",
    kind: "list",
    manyValues: true,
    schema: z.array(z.string()),
    expect: "key=value (or key:value) pairs",
    metavar: "K=V",
    group: "Telemetry",
    help: "Resource attributes added to what --otel-url receives.",
    check: (v) =>
      v.find((kv) => !/^[^=:]+[=:]/.test(kv)) === undefined ? undefined : "must be key=value pairs",
  }),
  genAiProvider: opt<string>({
    flag: "gen-ai-provider",
    kind: "string",
    schema: z.string().min(1),
    expect: "a provider name",
    group: "Telemetry",
    help:
      "gen_ai.provider.name of what --otel-url receives (inferred from well-known API hosts otherwise).",
  }),
  networkLatencyAutomatic: compat<boolean>({
    flag: "network-latency-automatic",
    kind: "boolean",
    default: false,
    group: "Telemetry",
    help: "Probe the TCP round trip and subtract it from latencies.",
    status: "not-yet",
    why: NET,
  }),
  networkLatencyMean: compat<number>({
    flag: "network-latency-mean",
    kind: "number",
    group: "Telemetry",
    help: "A known network latency (ms) to subtract.",
    status: "not-yet",
    why: NET,
  }),
  networkLatencyPingInterval: compat<number>({
    flag: "network-latency-ping-interval",
    kind: "number",
    default: 1.0,
    group: "Telemetry",
    help: "Seconds between latency probes.",
    status: "not-yet",
    why: NET,
  }),
} as const;
