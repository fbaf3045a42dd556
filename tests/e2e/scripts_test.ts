/** reprise in shell scripts: what stdout carries, --quiet, --version, and waiting for a server. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../../src/mock/server.ts";
import { VERSION } from "../../src/version.ts";
import { runCli } from "./helpers.ts";

const PAYLOADS = fileURLToPath(new URL("../../examples/payloads.jsonl", import.meta.url));
const RUN_DIR = "Qwen_Qwen3-0.6B-openai-chat-concurrency1";

function profileArgs(url: string, dir: string, ...more: string[]): string[] {
  return ["profile", "--url", url, "--input-file", PAYLOADS, "--artifact-dir", dir, ...more];
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test("--output-format json puts the summary JSON on stdout and nothing else", async () => {
  const server = await startMockServer({ outputTokens: 8 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(profileArgs(server.url, dir, "--output-format", "json"));
    assert.equal(res.code, 0, res.stderr);
    const fromStdout = JSON.parse(res.stdout);
    const fromFile = JSON.parse(
      await Deno.readTextFile(join(dir, RUN_DIR, "profile_export_aiperf.json")),
    );
    assert.deepEqual(fromStdout, fromFile);
    assert.equal(fromStdout.request_count.avg, 3);
    assert.match(res.stderr, /artifacts: /, "notes belong on stderr");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--quiet prints nothing on success and only the error on failure", async () => {
  const server = await startMockServer({ outputTokens: 8 });
  const dir = await Deno.makeTempDir();
  try {
    const ok = await runCli(profileArgs(server.url, dir, "--quiet"));
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, "");
    assert.equal(ok.stderr, "");
    assert.ok((await Deno.stat(join(dir, RUN_DIR, "profile_export.jsonl"))).size > 0);

    const down = await runCli(profileArgs(`127.0.0.1:${freePort()}`, dir, "-q"));
    assert.equal(down.code, 4);
    assert.equal(down.stdout, "");
    assert.match(down.stderr, /^error: every request failed/);
    assert.equal(down.stderr.trim().split("\n").length, 1, down.stderr);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--version prints the version on stdout", async () => {
  const res = await runCli(["--version"]);
  assert.equal(res.code, 0);
  assert.equal(res.stdout, `reprise ${VERSION}\n`);
});

Deno.test("--wait-for-model-timeout waits for a server that starts after reprise", async () => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  let server: Awaited<ReturnType<typeof startMockServer>> | null = null;
  try {
    const run = runCli(profileArgs(`127.0.0.1:${port}`, dir, "--ui", "none", ...[
      "--wait-for-model-timeout",
      "60",
      "--wait-for-model-interval",
      "0.1",
    ]));
    // Start the server only once reprise is polling.
    await new Promise((r) => setTimeout(r, 1000));
    server = await startMockServer({ port, outputTokens: 8 });
    const res = await run;
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /waiting up to 60 s for http:\/\/127\.0\.0\.1:\d+\/v1\/models/);
    assert.ok((server.stats().byPath["/v1/models"] ?? 0) >= 1, "never polled /v1/models");
    assert.equal(server.stats().byPath["/v1/chat/completions"], 3);
  } finally {
    await server?.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a server that never answers ends the wait with exit code 4 and no requests", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(profileArgs(`127.0.0.1:${freePort()}`, dir, ...[
      "--wait-for-model-timeout",
      "0.5",
      "--wait-for-model-interval",
      "0.1",
    ]));
    assert.equal(res.code, 4, res.stderr);
    assert.match(res.stderr, /error: the server at \S+\/v1\/models was not ready within 0\.5 s/);
    // The run never started: no artifact directory.
    await assert.rejects(Deno.stat(join(dir, RUN_DIR)), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
