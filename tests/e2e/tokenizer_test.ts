/**
 * Tokenizers as AIPerf users give them, end to end and in-process: a Hugging Face name fetched
 * from a stand-in Hub into a temporary HF_HOME and read from it after; o200k with one warning
 * offline; and `--apply-chat-template` against a mock that counts `prompt_tokens` through Qwen3's
 * chat template as llama.cpp's server and vLLM do. Nothing comes from the internet.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { readRecords, runCli } from "./helpers.ts";
import { startFakeHub } from "../tokenizer/fake_hub.ts";
import { QWEN3_FILES, writeQwen3 } from "../tokenizer/qwen3_files.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const COMMIT = "a".repeat(40);
const REPO = "Qwen/Qwen3-0.6B";

function metric(r: Record<string, unknown>, tag: string): number | undefined {
  const v = (r.metrics as Record<string, { value?: unknown }>)[tag]?.value;
  return typeof v === "number" ? v : undefined;
}

async function runDirOf(art: string): Promise<string> {
  for await (const e of Deno.readDir(art)) if (e.isDirectory) return join(art, e.name);
  throw new Error(`no run directory in ${art}`);
}

/** Every file's text under `dir`. */
async function allText(dir: string): Promise<string> {
  let out = "";
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    out += e.isDirectory ? await allText(p) : await Deno.readTextFile(p);
  }
  return out;
}

function profileArgs(url: string, art: string, extra: string[]): string[] {
  return [
    "profile",
    "--url",
    url,
    "--model",
    REPO,
    "--endpoint-type",
    "chat",
    "--request-count",
    "6",
    "--concurrency",
    "2",
    "--isl",
    "40",
    "--isl-stddev",
    "15",
    "--osl",
    "8",
    "--random-seed",
    "7",
    "--artifact-dir",
    art,
    "--ui",
    "none",
    ...extra,
  ];
}

Deno.test(
  "e2e tokenizer by name: downloaded from the Hub into HF_HOME once, read from the cache after, o200k with one warning offline; HF_TOKEN never written",
  opts,
  async () => {
    const token = "hf_e2e_secret_token_0123456789";
    const hub = startFakeHub({ [REPO]: { refs: { main: COMMIT }, files: QWEN3_FILES, token } });
    const server = await startMockServer({ ttftMs: 1, itlMs: 0, outputTokens: 8 });
    const dir = await Deno.makeTempDir({ prefix: "reprise-e2e-tok-" });
    try {
      const hfHome = join(dir, "hf");
      const env = { HF_HOME: hfHome, HF_ENDPOINT: hub.url, HF_TOKEN: token };
      const art1 = join(dir, "a1");
      // The tokenizer follows the model name, as AIPerf's does.
      const first = await runCli(profileArgs(server.url, art1, []), { env });
      assert.equal(first.code, 0, first.stderr);
      const downloads = first.stderr.split("\n").filter((l) =>
        l.startsWith("Downloading tokenizer")
      );
      assert.equal(downloads.length, 1, first.stderr);
      assert.ok(downloads[0].includes(REPO) && downloads[0].includes(hub.url));
      assert.ok(!first.stderr.includes("o200k"), first.stderr);
      const snap = join(hfHome, "hub", "models--Qwen--Qwen3-0.6B", "snapshots", COMMIT);
      assert.equal(
        await Deno.readTextFile(join(snap, "tokenizer.json")),
        QWEN3_FILES["tokenizer.json"],
      );
      assert.ok(hub.requests.some((r) => r.authorization === `Bearer ${token}`));
      // The token is a secret: in no output and no artifact.
      const everything = first.stdout + first.stderr + await allText(art1);
      assert.ok(!everything.includes(token), "HF_TOKEN leaked");

      // Again, offline: the cached copy counts, nothing is asked of the Hub, no warning.
      const asked = hub.requests.length;
      const art2 = join(dir, "a2");
      const second = await runCli(profileArgs(server.url, art2, []), {
        env: { ...env, HF_HUB_OFFLINE: "1" },
      });
      assert.equal(second.code, 0, second.stderr);
      assert.equal(hub.requests.length, asked);
      assert.ok(!second.stderr.includes("Downloading"), second.stderr);
      assert.ok(!/warning: tokenizer/.test(second.stderr), second.stderr);
      // The same prompts (same seed) count the same with the same tokenizer.
      const isl = async (art: string) =>
        (await readRecords(join(await runDirOf(art), "profile_export.jsonl")))
          .map((r) => metric(r, "input_sequence_length")!).sort((a, b) => a - b);
      assert.deepEqual(await isl(art2), await isl(art1));

      // Offline with an empty cache: o200k, and one warning line saying what to do.
      const art3 = join(dir, "a3");
      const third = await runCli(profileArgs(server.url, art3, []), {
        env: { HF_HOME: join(dir, "empty"), HF_ENDPOINT: hub.url, HF_HUB_OFFLINE: "1" },
      });
      assert.equal(third.code, 0, third.stderr);
      const warns = third.stderr.split("\n").filter((l) => l.startsWith("warning: tokenizer"));
      assert.equal(warns.length, 1, third.stderr);
      assert.match(
        warns[0],
        /HF_HUB_OFFLINE is set.*o200k.*huggingface-cli download Qwen\/Qwen3-0\.6B/,
      );
    } finally {
      await server.close();
      await hub.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test(
  "e2e --apply-chat-template: input tokens equal the prompt_tokens of a server applying Qwen3's chat template, for every record; without it they differ by the template's tokens, and neither run warns",
  opts,
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "reprise-e2e-chat-template-" });
    const tok = await writeQwen3(join(dir, "qwen3"));
    const server = await startMockServer({
      ttftMs: 1,
      itlMs: 0,
      outputTokens: 8,
      tokenizer: tok,
      chatTemplate: join(tok, "tokenizer_config.json"),
    });
    try {
      const run = async (name: string, extra: string[]) => {
        const art = join(dir, name);
        const res = await runCli(
          profileArgs(server.url, art, ["--tokenizer", tok, ...extra]),
          { env: { HF_HOME: join(dir, "hf"), HF_HUB_OFFLINE: "1" } },
        );
        assert.equal(res.code, 0, res.stderr);
        const records = await readRecords(join(await runDirOf(art), "profile_export.jsonl"));
        assert.equal(records.length, 6);
        return { res, records };
      };
      const templated = await run("with", ["--apply-chat-template"]);
      for (const r of templated.records) {
        const usage = metric(r, "usage_prompt_tokens");
        assert.ok(usage !== undefined && usage > 0);
        assert.equal(metric(r, "input_sequence_length"), usage);
      }
      const bare = await run("without", []);
      for (const r of bare.records) {
        const usage = metric(r, "usage_prompt_tokens")!;
        const isl = metric(r, "input_sequence_length")!;
        // One user message: "<|im_start|>user\n", "<|im_end|>\n", "<|im_start|>assistant\n".
        assert.equal(usage - isl, 8, `prompt_tokens ${usage}, input ${isl}`);
      }
      for (const { res } of [templated, bare]) {
        assert.ok(!/usage token counts differ/.test(res.stderr), res.stderr);
        assert.ok(!/warning: --apply-chat-template/.test(res.stderr), res.stderr);
      }
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
