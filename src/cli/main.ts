/**
 * `reprise <command>`: dispatches to a command, turns expected failures into one clear line and
 * an exit code. Only main.ts calls Deno.exit; everything here returns the code.
 */

import { VERSION } from "../version.ts";
import { errorExitCode, ExitCode } from "./exit_codes.ts";
import type { Io } from "./io.ts";

const USAGE = `reprise ${VERSION}: benchmark LLM inference servers

Usage: reprise <command> [options]

Commands:
  profile       Send a dataset's requests at a chosen load and report latency and throughput
  mock-server   Run the built-in OpenAI-compatible mock inference server
  demo          Start the mock server in-process and profile it with a sample dataset
  report        Write a self-contained HTML report (charts) of one or more runs' artifacts
  compare       Show two runs' summary metrics side by side with the change in percent
  merge         Join the shards of a sharded run (profile --shard i/N) into one artifact set
  config        Validate an AIPerf YAML config file, or expand it to the flags it equals

Run \`reprise <command> --help\` for a command's options.
`;

/** Turns a Deno permission error into the flag that grants it. */
export function permissionHint(message: string): string {
  const m = /Requires (\w+) access to "?([^",]+)"?/.exec(message);
  if (!m) return message;
  const [, kind, what] = m;
  const flag: Record<string, string> = {
    net: `--allow-net=${what}`,
    read: `--allow-read=${what}`,
    write: `--allow-write=${what}`,
    env: `--allow-env=${what}`,
    run: `--allow-run=${what}`,
    sys: `--allow-sys=${what}`,
  };
  return `permission denied: reprise needs ${kind} access to ${what}; add ${
    flag[kind] ?? `--allow-${kind}`
  }`;
}

/** Runs the CLI with `args`; returns the exit code. */
export async function main(args: string[], io: Io): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout(USAGE);
        return ExitCode.OK;
      case "--version":
      case "-V":
      case "version":
        io.stdout(`reprise ${VERSION}\n`);
        return ExitCode.OK;
      case "profile":
        return await (await import("./profile.ts")).profileCommand(rest, io);
      case "mock-server":
        return await (await import("./mock_server.ts")).mockServerCommand(rest, io);
      case "demo":
        return await (await import("./demo.ts")).demoCommand(rest, io);
      case "report":
        return await (await import("./report.ts")).reportCommand(rest, io);
      case "config":
        return await (await import("./config.ts")).configCommand(rest, io);
      case "compare":
        return await (await import("./compare.ts")).compareCommand(rest, io);
      case "merge":
        return await (await import("./merge.ts")).mergeCommand(rest, io);
      default:
        io.stderr(`error: unknown command "${command}"\n\n${USAGE}`);
        return ExitCode.BAD_CONFIG;
    }
  } catch (e) {
    const code = errorExitCode(e);
    if (code === null) throw e;
    const message = (e as Error).message;
    io.stderr(`error: ${code === ExitCode.PERMISSION ? permissionHint(message) : message}\n`);
    return code;
  }
}
