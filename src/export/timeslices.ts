/** `profile_export_aiperf_timeslices.{json,csv}`: per-window metrics of `--slice-duration`. */

import type { Timeslice } from "../metrics/timeslices.ts";
import { STAT_KEYS } from "../metrics/summary.ts";
import { writeArtifact } from "./artifact.ts";
import { fixed2 } from "./format.ts";
import { metricBlock } from "./summary_json.ts";

/** Quotes a CSV field when it needs it (RFC 4180). */
function field(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/**
 * The JSON text: `{timeslices: [{timeslice_index, start_ns, end_ns, <tag>: {unit, avg, …}}],
 * input_config}`, as AIPerf's `TimesliceCollectionExportData`.
 */
export function timeslicesJson(slices: Timeslice[], inputConfig: Record<string, unknown>): string {
  const parts = slices.map((s) => {
    const doc: Record<string, unknown> = { timeslice_index: s.index };
    for (const m of s.summary.metrics) doc[m.tag] = metricBlock(m);
    // start_ns/end_ns exceed what a double holds exactly: written as raw integer digits.
    const body = JSON.stringify(doc, null, 2).slice(1).trimStart();
    return `{\n  "start_ns": ${s.startNs},\n  "end_ns": ${s.endNs},\n  ${body}`;
  });
  const indented = parts.map((p) => p.replaceAll("\n", "\n    ")).join(",\n    ");
  return `{\n  "timeslices": [${parts.length ? `\n    ${indented}\n  ` : ""}],\n  "input_config": ${
    JSON.stringify(inputConfig, null, 2).replaceAll("\n", "\n  ")
  }\n}\n`;
}

/** The CSV text: `Timeslice,Metric,Unit,Stat,Value`, one row per statistic, CRLF line ends. */
export function timeslicesCsv(slices: Timeslice[]): string {
  const lines = ["Timeslice,Metric,Unit,Stat,Value"];
  for (const s of slices) {
    for (const m of s.summary.metrics) {
      for (const k of STAT_KEYS) {
        const v = m[k];
        if (v === undefined) continue;
        lines.push([s.index, field(m.header), field(m.unit), k, fixed2(v)].join(","));
      }
    }
  }
  return lines.join("\r\n") + "\r\n";
}

/** Writes both timeslice files beside the summary (`<dir>/profile_export_aiperf_timeslices.*`). */
export async function writeTimeslices(
  dir: string,
  slices: Timeslice[],
  inputConfig: Record<string, unknown>,
  name = "profile_export_aiperf_timeslices",
): Promise<void> {
  const base = `${dir}/${name}`;
  await writeArtifact(`${base}.json`, timeslicesJson(slices, inputConfig));
  await writeArtifact(`${base}.csv`, timeslicesCsv(slices));
}
