/** `reprise report <artifact dir> [<artifact dir> …] [--output report.html]`. */

import { reportOptions } from "../config/options.ts";
import { ConfigError, parseOptions } from "../config/parse.ts";
import { RunDataError } from "../report/run_data.ts";
import { writeReport } from "../report/write.ts";
import { ExitCode } from "./exit_codes.ts";
import { renderHelp } from "./help.ts";
import type { Io } from "./io.ts";

/** The `report` help text. */
export function reportHelp(): string {
  return renderHelp(
    "reprise report <artifact dir> [<artifact dir> …] [options]",
    "Write one self-contained HTML report (charts, summary tables) of one or more runs; with two or more, the runs side by side with their differences against the first.\n" +
      "Over sweep, repeated-run or search directories (docs/sweeps.md): throughput against TTFT, ITL and per-user\n" +
      "interactivity with each point's confidence interval and the SLO line, the Pareto front, and each search's path.",
    reportOptions,
  );
}

/** Runs `reprise report`; returns the exit code. */
export async function reportCommand(args: string[], io: Io): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(reportHelp());
    return ExitCode.OK;
  }
  const parsed = parseOptions(reportOptions, args, io.env);
  if (parsed.positionals.length === 0) {
    throw new ConfigError(
      "report needs at least one artifact directory (a run's folder holding profile_export_aiperf.json)",
    );
  }
  try {
    // Sweep, repeated-run and search directories get the capacity charts (report/sweep_report.ts).
    const sweeps = await import("../report/sweep_write.ts");
    const out = await sweeps.isSweepReport(parsed.positionals)
      ? await sweeps.writeSweepReport(parsed.positionals, parsed.values.output, parsed.values)
      : await writeReport(parsed.positionals, parsed.values.output);
    io.stderr(`report: ${out}\n`);
    return ExitCode.OK;
  } catch (e) {
    if (!(e instanceof RunDataError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return ExitCode.BAD_DATASET;
  }
}
