/**
 * Everything a run watches beside its requests, in one place for the run's steps: the server's
 * `/metrics`, the DCGM exporters' GPU telemetry and the OpenTelemetry push. All of it runs on the
 * main thread's timers. Scraping starts with the first phase; the profiling phase is marked with
 * a scrape at each end, so that the exports' statistics leave warmup out while the time series
 * keep it.
 */

import type { ProfileConfig } from "../config/options.ts";
import { ConfigError } from "../config/parse.ts";
import type { MetricResult, Summary } from "../metrics/summary.ts";
import { join } from "node:path";
import { keyMetricsSection } from "./catalog.ts";
import { DEFAULT_DCGM_URLS, parseCustomFields } from "./dcgm.ts";
import { proxySettings, proxyUrlFor } from "../transport/proxy.ts";
import { readEnv } from "../util/env.ts";
import { energyMetrics, type RunFigures } from "./energy.ts";
import {
  aggregateMetrics,
  type ExportMetric,
  profileWindow,
  writeServerMetrics,
} from "./export.ts";
import {
  GpuTelemetry,
  gpuTelemetryJsonl,
  gpuTelemetrySettings,
  gpuTelemetryTable,
  telemetryData,
} from "./gpu_telemetry.ts";
import { inferProvider, OtelPusher } from "./otel.ts";
import { scrapeUrls, ServerMetricsScraper } from "./scraper.ts";

/** What the observers need of the run besides its options. */
export interface ObserveContext {
  baseUrl: string;
  model: string;
  benchmarkId: string;
  version: string;
  warn: (line: string) => void;
}

/** AIPerf's `gen_ai.operation.name` of an endpoint type. */
function operationName(endpointType: string): string {
  if (endpointType === "chat" || endpointType === "responses") return "chat";
  if (endpointType === "completions") return "text_completion";
  if (endpointType.includes("embeddings")) return "embeddings";
  return endpointType;
}

/** The server scraper, the GPU telemetry and the OpenTelemetry push of one run. */
export class RunObservers {
  readonly scraper: ServerMetricsScraper | null;
  readonly gpu: GpuTelemetry | null;
  readonly otel: OtelPusher | null;
  #started = false;

  /**
   * Reads the telemetry options; a bad `--gpu-telemetry` CSV is a `ConfigError`, raised before
   * anything is sent.
   */
  constructor(config: ProfileConfig, ctx: ObserveContext) {
    const urls = scrapeUrls(ctx.baseUrl, config.serverMetrics, config.noServerMetrics);
    this.scraper = urls.length === 0 ? null : new ServerMetricsScraper(urls, ctx.warn);
    if (this.scraper && config.serverMetricsFormats.includes("parquet")) {
      ctx.warn("warning: the parquet server-metrics export is not written (json, csv, jsonl are)");
    }
    let gpu: GpuTelemetry | null = null;
    if (!config.noGpuTelemetry) {
      try {
        // fetch would ask a proxy of the environment for this machine's exporters: not tried;
        // nor is a default port the run's own live API listens on (its /metrics is no exporter).
        const proxies = proxySettings(readEnv);
        const direct = DEFAULT_DCGM_URLS.filter((u) => {
          const x = new URL(u);
          return proxyUrlFor(proxies, x.protocol, x.hostname, Number(x.port)) === null &&
            Number(x.port) !== config.apiPort;
        });
        gpu = new GpuTelemetry(
          gpuTelemetrySettings(config.gpuTelemetry, Deno.readTextFileSync, parseCustomFields),
          ctx.warn,
          direct,
        );
      } catch (e) {
        throw new ConfigError((e as Error).message);
      }
    }
    this.gpu = gpu;
    this.otel = config.otelUrl === undefined ? null : new OtelPusher({
      url: config.otelUrl,
      stream: config.stream as "metrics" | "timing" | "default",
      resourceAttributes: config.otelResourceAttributes ?? [],
      provider: config.genAiProvider ?? inferProvider(new URL(ctx.baseUrl).hostname),
      model: ctx.model,
      operation: operationName(config.endpointType),
      benchmarkId: ctx.benchmarkId,
      version: ctx.version,
    }, ctx.warn);
  }

