/**
 * `server_metrics_export.jsonl`, AIPerf's time series of the server's metrics: one line per
 * scrape of every endpoint (warmup's included), each family's series with their raw values.
 */

import type { Family } from "./prometheus.ts";
import type { EndpointScrapes } from "./scraper.ts";

/** One family's series as AIPerf's JSONL writes them. */
function familyJson(f: Family): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const s of f.series.values()) {
    const item: Record<string, unknown> = {};
    if (Object.keys(s.labels).length > 0) item.labels = s.labels;
    if (f.type === "histogram") {
      item.buckets = Object.fromEntries(s.buckets ?? []);
      item.sum = s.sum ?? 0;
      item.count = s.count ?? 0;
    } else if (f.type === "summary") {
      item.quantiles = s.quantiles ?? {};
      item.sum = s.sum ?? 0;
      item.count = s.count ?? 0;
    } else item.value = s.value ?? 0;
    out.push(item);
  }
  return out;
}

/**
 * The JSONL text of every scrape, in time order. Nanosecond times are written as exact integers
 * (they do not fit a double).
 */
export function serverMetricsJsonl(endpoints: EndpointScrapes[]): string {
  const lines: [bigint, string][] = [];
  for (const e of endpoints) {
    if (!e.ok) continue;
    for (const snap of e.snapshots) {
      const metrics: Record<string, unknown> = {};
      for (const [name, f] of snap.families) metrics[name] = familyJson(f);
      lines.push([
        snap.tNs,
        `{"endpoint_url":${JSON.stringify(e.url)},"timestamp_ns":${snap.tNs},` +
        `"endpoint_latency_ns":${snap.tNs - snap.sentNs},"metrics":${JSON.stringify(metrics)},` +
        `"request_sent_ns":${snap.sentNs},"first_byte_ns":${snap.tNs}}`,
      ]);
    }
  }
  lines.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return lines.map(([, l]) => l + "\n").join("");
}
