/**
 * Reads a sweep, repeated-runs or search directory back for the report: its aggregate points
 * (each configuration's mean and interval of every metric statistic) and its search history.
 */

import { basename, dirname, join } from "node:path";
import { AGGREGATE_JSON, SEARCH_HISTORY, SWEEP_JSON } from "../sweep/layout.ts";
import { RunDataError } from "./run_data.ts";

/** A statistic across runs, as the aggregates write it. */
export interface AggStat {
  mean: number;
  ci_low?: number;
  ci_high?: number;
  unit?: string;
}

/** One configuration of a sweep (or the one of repeated runs). */
export interface SweepPoint {
  parameters: Record<string, number | string>;
  runs: number | null;
  metrics: Record<string, AggStat>;
}

/** A sweep, repeated runs or a search, read from its directory. */
export interface SweepData {
  name: string;
  dir: string;
  kind: "sweep" | "runs" | "search";
  points: SweepPoint[];
  /** `search_history.json`, for a search. */
  search: Record<string, unknown> | null;
}

async function readJson(path: string): Promise<Record<string, unknown> | null> {
  try {
    return JSON.parse(await Deno.readTextFile(path));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    if (e instanceof SyntaxError) throw new RunDataError(`${path} is not valid JSON: ${e.message}`);
    throw e;
  }
}

/** Where a directory's aggregates are: the sweep aggregate, else the multi-run aggregate. */
const CANDIDATES = [
  join("aggregate", "sweep_aggregate", SWEEP_JSON),
  join("sweep_aggregate", SWEEP_JSON),
  join("aggregate", AGGREGATE_JSON),
];

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The sweep directory `dir` stands for: itself when it holds an aggregate, or its one child that
 * does (the `--artifact-dir` of a sweep); null when neither.
 */
export async function sweepDirOf(dir: string): Promise<string | null> {
  const holds = async (d: string) => {
    for (const c of CANDIDATES) if (await exists(join(d, c))) return true;
    return false;
  };
  if (await holds(dir)) return dir;
  const found: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory && await holds(join(dir, e.name))) found.push(join(dir, e.name));
    }
  } catch {
    return null;
  }
  return found.length === 1 ? found[0] : null;
}

/** Reads the sweep in `dir` (see {@link sweepDirOf}); a RunDataError when there is none. */
export async function loadSweep(dir: string): Promise<SweepData> {
  const at = await sweepDirOf(dir);
  if (at === null) {
    throw new RunDataError(
      `${dir} holds no sweep or multi-run aggregate (${CANDIDATES.join(", ")})`,
    );
  }
  const search = await readJson(join(at, SEARCH_HISTORY));
  const name = basename(at);
  for (const c of CANDIDATES.slice(0, 2)) {
    const sweep = await readJson(join(at, c));
    if (sweep === null) continue;
    const per = sweep.per_combination_metrics as {
      parameters: Record<string, number | string>;
      num_successful_runs?: number;
      metrics: Record<string, AggStat>;
    }[];
    const points = per.map((p) => ({
      parameters: p.parameters,
      runs: p.num_successful_runs ?? null,
      metrics: p.metrics,
    }));
    // A search's probes in order of load, as a sweep's are.
    if (search) {
      points.sort((a, b) => Number(a.parameters.concurrency) - Number(b.parameters.concurrency));
    }
    return { name, dir: at, kind: search ? "search" : "sweep", points, search };
  }
  const agg = (await readJson(join(at, CANDIDATES[2])))!;
  const meta = agg.metadata as { num_successful_runs?: number };
  return {
    name,
    dir: at,
    kind: "runs",
    points: [{
      parameters: {},
      runs: meta.num_successful_runs ?? null,
      metrics: agg.metrics as Record<string, AggStat>,
    }],
    search,
  };
}

/** Gives sweeps sharing a name their parent directory's name in front (`server-a/…-sweep`). */
export function uniqueNames(sweeps: SweepData[]): void {
  const shared = sweeps.map((s) => sweeps.filter((o) => o.name === s.name).length > 1);
  sweeps.forEach((s, i) => {
    if (shared[i]) s.name = `${basename(dirname(s.dir))}/${s.name}`;
  });
}
