/** Writes the report of sweep, repeated-run or search directories. */

import { writeArtifact } from "../export/artifact.ts";
import { loadSweep, sweepDirOf, uniqueNames } from "./sweep_data.ts";
import { renderSweepReport, type SweepReportOptions } from "./sweep_report.ts";

/** Whether the directories are sweeps (each holds an aggregate), so the sweep report applies. */
export async function isSweepReport(dirs: readonly string[]): Promise<boolean> {
  for (const d of dirs) if (await sweepDirOf(d) === null) return false;
  return dirs.length > 0;
}

/** Reads each sweep, writes the report to `out`, and returns `out`. */
export async function writeSweepReport(
  dirs: readonly string[],
  out: string,
  opts: SweepReportOptions = {},
): Promise<string> {
  const sweeps = [];
  for (const d of dirs) sweeps.push(await loadSweep(d));
  uniqueNames(sweeps);
  await writeArtifact(out, renderSweepReport(sweeps, opts));
  return out;
}
