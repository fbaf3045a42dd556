/**
 * `reprise profile`: dataset → load → records → metrics → artifacts, with a progress display and
 * Ctrl+C handling. Each stage lives in its own folder; this file only wires them together.
 */

import { renderHelp } from "./help.ts";
import { type ProfileConfig, profileOptions } from "../config/options.ts";
import { ConfigError, parseOptions } from "../config/parse.ts";
import { redactedCommandLine } from "../config/redact.ts";
import { loadDataset } from "../dataset/mod.ts";
import { getEndpoint } from "../endpoints/mod.ts";
import { ExitCode } from "./exit_codes.ts";
import type { Io } from "./io.ts";
import { buildTarget } from "./target.ts";
import { runBenchmark } from "./run.ts";

/** The `profile` help text. */
export function profileHelp(): string {
  return renderHelp(
    "reprise profile [options]",
    "Replay a dataset against an inference server at a chosen load; report latency and throughput.",
    profileOptions,
  );
}

/** Runs `reprise profile`; returns the exit code. */
export async function profileCommand(args: string[], io: Io): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(profileHelp());
    return ExitCode.OK;
  }
  const parsed = parseOptions(profileOptions, args, io.env);
  if (parsed.positionals.length > 0) {
    throw new ConfigError(
      `unexpected argument "${parsed.positionals[0]}" (options start with --; see --help)`,
    );
  }
  const config: ProfileConfig = parsed.values;
  if (!config.inputFile) {
    throw new ConfigError("--input-file is required: the dataset file or directory to replay");
  }
  const endpoint = getEndpoint(config.endpointType);
  const dataset = await loadDataset(config.inputFile, { type: config.customDatasetType });
  const target = buildTarget(config, endpoint);
  return await runBenchmark({
    config,
    dataset,
    endpoint,
    target,
    cliCommand: redactedCommandLine(["profile", ...args]),
    io,
  });
}
