/** AIPerf's Server Metrics, GPU Telemetry and Network Latency options of `profile`. */

import { compat } from "./spec.ts";

const SERVER = "scraping the server's /metrics is not built yet";
const GPU = "GPU telemetry (DCGM, pynvml) is not collected yet";
const NET = "network latency probing is not built yet";

/**
 * AIPerf's telemetry options. AIPerf scrapes `<url>/metrics` by default; reprise does not yet,
 * so asking for it explicitly (`--server-metrics`) is refused, and turning it off is accepted.
 */
export const telemetryOptions = {
  serverMetrics: compat<string[]>({
    flag: "server-metrics",
    kind: "list",
    optionalValue: true,
    group: "Telemetry",
    help: "Scrape the server's Prometheus /metrics (and these URLs) during the run.",
    status: "not-yet",
    why: SERVER,
    // Absent stays absent: any use of the flag asks for scraping.
    noop: () => false,
  }),
  noServerMetrics: compat<boolean>({
    flag: "no-server-metrics",
    kind: "boolean",
    default: false,
    group: "Telemetry",
    help: "Do not scrape the server's /metrics.",
    status: "not-yet",
    why: SERVER,
    // Turning scraping off is what reprise does anyway.
    noop: () => true,
  }),
  serverMetricsFormats: compat<string[]>({
    flag: "server-metrics-formats",
    kind: "list",
    default: ["json", "csv"],
    group: "Telemetry",
    help: "Export formats of the scraped metrics: json, csv, jsonl, parquet.",
    status: "not-yet",
    why: SERVER,
    noop: (v) => v.join(",") === "json,csv" || v.join(" ") === "json csv",
  }),
  gpuTelemetry: compat<string[]>({
    flag: "gpu-telemetry",
    kind: "list",
    optionalValue: true,
    group: "Telemetry",
    help: "GPU telemetry source: pynvml, amdsmi, dashboard, DCGM URLs or a metrics CSV.",
    status: "not-yet",
    why: GPU,
    noop: () => false,
  }),
  noGpuTelemetry: compat<boolean>({
    flag: "no-gpu-telemetry",
    kind: "boolean",
    default: false,
    group: "Telemetry",
    help: "Do not collect GPU telemetry.",
    status: "not-yet",
    why: GPU,
    noop: () => true,
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
