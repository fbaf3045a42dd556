import assert from "node:assert/strict";
import type { Io } from "../../src/cli/io.ts";
import { outputIo, progressMode, resultText } from "../../src/cli/output.ts";

const summary = { table: "TABLE\n", json: '{"a":1}' };

Deno.test("stdout carries the table, or the JSON alone", () => {
  const base = { outputFormat: "table", quiet: false, ui: "simple" } as const;
  assert.equal(resultText(base, summary), "TABLE\n");
  assert.equal(resultText({ ...base, outputFormat: "json" }, summary), '{"a":1}\n');
  assert.equal(resultText({ ...base, quiet: true }, summary), "");
  assert.equal(resultText({ ...base, quiet: true, outputFormat: "json" }, summary), '{"a":1}\n');
  assert.equal(progressMode(base), "simple");
  assert.equal(progressMode({ ...base, quiet: true }), "none");
});

Deno.test("--quiet keeps only errors on stderr", () => {
  const err: string[] = [];
  const io: Io = {
    stdout: () => {},
    stderr: (t) => err.push(t),
    env: () => undefined,
    isTerminal: false,
  };
  const q = outputIo(io, { quiet: true });
  q.stderr("artifacts: x\n");
  q.stderr("error: boom\n");
  q.stderr("warning: hm\n");
  q.stderr("live API on http://127.0.0.1:1\n");
  assert.deepEqual(err, ["error: boom\n"]);
  assert.equal(outputIo(io, { quiet: false }), io);
});