  /** A phase starts: scraping starts with the first; profiling is marked by a scrape. */
  async phaseStart(phase: string): Promise<void> {
    const scrapers = [this.scraper, this.gpu?.scraper].filter((s) => s != null);
    if (!this.#started) {
      this.#started = true;
      if (phase !== "profiling") await Promise.all(scrapers.map((s) => s.start()));
    }
    if (phase === "profiling") {
      await Promise.all(scrapers.map((s) => s.beginProfiling()));
      this.otel?.start();
    }
  }

  /** A phase ended: the end of profiling is marked by a last scrape of it. */
  async phaseEnd(phase: string): Promise<void> {
    if (phase !== "profiling") return;
    const scrapers = [this.scraper, this.gpu?.scraper].filter((s) => s != null);
    await Promise.all(scrapers.map((s) => s.endProfiling()));
    await this.otel?.stop();
  }

  /** Stops every timer (idempotent): after the phases, also when the run failed. */
  async stop(): Promise<void> {
    await Promise.all([this.scraper?.stop(), this.gpu?.scraper.stop(), this.otel?.stop()]);
  }

  /**
   * What the summary gains: the energy-efficiency metrics and `telemetry_data`, when a DCGM
   * exporter answered.
   */
  summaryExtras(summary: Summary, concurrency: number | undefined): {
    metrics: MetricResult[];
    sections: Record<string, unknown>;
  } {
    const gpu = this.gpu;
    if (gpu === null || gpu.scraper.active.length === 0) return { metrics: [], sections: {} };
    const avg = (tag: string) => summary.metrics.find((m) => m.tag === tag)?.avg;
    const figures: RunFigures = {
      durationS: avg("benchmark_duration") ?? 0,
      totalOsl: avg("total_osl"),
      totalIsl: avg("total_isl"),
      requestCount: avg("request_count"),
      requestLatencyMs: avg("request_latency"),
      requestThroughput: avg("request_throughput"),
      outputTokenThroughput: avg("output_token_throughput"),
      goodput: avg("goodput"),
      concurrency,
    };
    const metrics: MetricResult[] = energyMetrics(gpu, figures).map((m) => ({
      tag: m.tag,
      header: m.header,
      unit: m.unit,
      avg: m.value,
      kind: "derived",
      flags: [],
    }));
    return { metrics, sections: { telemetry_data: telemetryData(gpu) } };
  }

  /**
   * Writes the server metrics (the formats asked for) and `gpu_telemetry_export.jsonl`; returns
   * the console's sections: the server's key metrics, and the GPU table when
   * `--gpu-telemetry` was given.
   */
  async write(
    dir: string,
    config: ProfileConfig,
    run: { version: string; benchmarkId: string },
  ): Promise<string> {
    let text = "";
    if (this.scraper && this.scraper.active.length > 0) {
      await writeServerMetrics(dir, this.scraper, config.serverMetricsFormats, {
        ...run,
        prefix: config.profileExportPrefix,
      });
      const s = this.scraper;
      const metrics: Record<string, ExportMetric> = aggregateMetrics(
        s.endpoints,
        (snaps) => profileWindow(snaps, s.profileStartNs, s.profileEndNs),
      );
      text += keyMetricsSection(metrics);
    }
    if (this.gpu && this.gpu.scraper.active.length > 0) {
      await Deno.writeTextFile(
        join(dir, "gpu_telemetry_export.jsonl"),
        gpuTelemetryJsonl(this.gpu),
      );
      if (this.gpu.show) text += (text ? "\n" : "") + gpuTelemetryTable(this.gpu);
    }
    return text;
  }
}
