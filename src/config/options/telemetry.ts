/** AIPerf's Server Metrics, GPU Telemetry and Network Latency options of `profile`. */

import { z } from "zod";
import { compat, opt } from "./spec.ts";

const GPU = "GPU telemetry (DCGM, pynvml) is not collected yet";
const NET = "network latency probing is not built yet";

/**
 * AIPerf's telemetry options. Like AIPerf, reprise scrapes `<url>/metrics` by default
 * (src/observe/); GPU telemetry and network latency probing are not built.
 */
export const telemetryOptions = {
  serverMetrics: opt<string[]>({
    flag: "server-metrics",
    kind: "list",
    schema: z.array(z.string()),
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
    schema: z.array(z.string()),
    expect: "json, csv, jsonl or parquet",
    metavar: "FORMAT",
    default: ["json", "csv"],
    group: "Telemetry",
    help: "Export formats of the scraped metrics: json, csv (jsonl and parquet are not written).",
    check: (v) =>
      v.find((f) => !["json", "csv", "jsonl", "parquet"].includes(f)) === undefined
        ? undefined
        : "must be json, csv, jsonl or parquet",
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
