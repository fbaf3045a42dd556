/** Reads one run's artifact directory back: the summary and the per-request points. */

import { basename, join } from "node:path";
import { loadServerData, type ServerData } from "./server_data.ts";
import { readTextIfExists } from "../util/files.ts";

/** A metric's stats block as written in `profile_export_aiperf.json`. */
export type MetricBlock = { unit: string } & Record<string, number | string | null>;

/** One request, reduced to what the charts draw (times in ms, offsets from the run's start). */
export interface RequestPoint {
  /** Request start, seconds after the first request's start. */
  startS: number;
  /** Request end, seconds after the first request's start. */
  endS: number;
  ttft?: number;
  itl?: number;
  latency?: number;
  /** Output tokens (OSL). */
  osl?: number;
  error: boolean;
}

/** A run read from its artifact directory. */
export interface RunData {
  /** Label: the directory's name. */
  name: string;
  dir: string;
  /** Metric blocks by tag (keys that are not metrics left out). */
  metrics: Record<string, MetricBlock>;
  /** Everything else of the summary (benchmark_id, start_time, input_config, …). */
  info: Record<string, unknown>;
  /** Per-request points, in start order; empty when `profile_export.jsonl` is absent. */
  points: RequestPoint[];
  /** Epoch ns of the first request's start (the charts' zero); null without points. */
  startNs?: number | null;
  /** The server's scraped metrics; null or absent when the run has none. */
  server?: ServerData | null;
}

/** A run directory that cannot be read; the message names the file and what was expected. */
export class RunDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RunDataError";
  }
}

function isBlock(v: unknown): v is MetricBlock {
  return typeof v === "object" && v !== null && !Array.isArray(v) &&
    typeof (v as { unit?: unknown }).unit === "string";
}

function metricValue(metrics: Record<string, unknown>, tag: string): number | undefined {
  const m = metrics[tag] as { value?: unknown } | undefined;
  return typeof m?.value === "number" ? m.value : undefined;
}

/** Parses `profile_export.jsonl` text into points; `file` names it in errors. */
export function parsePoints(text: string, file: string): RequestPoint[] {
  return parseRequests(text, file).points;
}

/** The points of `profile_export.jsonl` and the epoch ns they count from (the first start). */
export function parseRequests(
  text: string,
  file: string,
): { points: RequestPoint[]; startNs: number | null } {
  const raw: { start: number; end: number; p: Omit<RequestPoint, "startS" | "endS"> }[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    let rec: {
      metadata?: Record<string, unknown>;
      metrics?: Record<string, unknown>;
      error?: unknown;
    };
    try {
      rec = JSON.parse(line);
    } catch {
      throw new RunDataError(`Cannot read "${file}": line ${i + 1} is not valid JSON`);
    }
    const start = rec.metadata?.request_start_ns;
    const end = rec.metadata?.request_end_ns;
    if (typeof start !== "number" || typeof end !== "number") {
      throw new RunDataError(
        `Cannot read "${file}": line ${
          i + 1
        } has no metadata.request_start_ns/request_end_ns numbers`,
      );
    }
    // A failed or partial run may also have been phase-tagged: only profiling requests count.
    if (rec.metadata?.benchmark_phase === "warmup") continue;
    const metrics = rec.metrics ?? {};
    raw.push({
      start,
      end,
      p: {
        ttft: metricValue(metrics, "time_to_first_token"),
        itl: metricValue(metrics, "inter_token_latency"),
        latency: metricValue(metrics, "request_latency"),
        osl: metricValue(metrics, "output_sequence_length"),
        error: rec.error !== null && rec.error !== undefined,
      },
    });
  }
  if (raw.length === 0) return { points: [], startNs: null };
  raw.sort((a, b) => a.start - b.start);
  const t0 = raw[0].start;
  return {
    points: raw.map((r) => ({ startS: (r.start - t0) / 1e9, endS: (r.end - t0) / 1e9, ...r.p })),
    startNs: t0,
  };
}

/**
 * The name the run's exports share: `profile_export_aiperf`, else the `--profile-export-prefix`
 * the run was given (the one `<name>.json` beside a `<name>.csv`); null when there is none.
 */
async function summaryName(dir: string): Promise<string | null> {
  const names = new Set<string>();
  try {
    for await (const e of Deno.readDir(dir)) if (e.isFile) names.add(e.name);
  } catch {
    return null;
  }
  if (names.has("profile_export_aiperf.json")) return "profile_export_aiperf";
  // The server's metrics (server_metrics_export, <prefix>_server_metrics) are not the summary.
  const prefixed = [...names].filter((n) => n.endsWith(".json") && !/server_metrics/.test(n))
    .map((n) => n.slice(0, -5)).filter((n) => names.has(`${n}.csv`));
  return prefixed.length === 1 ? prefixed[0] : null;
}

/**
 * Reads a run directory: `profile_export_aiperf.json` (required) and `profile_export.jsonl`, or
 * the same exports named after the run's `--profile-export-prefix`.
 */
export async function loadRun(dir: string): Promise<RunData> {
  const name = await summaryName(dir);
  const summaryPath = join(dir, `${name ?? "profile_export_aiperf"}.json`);
  const text = await readTextIfExists(summaryPath);
  if (text === null) {
    throw new RunDataError(
      `"${dir}" is not a run's artifact directory: it has no profile_export_aiperf.json`,
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new RunDataError(
      `Cannot read "${summaryPath}": not valid JSON (${(e as Error).message})`,
    );
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    throw new RunDataError(`Cannot read "${summaryPath}": expected a JSON object`);
  }
  const metrics: Record<string, MetricBlock> = {};
  const info: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) {
    if (isBlock(v) && k !== "input_config") metrics[k] = v;
    else info[k] = v;
  }
  const jsonlPath = join(
    dir,
    name === null || name === "profile_export_aiperf" ? "profile_export.jsonl" : `${name}.jsonl`,
  );
  const jsonl = await readTextIfExists(jsonlPath);
  const requests = jsonl === null ? null : parseRequests(jsonl, jsonlPath);
  return {
    name: basename(dir.replace(/[\\/]+$/, "")) || dir,
    dir,
    metrics,
    info,
    points: requests?.points ?? [],
    startNs: requests?.startNs ?? null,
    server: await loadServerData(dir, name, (m) => new RunDataError(m)),
  };
}
