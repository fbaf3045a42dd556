/**
 * GPU telemetry from DCGM exporters, as AIPerf collects it: the exporters' `/metrics` scraped on
 * the main thread's timer (the defaults `localhost:9400` and `:9401` skipped in silence when
 * absent), each scrape turned into one record per GPU with AIPerf's `nvidia_*` fields, written
 * to `gpu_telemetry_export.jsonl`, and summarised per GPU over the profiling phase into the
 * summary's `telemetry_data`.
 */

import { isoUtc } from "../record/clock.ts";
import { DCGM_FIELDS, type DcgmField, DEFAULT_DCGM_URLS, gpuSamples } from "./dcgm.ts";
import type { GpuSample } from "./dcgm.ts";
import { profileWindow } from "./export.ts";
import { metricsUrl, type Snapshot } from "./scraper.ts";
import { ServerMetricsScraper } from "./scraper.ts";

/** What `--gpu-telemetry` asked for. */
export interface GpuTelemetrySettings {
  /** Exporter URLs given, beside the defaults. */
  urls: string[];
  /** Fields a custom CSV added (by DCGM field). */
  customFields: Record<string, DcgmField>;
  /** The flag was given: the console shows the GPU table. */
  show: boolean;
}

/**
 * Reads `--gpu-telemetry`'s values: URLs (`host:port` gets `http://` and `/metrics`), one CSV of
 * custom fields (read by `readCsv`), and `dashboard` (the live view; accepted, the console table is
 * shown). Throws on `pynvml` and `amdsmi` (no local GPU library in reprise) and on a bad CSV.
 */
export function gpuTelemetrySettings(
  values: readonly string[] | undefined,
  readCsv: (path: string) => string,
  parseCsv: (text: string) => Record<string, DcgmField>,
): GpuTelemetrySettings {
  const urls: string[] = [];
  let customFields: Record<string, DcgmField> = {};
  for (const v of values ?? []) {
    if (v === "dashboard") continue;
    if (v === "pynvml" || v === "amdsmi") {
      throw new Error(`--gpu-telemetry ${v} is not supported yet: give DCGM exporter URLs`);
    }
    if (/\.csv$/i.test(v)) {
      try {
        customFields = { ...customFields, ...parseCsv(readCsv(v)) };
      } catch (e) {
        throw new Error(`--gpu-telemetry ${v}: ${(e as Error).message}`);
      }
      continue;
    }
    urls.push(metricsUrl(v));
  }
  return { urls, customFields, show: values !== undefined };
}

/** Scrapes the DCGM exporters and keeps their samples. */
export class GpuTelemetry {
  readonly scraper: ServerMetricsScraper;
  readonly fields: Record<string, DcgmField>;
  readonly show: boolean;

  /**
   * `defaults`: the exporters tried on chance (AIPerf's two; the caller leaves out those a proxy
   * would be asked for: they are this machine's).
   */
  constructor(
    settings: GpuTelemetrySettings,
    warn: (line: string) => void,
    defaults: readonly string[] = DEFAULT_DCGM_URLS,
  ) {
    const urls = [...new Set([...defaults, ...settings.urls])];
    const given = new Set(settings.urls);
    this.scraper = new ServerMetricsScraper(urls, warn, {
      quiet: new Set(defaults.filter((u) => !given.has(u))),
      what: "GPU telemetry",
      prometheusFallback: false,
    });
    this.fields = { ...DCGM_FIELDS, ...settings.customFields };
    this.show = settings.show;
  }

  /** The fields shown and summarised: the core ones and those a custom CSV named. */
  get shownFields(): DcgmField[] {
    return Object.values(this.fields).filter((f) => f.core);
  }

  /** The scrapes of one endpoint as GPU samples, in time order. */
  samples(snapshots: Snapshot[]): { tNs: bigint; gpus: GpuSample[] }[] {
    return snapshots.map((s) => ({ tNs: s.tNs, gpus: gpuSamples(s.families, this.fields) }));
  }
}

/** `host:port` of an exporter URL: how AIPerf keys its endpoints. */
function hostKey(url: string): string {
  return new URL(url).host;
}

/** The text of `gpu_telemetry_export.jsonl`: one line per GPU per scrape (warmup included). */
export function gpuTelemetryJsonl(t: GpuTelemetry): string {
  const lines: [bigint, string][] = [];
  for (const e of t.scraper.active) {
    for (const { tNs, gpus } of t.samples(e.snapshots)) {
      for (const g of gpus) {
        const { values, ...id } = g;
        lines.push([
          tNs,
          `{"timestamp_ns":${tNs},"dcgm_url":${JSON.stringify(e.url)},` +
          JSON.stringify({ ...id, telemetry_data: values }).slice(1),
        ]);
      }
    }
  }
  lines.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return lines.map(([, l]) => l + "\n").join("");
}

const PCTS = [1, 5, 10, 25, 50, 75, 90, 95, 99];

