/**
 * The server's latest scraped values on the live `/metrics`, under reprise's names so that they
 * never clash with the server's own families when one Prometheus scrapes both:
 * `reprise_server_{metric}` (a gauge's value, a counter's total), and for histograms and
 * summaries `reprise_server_{metric}_count` and `reprise_server_{metric}_avg` (the mean
 * observation between the last two scrapes). Each sample has the run's labels, `endpoint_url`,
 * and the server's own labels (prefixed `server_` where a name is the run's).
 */

import type { ServerValue } from "../observe/series.ts";
import { escapeLabelValue, formatValue, sanitizeName } from "./prometheus.ts";

function labelText(pairs: Record<string, string>): string {
  return `{${Object.entries(pairs).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(",")}}`;
}

/** The exposition text of the latest server values; empty when there are none. */
export function formatServerValues(values: ServerValue[], base: Record<string, string>): string {
  const families = new Map<string, { type: string; help: string; lines: string[] }>();
  const add = (name: string, type: string, help: string, v: ServerValue, value: number) => {
    let f = families.get(name);
    if (!f) families.set(name, f = { type, help, lines: [] });
    const labels: Record<string, string> = { ...base, endpoint_url: v.source };
    for (const [k, lv] of Object.entries(v.labels ?? {})) {
      const key = sanitizeName(k);
      labels[key in labels ? `server_${key}` : key] = lv;
    }
    f.lines.push(`${name}${labelText(labels)} ${formatValue(value)}`);
  };
  for (const v of values) {
    const name = `reprise_server_${sanitizeName(v.metric)}`;
    const from = `${v.metric} as last scraped from the server`;
    if (v.type === "histogram" || v.type === "summary") {
      if (v.value !== null) add(`${name}_count`, "counter", `${from}: observations`, v, v.value);
      if (typeof v.avg === "number") {
        add(`${name}_avg`, "gauge", `${from}: mean observation since the scrape before`, v, v.avg);
      }
    } else if (v.value !== null && v.type === "counter") {
      // Scraped counter names come without `_total`; Prometheus' convention puts it back.
      add(name.endsWith("_total") ? name : `${name}_total`, "counter", from, v, v.value);
    } else if (v.value !== null) {
      add(name, "gauge", from, v, v.value);
    }
  }
  const out: string[] = [];
  for (const [name, f] of families) {
    out.push(`# HELP ${name} ${f.help}`, `# TYPE ${name} ${f.type}`, ...f.lines);
  }
  return out.length ? out.join("\n") + "\n" : "";
}
