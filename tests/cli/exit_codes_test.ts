import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/parse.ts";
import { DatasetError } from "../../src/dataset/types.ts";
import { ArtifactError } from "../../src/export/artifact.ts";
import { errorExitCode, ExitCode, type RunEnd, runExitCode } from "../../src/cli/exit_codes.ts";

const names = { failedRequestThreshold: 0.5, baseUrl: "http://127.0.0.1:9" };
const clean: RunEnd = {
  failure: null,
  interrupted: false,
  thresholdTripped: false,
  completed: 10,
  errors: 0,
  errorTypes: new Set(),
};

Deno.test("the documented exit codes are the ones the CLI uses", async () => {
  const docs = [await Deno.readTextFile(new URL("../../README.md", import.meta.url))];
  for await (const e of Deno.readDir(new URL("../../docs/", import.meta.url))) {
    if (e.name.endsWith(".md")) {
      docs.push(await Deno.readTextFile(new URL(`../../docs/${e.name}`, import.meta.url)));
    }
  }
  const table = docs.map((d) => /\| code \| meaning[^\n]*\n((?:\|[^\n]*\n)+)/.exec(d))
    .find((m) => m !== null);
  assert.ok(table, "an exit code table (| code | meaning |) in README.md or docs/");
  const documented = [...table[1].matchAll(/^\| (\d+) /gm)].map((m) => Number(m[1]));
  assert.deepEqual(documented.sort((a, b) => a - b), Object.values(ExitCode).sort((a, b) => a - b));
});

Deno.test("errors the user can fix have their own codes; anything else is not hidden", () => {
  assert.equal(errorExitCode(new ConfigError("x")), ExitCode.BAD_CONFIG);
  assert.equal(errorExitCode(new DatasetError("x")), ExitCode.BAD_DATASET);
  assert.equal(errorExitCode(new Deno.errors.NotCapable("x")), ExitCode.PERMISSION);
  assert.equal(errorExitCode(new Deno.errors.PermissionDenied("x")), ExitCode.PERMISSION);
  assert.equal(errorExitCode(new TypeError("x")), null);
});

Deno.test("a run's exit code: failure, then interruption, threshold, every request failed", () => {
  assert.deepEqual(runExitCode(clean, names), { code: ExitCode.OK, error: null, warning: null });
  const allFailed = { ...clean, errors: 10, errorTypes: new Set(["ConnectionError"]) };
  const unreachable = runExitCode(allFailed, names);
  assert.equal(unreachable.code, ExitCode.UNREACHABLE);
  assert.match(unreachable.error ?? "", /cannot connect to http:\/\/127\.0\.0\.1:9/);
  const mixed = { ...allFailed, errorTypes: new Set(["ConnectionError", "HTTPError"]) };
  assert.equal(runExitCode(mixed, names).code, ExitCode.RUN_FAILED);
  const tripped = runExitCode({ ...allFailed, thresholdTripped: true }, names);
  assert.equal(tripped.code, ExitCode.FAILED_THRESHOLD);
  assert.match(tripped.error ?? "", /--failed-request-threshold 0\.5/);
  const stopped = { ...allFailed, thresholdTripped: true, interrupted: true };
  assert.deepEqual(runExitCode(stopped, names), {
    code: ExitCode.INTERRUPTED,
    error: null,
    warning: null,
  });
  assert.deepEqual(runExitCode({ ...stopped, signal: "SIGTERM" }, names), {
    code: ExitCode.TERMINATED,
    error: null,
    warning: null,
  });
  assert.deepEqual(runExitCode({ ...stopped, failure: "Worker 0 failed: boom" }, names), {
    code: ExitCode.RUN_FAILED,
    error: "Worker 0 failed: boom",
    warning: null,
  });
  // Nothing completed is not "every request failed".
  assert.equal(runExitCode({ ...clean, completed: 0 }, names).code, ExitCode.OK);
});

Deno.test("a client out of file descriptors is not an unreachable server: exit 1 and a warning with the fix", () => {
  const exhausted = {
    ...clean,
    errors: 10,
    errorTypes: new Set(["ClientResourceExhausted", "ConnectionError"]),
  };
  const all = runExitCode(exhausted, names);
  assert.equal(all.code, ExitCode.RUN_FAILED);
  assert.match(all.warning ?? "", /ulimit -n.*--concurrency/);
  const some = runExitCode({ ...exhausted, errors: 3 }, names);
  assert.equal(some.code, ExitCode.OK);
  assert.match(some.warning ?? "", /ran out of file descriptors/);
});

Deno.test("artifact failures have their own codes, apart from Deno's permission refusal", () => {
  const codes = (["write", "is_file", "cannot_create", "denied"] as const).map((kind) =>
    errorExitCode(new ArtifactError(kind, "a", "x"))
  );
  assert.deepEqual(codes, [
    ExitCode.ARTIFACT_WRITE,
    ExitCode.ARTIFACT_DIR_IS_FILE,
    ExitCode.ARTIFACT_DIR_CANNOT_CREATE,
    ExitCode.ARTIFACT_DIR_DENIED,
  ]);
  assert.equal(new Set([...codes, ExitCode.PERMISSION, ExitCode.RUN_FAILED]).size, 6);
  // A write that failed during the run comes before an interruption: the artifacts are short.
  const end = { ...clean, interrupted: true, artifactFailure: "cannot write a: disk full" };
  assert.deepEqual(runExitCode(end, names), {
    code: ExitCode.ARTIFACT_WRITE,
    error: "cannot write a: disk full",
    warning: null,
  });
});
