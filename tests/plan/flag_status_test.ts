/**
 * The status of a given flag decides the plan: a `not-yet` flag with a value that would change
 * the run is a one-line config error; its default or a no-op value is accepted; a `no-effect`
 * flag is accepted with a note for `--verbose`.
 */

import assert from "node:assert/strict";
import { profileOptions } from "../../src/config/options.ts";
import { parseConfig } from "../../src/config/profile_config.ts";
import { ConfigError } from "../../src/config/parse.ts";
import { checkFlagStatus, recordedConfig } from "../../src/plan/flag_status.ts";

/** The plan's judgement of a command line: its notes, or the error's message. */
function judge(...args: string[]): string[] | string {
  const { values, given } = parseConfig(["profile", ...args]);
  try {
    return checkFlagStatus(
      profileOptions,
      values as unknown as Record<string, unknown>,
      given as ReadonlySet<string>,
    );
  } catch (e) {
    assert.ok(e instanceof ConfigError);
    return e.message;
  }
}

Deno.test("a not-yet flag that would change the run stops the plan with one line", () => {
  assert.equal(
    judge("--search-space", "concurrency:1:64"),
    "--search-space: not supported yet (this adaptive search is not built (reprise searches with the monotonic planner))",
  );
  assert.match(
    judge("--cache-bust", "system_prefix") as string,
    /^--cache-bust: not supported yet \(/,
  );
  assert.match(judge("--show-trace-timing") as string, /^--show-trace-timing: not supported yet/);
  // A local GPU library is refused when the options are read.
  assert.throws(
    () => parseConfig(["profile", "--gpu-telemetry", "pynvml"]),
    /--gpu-telemetry must be DCGM exporter URLs.*pynvml and amdsmi are not supported yet/,
  );
  assert.match(judge("--model", "a,b") as string, /^--model: not supported yet \(several models/);
});

Deno.test("a not-yet flag given its default or a no-op value is accepted", () => {
  for (
    const args of [
      ["--num-profile-runs", "1"],
      ["--no-gpu-telemetry"],
      ["--sweep-type", "grid"],
      ["--batch-size", "1"],
      ["--wait-for-model-mode", "models"],
      ["--no-open-loop-replay", "--open-loop-replay"],
    ]
  ) {
    assert.deepEqual(judge(...args), [], args.join(" "));
  }
});

Deno.test("a no-effect flag is accepted with one note saying why", () => {
  const notes = judge("--zmq-host", "10.0.0.1", "--record-processors", "4", "--concurrency", "2");
  assert.ok(Array.isArray(notes));
  assert.deepEqual(notes.map((n) => n.split(" ")[0]), ["--record-processors", "--zmq-host"]);
  for (const n of notes) assert.match(n, /has no effect in reprise: reprise has no /);
});

Deno.test("input_config records what the run used: flags without effect only when given", () => {
  const { values, given } = parseConfig(["profile", "--zmq-host", "h", "--concurrency", "3"]);
  const recorded = recordedConfig(profileOptions, values, given as ReadonlySet<string>);
  assert.equal(recorded.concurrency, 3);
  assert.equal(recorded.zmqHost, "h");
  assert.equal("islMin" in recorded, false);
  assert.equal("streaming" in recorded, true);
});
