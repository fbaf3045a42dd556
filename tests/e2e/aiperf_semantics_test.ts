/**
 * Where AIPerf's semantics and reprise's used to differ, measured from outside through
 * `main(args, io)`: a missing --model, --osl on file datasets, server token counts without
 * reasoning detail or without usage, --quiet, and the help of demo and compare.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { readRecords, runCli } from "./helpers.ts";
import { startCaptureServer } from "./capture_server.ts";

async function tempDir(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "reprise-aiperf-semantics-" });
}

async function runDir(artifacts: string): Promise<string> {
  for await (const e of Deno.readDir(artifacts)) if (e.isDirectory) return join(artifacts, e.name);
  throw new Error(`no run directory in ${artifacts}`);
}

Deno.test("a missing --model is a one-line config error (exit 2) and nothing is sent", async () => {
  const server = startCaptureServer();
  const dir = await tempDir();
  try {
    const out = await runCli([
      "profile",
      "--url",
      server.hostPort,
      "--request-count",
      "2",
      "--artifact-dir",
      dir,
      "--ui",
      "none",
    ]);
    assert.equal(out.code, 2, out.stderr);
    assert.match(out.stderr, /^error: --model is required/);
    assert.equal(out.stderr.trim().split("\n").length, 1, out.stderr);
    assert.equal(server.captured.length, 0);
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("without --model, only replayed payloads that all name a model may run", async () => {
  const server = startCaptureServer();
  const dir = await tempDir();
  try {
    const run = (file: string, type: string) =>
      runCli([
        "profile",
        "--url",
        server.hostPort,
        "--input-file",
        file,
        "--custom-dataset-type",
        type,
        "--artifact-dir",
        join(dir, "a"),
        "--ui",
        "none",
      ]);
    const mixed = join(dir, "mixed.jsonl");
    await Deno.writeTextFile(
      mixed,
      '{"model":"mine","messages":[{"role":"user","content":"a"}]}\n' +
        '{"messages":[{"role":"user","content":"b"}]}\n',
    );
    const prompts = join(dir, "prompts.jsonl");
    await Deno.writeTextFile(prompts, '{"text":"hello"}\n');
    for (const [file, type] of [[mixed, "raw_payload"], [prompts, "single_turn"]]) {
      const out = await run(file, type);
      assert.equal(out.code, 2, `${type}: ${out.stderr}`);
      assert.match(out.stderr, /^error: --model is required/);
    }
    assert.equal(server.captured.length, 0);
    // Every payload names its model: it is sent as written and names the run.
    const own = join(dir, "own.jsonl");
    await Deno.writeTextFile(own, '{"model":"mine","messages":[{"role":"user","content":"a"}]}\n');
    const out = await run(own, "raw_payload");
    assert.equal(out.code, 0, out.stderr);
    assert.equal(JSON.parse(server.captured[0].body).model, "mine");
    assert.ok(Deno.statSync(join(dir, "a", "mine-openai-chat-concurrency1")).isDirectory);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--osl sets max tokens of single_turn lines that give no output_length", async () => {
  const server = startCaptureServer();
  const dir = await tempDir();
  try {
    const file = join(dir, "prompts.jsonl");
    await Deno.writeTextFile(file, '{"text":"hello"}\n{"text":"bye","output_length":7}\n');
    const out = await runCli([
      "profile",
      "-m",
      "m",
      "--url",
      server.hostPort,
      "--input-file",
      file,
      "--custom-dataset-type",
      "single_turn",
      "--osl",
      "33",
      "--artifact-dir",
      join(dir, "a"),
      "--ui",
      "none",
    ]);
    assert.equal(out.code, 0, out.stderr);
    const asked = server.captured.map((c) => JSON.parse(c.body).max_completion_tokens).sort();
    assert.deepEqual(asked, [33, 7]);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** A streaming chat server whose usage has 20 completion tokens and no reasoning detail. */
