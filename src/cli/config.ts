/**
 * `reprise config expand|validate -f FILE`: check an AIPerf YAML config without running it, or
 * show what it resolves to. Both load the file exactly as `profile -f FILE` does (the same
 * substitution, shorthands, key table and option validation), so a file that validates here
 * starts a run, and one that fails here fails there with the same line.
 */

import { stringify } from "yaml";
import { renderHelp } from "./help.ts";
import { type OptionTable, profileOptions } from "../config/options.ts";
import { ConfigError, type Parsed } from "../config/parse.ts";
import { parseWithConfigFile, yamlPathsOf } from "../config/file.ts";
import { redactConfig, redactedCommandLine } from "../config/redact.ts";
import { ExitCode } from "./exit_codes.ts";
import type { Io } from "./io.ts";

const USAGE = `Usage: reprise config <expand|validate> -f FILE [profile options]

Commands:
  validate   Load FILE as \`profile -f FILE\` would; print "FILE: valid" and exit 0, or the one-line
             error and exit 2. Nothing is sent.
  expand     Print what FILE resolves to (after \${VAR:default} and {{ }} substitution, shorthands
             and the profile options given here): by default the equivalent \`reprise profile\`
             command line (the flags the file and the command line set); with --yaml, every
             option's resolved value, defaults included, as YAML keyed by flag name.

FILE may also be given as the only positional argument. Secrets are shown as <redacted>.
See docs/config-file.md for the keys reprise reads.
`;

/** The help of `reprise config`, with the profile options it accepts. */
export function configHelp(): string {
  return renderHelp(
    "reprise config <expand|validate> -f FILE [options]",
    USAGE.split("\n").slice(2).join("\n").trimEnd(),
    profileOptions,
    yamlPathsOf,
  );
}

async function load(args: string[], io: Io): Promise<Parsed<typeof profileOptions>> {
  // `reprise config validate bench.yaml`, as AIPerf spells it, is `-f bench.yaml`.
  const first = args.findIndex((a) => !a.startsWith("-"));
  const hasFlag = args.some((a) => a === "-f" || a === "--config" || a.startsWith("--config="));
  if (!hasFlag && first === 0) args = ["--config", args[0], ...args.slice(1)];
  const parsed = await parseWithConfigFile(profileOptions, args, io.env);
  if (parsed.values.config === undefined) {
    throw new ConfigError("reprise config needs a file: -f FILE (see reprise config --help)");
  }
  if (parsed.positionals.length > 0) {
    throw new ConfigError(`unexpected argument "${parsed.positionals[0]}" (see --help)`);
  }
  return parsed;
}

/** The flags equal to the set options (the config file's and the command line's). */
export function equivalentFlags(
  table: OptionTable,
  values: Record<string, unknown>,
  given: ReadonlySet<string>,
): string[] {
  const out: string[] = [];
  for (const [key, spec] of Object.entries(table)) {
    if (!given.has(key) || key === "config") continue;
    const v = values[key];
    if (v === undefined) continue;
    if (spec.kind === "boolean") out.push(v ? `--${spec.flag}` : `--no-${spec.flag}`);
    else if (Array.isArray(v)) { for (const x of v) out.push(`--${spec.flag}`, String(x)); }
    else out.push(`--${spec.flag}`, spec.secret ? "<redacted>" : String(v));
  }
  return out;
}

/** Runs `reprise config ...`; returns the exit code. */
export async function configCommand(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined) {
    io.stderr(`error: reprise config needs a command (expand or validate)\n\n${USAGE}`);
    return ExitCode.BAD_CONFIG;
  }
  if (sub === "--help" || sub === "-h" || sub === "help") {
    io.stdout(configHelp());
    return ExitCode.OK;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(configHelp());
    return ExitCode.OK;
  }
  if (sub === "validate") {
    const parsed = await load(rest, io);
    io.stdout(`${parsed.values.config}: valid\n`);
    return ExitCode.OK;
  }
  if (sub === "expand") {
    const yaml = rest.includes("--yaml");
    const parsed = await load(rest.filter((a) => a !== "--yaml"), io);
    if (yaml) {
      const shown: Record<string, unknown> = {};
      for (const [key, spec] of Object.entries(profileOptions)) {
        // The file's own path is the input, and a secret is never printed.
        if (key === "config" || spec.secret) continue;
        shown[spec.flag] = parsed.values[key as keyof typeof profileOptions] ?? null;
      }
      io.stdout(stringify(redactConfig(shown)));
    } else {
      const flags = equivalentFlags(
        profileOptions,
        parsed.values,
        parsed.given as ReadonlySet<string>,
      );
      io.stdout(redactedCommandLine(["profile", ...flags]) + "\n");
    }
    return ExitCode.OK;
  }
  io.stderr(`error: unknown config command "${sub}" (expand or validate)\n\n${USAGE}`);
  return ExitCode.BAD_CONFIG;
}