/** AIPerf's GPU statistics of a field: linear percentiles and the sample std (ddof 1). */
export function fieldStats(values: number[]): Record<string, number> {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const avg = sorted.reduce((a, b) => a + b, 0) / n;
  const std = n > 1 ? Math.sqrt(sorted.reduce((a, v) => a + (v - avg) ** 2, 0) / (n - 1)) : 0;
  const out: Record<string, number> = { avg, min: sorted[0], max: sorted[n - 1] };
  for (const p of PCTS) {
    const pos = (n - 1) * p / 100;
    const lo = Math.floor(pos);
    const hi = Math.ceil(pos);
    out[`p${p}`] = sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
  }
  out.std = std;
  out.count = n;
  return out;
}

/** One GPU's samples over the profiling phase, per field. */
interface GpuWindow {
  endpoint: string;
  id: Omit<GpuSample, "values">;
  series: Map<string, number[]>;
}

/** Every GPU of every endpoint, its fields' values over the profiling phase. */
export function gpuWindows(t: GpuTelemetry): GpuWindow[] {
  const out = new Map<string, GpuWindow>();
  const s = t.scraper;
  for (const e of s.active) {
    const window = profileWindow(e.snapshots, s.profileStartNs, s.profileEndNs);
    for (const { gpus } of t.samples(window)) {
      for (const g of gpus) {
        const key = `${e.url}|${g.gpu_uuid}|${g.gpu_index}`;
        const { values, ...id } = g;
        let w = out.get(key);
        if (!w) out.set(key, w = { endpoint: e.url, id, series: new Map() });
        for (const [name, v] of Object.entries(values)) {
          let list = w.series.get(name);
          if (!list) w.series.set(name, list = []);
          list.push(v);
        }
      }
    }
  }
  return [...out.values()];
}

/** The summary's `telemetry_data`, AIPerf's layout: endpoints by `host:port`, GPUs as `gpu_N`. */
export function telemetryData(t: GpuTelemetry): Record<string, unknown> {
  const s = t.scraper;
  const units = new Map(Object.values(t.fields).map((f) => [f.name, f]));
  const endpoints: Record<string, { gpus: Record<string, unknown> }> = {};
  for (const w of gpuWindows(t)) {
    const metrics: Record<string, unknown> = {};
    for (const [name, values] of w.series) {
      const field = units.get(name);
      const stats: Record<string, number | string> = { unit: field?.unit ?? "" };
      Object.assign(stats, fieldStats(values));
      // A running total's increase over the phase is what it measured.
      if (field?.counter) stats.total = Math.max(0, values[values.length - 1] - values[0]);
      metrics[name] = stats;
    }
    const host = hostKey(w.endpoint);
    (endpoints[host] ??= { gpus: {} }).gpus[`gpu_${w.id.gpu_index}`] = {
      gpu_index: w.id.gpu_index,
      gpu_name: w.id.gpu_model_name,
      gpu_uuid: w.id.gpu_uuid,
      hostname: w.id.hostname,
      platform: "nvidia",
      metrics,
    };
  }
  return {
    summary: {
      endpoints_configured: s.endpoints.filter((e) => e.ok || !isQuietMiss(t, e.url)).map((e) =>
        e.url
      ),
      endpoints_successful: s.active.map((e) => e.url),
      start_time: isoUtc(s.profileStartNs ?? s.startNs),
      end_time: isoUtc(s.profileEndNs ?? s.endNs),
    },
    endpoints,
  };
}

/** A default exporter that did not answer: tried on chance, not configured. */
function isQuietMiss(t: GpuTelemetry, url: string): boolean {
  return DEFAULT_DCGM_URLS.includes(url) && !t.scraper.active.some((e) => e.url === url);
}

/** The console's GPU table: one block per GPU, a row per field shown. */
export function gpuTelemetryTable(t: GpuTelemetry): string {
  const s = t.scraper;
  const shown = t.shownFields;
  const configured = s.endpoints.filter((e) => e.ok || !isQuietMiss(t, e.url)).length;
  const lines = [
    "GPU Telemetry Summary",
    `${s.active.length}/${configured} DCGM endpoints reachable`,
  ];
  for (const w of gpuWindows(t)) {
    lines.push("");
    lines.push(`${hostKey(w.endpoint)} | GPU ${w.id.gpu_index} | ${w.id.gpu_model_name}`);
    const rows: string[][] = [["Metric", "avg", "min", "max", "p99", "p90", "p50", "std"]];
    for (const f of shown) {
      const values = w.series.get(f.name);
      if (!values) continue;
      const st = fieldStats(values);
      rows.push([
        `${f.header} (${f.unit})`,
        ...["avg", "min", "max", "p99", "p90", "p50", "std"].map((k) => st[k].toFixed(2)),
      ]);
    }
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    for (const r of rows) lines.push(r.map((c, i) => c.padStart(widths[i])).join("  "));
  }
  return lines.join("\n") + "\n";
}