function reasoningServer(): { hostPort: string; close(): Promise<void> } {
  const enc = new TextEncoder();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.text();
    const ev = (o: unknown) => enc.encode(`data: ${JSON.stringify(o)}\n\n`);
    const delta = (d: Record<string, string>) => ev({ choices: [{ index: 0, delta: d }] });
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(delta({ reasoning_content: "Let me think about it carefully now" }));
        c.enqueue(delta({ content: "The answer is forty two." }));
        c.enqueue(ev({
          choices: [],
          usage: { prompt_tokens: 5, completion_tokens: 20, total_tokens: 25 },
        }));
        c.enqueue(enc.encode("data: [DONE]\n\n"));
        c.close();
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  const addr = server.addr as Deno.NetAddr;
  return { hostPort: `127.0.0.1:${addr.port}`, close: () => server.shutdown() };
}

Deno.test("server counts without reasoning detail: every completion token is output", async () => {
  const server = reasoningServer();
  const dir = await tempDir();
  try {
    const out = await runCli([
      "profile",
      "-m",
      "m",
      "--url",
      server.hostPort,
      "--streaming",
      "--use-server-token-count",
      "--request-count",
      "2",
      "--artifact-dir",
      dir,
      "--ui",
      "none",
    ]);
    assert.equal(out.code, 0, out.stderr);
    const records = await readRecords(join(await runDir(dir), "profile_export.jsonl"));
    for (const r of records) {
      const m = r.metrics as Record<string, { value: number }>;
      // AIPerf: output = completion − the server's reasoning count (none given: 0); the
      // reasoning count falls back to the tokenizer.
      assert.equal(m.output_token_count.value, 20);
      assert.ok(m.reasoning_token_count.value > 0);
      assert.equal(m.input_sequence_length.value, 5);
    }
    assert.doesNotMatch(out.stderr, /reported no token usage/);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--use-server-token-count with answers that carry no usage warns", async () => {
  const server = startCaptureServer();
  const dir = await tempDir();
  try {
    const args = [
      "profile",
      "-m",
      "m",
      "--url",
      server.hostPort,
      "--streaming",
      "--use-server-token-count",
      "--request-count",
      "3",
      "--artifact-dir",
      dir,
      "--ui",
      "none",
    ];
    const out = await runCli(args);
    assert.equal(out.code, 0, out.stderr);
    assert.match(
      out.stderr,
      /warning: --use-server-token-count: the server reported no token usage for 3 of 3 answers/,
    );
    // The chat stream asked for usage.
    assert.deepEqual(JSON.parse(server.captured[0].body).stream_options, { include_usage: true });
    // --quiet keeps only errors: the warning and every note are gone.
    const quiet = await runCli([...args, "--quiet", "--api-port", "0"]);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stderr, "");
    assert.equal(quiet.stdout, "");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("demo --help prints demo's help and starts nothing", async () => {
  const out = await runCli(["demo", "--help"], { timeoutMs: 30_000 });
  assert.equal(out.code, 0);
  assert.match(out.stdout, /^Usage: reprise demo /);
  assert.match(out.stdout, /mock server/);
  assert.doesNotMatch(out.stdout, /Usage: reprise profile/);
  assert.equal(out.stderr, "", "no mock server was started");
});

Deno.test("compare --help describes compare's output", async () => {
  const out = await runCli(["compare", "--help"]);
  assert.equal(out.code, 0);
  assert.match(out.stdout, /^Usage: reprise compare /);
  assert.match(out.stdout, /change_pct/);
  assert.match(out.stdout, /better or worse/);
  assert.doesNotMatch(out.stdout, /profile_export_aiperf\.json's content/);
});

Deno.test("demo profiles the built-in mock: a table, artifacts, and no warning", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = await runCli(["demo", "--artifact-dir", dir, "--ui", "none"], {
      env: { HF_HOME: dir },
      timeoutMs: 60_000,
    });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /Time to First Token \(ms\)/);
    assert.doesNotMatch(out.stderr, /warning/i);
    const runs = [...Deno.readDirSync(dir)].filter((e) => e.isDirectory && e.name !== "hub");
    assert.equal(runs.length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
