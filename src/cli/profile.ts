/**
 * `reprise profile`: dataset → load → records → metrics → artifacts, with a progress display and
 * Ctrl+C handling. Each stage lives in its own folder; this file only wires them together.
 */

import { renderHelp } from "./help.ts";
import { profileOptions } from "../config/options.ts";
import { ConfigError } from "../config/parse.ts";
import { parseWithConfigFile, yamlPathsOf } from "../config/file.ts";
import { ExitCode, signalExitCode } from "./exit_codes.ts";
import { type Io, stopSignal } from "./io.ts";
import { planStep, runBenchmark } from "./run.ts";
import { awaitModel, runInputFor } from "./run_input.ts";
import { findSweep, variationArgs } from "../sweep/expand.ts";

/** The `profile` help text. */
export function profileHelp(): string {
  return renderHelp(
    "reprise profile [options]",
    "Replay a dataset against an inference server at a chosen load; report latency and throughput.",
    profileOptions,
    yamlPathsOf,
  );
}

/** Runs `reprise profile`; returns the exit code. */
export async function profileCommand(args: string[], io: Io): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(profileHelp());
    return ExitCode.OK;
  }
  // A sweepable flag given a list (`--concurrency 1,2,4`) makes a sweep: the first variation's
  // command line is parsed here, every other one by the sweep before its first run.
  const sweep = findSweep(args, profileOptions);
  const firstArgs = sweep.axes.length > 0 ? variationArgs(sweep, sweep.axes.map(() => 0)) : args;
  const parsed = await parseWithConfigFile(profileOptions, firstArgs, io.env);
  if (parsed.positionals.length > 0) {
    throw new ConfigError(
      `unexpected argument "${parsed.positionals[0]}" (options start with --; see --help)`,
    );
  }
  // Until the artifact directory exists a signal has nothing to keep: it ends the command now.
  io.exitOnSignal?.(true);
  const v = parsed.values;
  if (v.searchRecipe !== undefined) {
    return await (await import("./search.ts")).searchCommand(sweep, parsed, io);
  }
  if (sweep.axes.length > 0 || v.numProfileRuns > 1) {
    return await (await import("./sweep.ts")).sweepCommand(sweep, parsed, io);
  }
  const input = await runInputFor(v, parsed.given as ReadonlySet<string>, args, io);
  if (typeof input === "number") return input;
  // Every config error surfaces here, before anything is sent or created.
  const planned = await planStep(input);
  if (io.signal?.aborted) return signalExitCode(stopSignal(io));
  const waited = await awaitModel(input);
  if (waited !== null) return waited;
  return await runBenchmark(input, planned);
}
