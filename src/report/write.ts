/** Writes the HTML report of one or more run directories. */

import { writeArtifact } from "../export/artifact.ts";
import { renderReport } from "./html.ts";
import { loadRun } from "./run_data.ts";

/** Reads each run directory, writes the report to `out`, and returns `out`. */
export async function writeReport(dirs: string[], out: string): Promise<string> {
  const runs = [];
  for (const d of dirs) runs.push(await loadRun(d));
  await writeArtifact(out, renderReport(runs));
  return out;
}
