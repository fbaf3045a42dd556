/**
 * The README's sandboxed `deno run` line, run exactly (its placeholders swapped for this test's
 * port and paths), succeeds; and a run missing one permission ends with one clear line naming the
 * flag to add and exit code 5 — no stack trace.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { profileOptions } from "../../src/config/options.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { readRecords } from "./helpers.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PAYLOADS = join(ROOT, "examples", "payloads.jsonl");

/** The `deno run …` line under the README's sandbox-command marker, as arguments. */
async function readmeCommand(): Promise<string[]> {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const at = readme.indexOf("<!-- sandbox-command");
  assert.ok(at >= 0, "README has no sandbox-command marker");
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(block, "no sh block after the sandbox-command marker");
  // Shell quoting in the line protects the env wildcards; the shell would remove it.
  const words = block[1].replace(/\\\n/g, " ").replaceAll("'", "").trim().split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ["deno", "run"]);
  return words.slice(2);
}

/** Swaps the README's placeholders (server, dataset, artifact dir, program) for real ones. */
function localize(args: string[], places: Record<string, string>): string[] {
  const swap = (v: string) => places[v] ?? v;
  return args.map((a) => {
    const flag = /^(--allow-[a-z]+=)(.*)$/.exec(a);
    if (flag) return flag[1] + flag[2].split(",").map(swap).join(",");
    return swap(a);
  });
}

async function deno(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...args],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    env: { NO_COLOR: "1", ...env },
    signal: AbortSignal.timeout(120_000),
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("the README's sandboxed command runs a profile with exactly its permissions", async (t) => {
  const server = await startMockServer({ ttftMs: 5, itlMs: 1, outputTokens: 8 });
  const dir = await Deno.makeTempDir();
  const artifacts = join(dir, "artifacts");
  const host = new URL(server.url).host; // 127.0.0.1:<port>
  const places = {
    "localhost:8000": host,
    "payloads.jsonl": PAYLOADS,
    "src": join(ROOT, "src"),
    "main.ts": join(ROOT, "main.ts"),
    "artifacts": artifacts,
  };
  try {
    const args = await readmeCommand();

    await t.step("every environment variable reprise reads is in --allow-env", () => {
      const allowed = args.find((a) => a.startsWith("--allow-env="))!.slice(12).split(",");
      const reads = ["NO_COLOR", ...Object.values(profileOptions).flatMap((o) => o.env ?? [])];
      const granted = (name: string) =>
        allowed.some((a) => a === name || (a.endsWith("*") && name.startsWith(a.slice(0, -1))));
      for (const name of reads) assert.ok(granted(name), `--allow-env lacks ${name}`);
      assert.ok(!args.some((a) => a.startsWith("--allow-sys") || a === "-A"));
    });

    await t.step("the command succeeds and writes the artifacts", async () => {
      // An env var the sandbox grants is honoured: the summary JSON replaces the table.
      const res = await deno(localize(args, places), { REPRISE_OUTPUT_FORMAT: "json" });
      assert.equal(res.code, 0, res.stderr);
      assert.equal(JSON.parse(res.stdout).request_count.avg, 3);
      const runDir = join(artifacts, "Qwen_Qwen3-0.6B-openai-chat-concurrency1");
      const records = await readRecords(join(runDir, "profile_export.jsonl"));
      assert.equal(records.length, 3);
      for (const r of records) assert.equal(r.error, null);
    });

    const without = (prefix: string) => localize(args, places).filter((a) => !a.startsWith(prefix));
    const cases: [string, string[], RegExp][] = [
      ["net", without("--allow-net"), new RegExp(`add --allow-net=${host}$`, "m")],
      [
        "read of the program's own code",
        localize(args, { ...places, src: PAYLOADS }),
        /add --allow-read=\S*src$/m,
      ],
      ["write", without("--allow-write"), /add --allow-write=/],
    ];
    for (const [what, argv, hint] of cases) {
      await t.step(`without ${what} access: one line naming the flag, exit code 5`, async () => {
        const before = server.stats().requests;
        const res = await deno(argv);
        assert.equal(res.code, 5, res.stderr);
        assert.match(res.stderr, hint);
        assert.equal(res.stderr.trim().split("\n").length, 1, `not one line:\n${res.stderr}`);
        assert.doesNotMatch(res.stderr, /\bat \S+:\d+:\d+/, "stack trace on stderr");
        assert.equal(server.stats().requests, before, "requests were sent");
      });
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
