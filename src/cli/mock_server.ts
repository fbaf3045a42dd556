/** `reprise mock-server`: the built-in OpenAI-compatible server, for demos, tests and benchmarks. */

import { mockServerOptions } from "../config/options.ts";
import { ConfigError, parseOptions } from "../config/parse.ts";
import { runMockServer } from "../mock/cli.ts";
import { ExitCode } from "./exit_codes.ts";
import { renderHelp } from "./help.ts";
import type { Io } from "./io.ts";

/** Runs `reprise mock-server` until Ctrl+C; returns the exit code. */
export async function mockServerCommand(args: string[], io: Io): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(renderHelp(
      "reprise mock-server [options]",
      "Serve OpenAI-compatible chat, completions, Responses, embeddings, rankings, Anthropic messages and TGI APIs with configurable timing and faults.\n" +
        "With --slots N it serves as an inference engine: N batch slots with a FIFO queue in front; the batch advances in steps of\n" +
        "decode-ms + decode-ms-per-seq x running answers (+ prefill-us-per-token x prompt tokens of answers joining), one token per\n" +
        "running answer per step. Latency rises with load, and a closed loop of more than N users queues: the knee is at concurrency N.",
      mockServerOptions,
    ));
    return ExitCode.OK;
  }
  const { values, positionals, given } = parseOptions(mockServerOptions, args, io.env);
  if (positionals.length) throw new ConfigError(`unexpected argument "${positionals[0]}"`);
  // Unset, the server kind follows the faults asked for (wire faults need the mock's own).
  const opts = given.has("http") ? values : { ...values, http: undefined };
  return await runMockServer(opts, {
    stderr: (line) => io.stderr(line + "\n"),
    signal: io.signal,
  });
}
