/**
 * Datasets end to end, in-process: each format runs against a capturing server, and the
 * `inputs.json` a run writes replays to the same bytes in the same session/turn structure.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import type { Io } from "../../src/cli/io.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { startCaptureServer } from "./capture_server.ts";
import { REFERENCE } from "../_reference.ts";

const REF = join(REFERENCE, "aiperf");
const SNIPPETS = join(REF, "docs_snippets");

/** Runs `reprise profile` in-process; returns the exit code, stderr and the run directory. */
async function profile(args: string[]): Promise<{ code: number; err: string; runDir: string }> {
  const artifactDir = await Deno.makeTempDir({ prefix: "reprise-e2e-ds-" });
  let err = "";
  const io: Io = {
    stdout: () => {},
    stderr: (t) => void (err += t),
    env: () => undefined,
    isTerminal: false,
  };
  const code = await main(
    ["profile", ...args, "--artifact-dir", artifactDir, "--ui", "none"],
    io,
  );
  let runDir = artifactDir;
  for await (const e of Deno.readDir(artifactDir)) {
    if (e.isDirectory) runDir = join(artifactDir, e.name);
  }
  return { code, err, runDir };
}

/** The sessions of an inputs.json: id → payloads re-serialized (structure), plus the raw text. */
async function readInputs(
  runDir: string,
): Promise<{ text: string; sessions: Map<string, string[]> }> {
  const text = await Deno.readTextFile(join(runDir, "inputs.json"));
  const doc = JSON.parse(text) as { data: { session_id: string; payloads: unknown[] }[] };
  return {
    text,
    sessions: new Map(
      doc.data.map((d) => [d.session_id, d.payloads.map((p) => JSON.stringify(p))]),
    ),
  };
}

/**
 * Runs `args` against a capture server, replays the run's inputs.json with and without the
 * type, and asserts byte-identical inputs.json files and identical per-session bodies on the
 * server. Returns the first run's captured sessions.
 */
async function assertRoundTrip(args: string[]): Promise<Map<string, string[]>> {
  const first = startCaptureServer();
  const dirs: string[] = [];
  try {
    const a = await profile(["--url", first.hostPort, ...args]);
    dirs.push(a.runDir);
    assert.equal(a.code, 0, a.err);
    const sent = first.bySession();
    const inputs = await readInputs(a.runDir);
    // The file holds exactly what was sent, session by session, turn by turn.
    assert.deepEqual(
      [...inputs.sessions.keys()].sort(),
      [...sent.keys()].sort(),
    );
    for (const [id, bodies] of sent) {
      for (const body of bodies) assert.ok(inputs.text.includes(body), `inputs.json lacks ${body}`);
      assert.equal(inputs.sessions.get(id)!.length, bodies.length);
    }
    const rest = args.filter((_, i) =>
      !["--input-file", "--custom-dataset-type"].includes(args[i]) &&
      !["--input-file", "--custom-dataset-type"].includes(args[i - 1])
    );
    for (const typeArgs of [[], ["--custom-dataset-type", "inputs_json"]]) {
      const again = startCaptureServer();
      try {
        const b = await profile([
          "--url",
          again.hostPort,
          ...rest,
          "--input-file",
          join(a.runDir, "inputs.json"),
          ...typeArgs,
        ]);
        dirs.push(b.runDir);
        assert.equal(b.code, 0, b.err);
        assert.equal((await readInputs(b.runDir)).text, inputs.text);
        assert.deepEqual(again.bySession(), sent);
      } finally {
        await again.close();
      }
    }
    return sent;
  } finally {
    await first.close();
    for (const d of dirs) await Deno.remove(join(d, ".."), { recursive: true });
  }
}

const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test("round trip: raw_payload file, streaming", opts, async () => {
  const sent = await assertRoundTrip([
    "--input-file",
    join(SNIPPETS, "payloads.jsonl"),
    "--streaming",
    "--concurrency",
    "2",
  ]);
  assert.equal(sent.size, 3);
});

Deno.test(
  "round trip: raw_payload directory keeps each file's turns in one session",
  opts,
  async () => {
    const dir = await Deno.makeTempDir();
    try {
      await Deno.copyFile(join(SNIPPETS, "session_001.jsonl"), join(dir, "a.jsonl"));
      await Deno.copyFile(join(SNIPPETS, "payloads.jsonl"), join(dir, "b.jsonl"));
      const sent = await assertRoundTrip(["--input-file", dir, "--concurrency", "2"]);
      assert.deepEqual([...sent.values()].map((b) => b.length).sort(), [2, 3]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("round trip: inputs_json (docs snippet)", opts, async () => {
  await assertRoundTrip([
    "--input-file",
    join(SNIPPETS, "inputs.json"),
    "--custom-dataset-type",
    "inputs_json",
  ]);
});

Deno.test("round trip: canary reference inputs, streaming", opts, async () => {
  const sent = await assertRoundTrip([
    "--input-file",
    join(REF, "canary_reference_inputs.json"),
    "--streaming",
    "--concurrency",
    "4",
  ]);
  const ref = JSON.parse(await Deno.readTextFile(join(REF, "canary_reference_inputs.json")));
  assert.equal(sent.size, ref.data.length);
});

Deno.test(
  "reference inputs.json files replay against the mock; the run's inputs.json equals them",
  opts,
  async () => {
    const server = await startMockServer({ ttftMs: 1, itlMs: 0, outputTokens: 4 });
    try {
      for (
        const file of [join(REF, "canary_reference_inputs.json"), join(SNIPPETS, "inputs.json")]
      ) {
        for (const typeArgs of [[], ["--custom-dataset-type", "inputs_json"]]) {
          const run = await profile([
            "--url",
            server.url.replace("http://", ""),
            "--input-file",
            file,
            "--concurrency",
            "3",
            ...typeArgs,
          ]);
          try {
            assert.equal(run.code, 0, run.err);
            const ours = JSON.parse(await Deno.readTextFile(join(run.runDir, "inputs.json")));
            const theirs = JSON.parse(await Deno.readTextFile(file));
            assert.deepEqual(ours, theirs);
          } finally {
            await Deno.remove(join(run.runDir, ".."), { recursive: true });
          }
        }
      }
    } finally {
      await server.close();
    }
  },
);

Deno.test(
  "raw_payload directory: a turn is sent only after the previous answer was read completely",
  opts,
  async () => {
    const server = startCaptureServer({ holdMs: 120 });
    const dir = await Deno.makeTempDir();
    try {
      const line = (i: number) =>
        JSON.stringify({ model: "m", messages: [{ role: "user", content: `turn ${i}` }] });
      await Deno.writeTextFile(join(dir, "s1.jsonl"), [0, 1, 2].map(line).join("\n"));
      await Deno.writeTextFile(join(dir, "s2.jsonl"), [0, 1].map(line).join("\n"));
      const run = await profile([
        "--url",
        server.hostPort,
        "--input-file",
        dir,
        "--streaming",
        "--concurrency",
        "2",
      ]);
      await Deno.remove(join(run.runDir, ".."), { recursive: true });
      assert.equal(run.code, 0, run.err);
      assert.equal(server.captured.length, 5);
      const sessions = new Map<string, typeof server.captured>();
      for (const c of server.captured) {
        sessions.set(c.session, [...(sessions.get(c.session) ?? []), c]);
      }
      assert.equal(sessions.size, 2);
      for (const turns of sessions.values()) {
        turns.forEach((t, i) => {
          assert.ok(t.body.includes(`turn ${i}`), `turn ${i} out of order: ${t.body}`);
          if (i > 0) {
            // The answer streams its first chunk at once and its last after holdMs.
            assert.ok(
              t.arrived >= turns[i - 1].finished,
              `turn ${i} arrived ${
                turns[i - 1].finished - t.arrived
              } ms before the previous answer ended`,
            );
          }
        });
      }
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("round trip: single_turn with extra, built by the chat endpoint", opts, async () => {
  const sent = await assertRoundTrip([
    "--input-file",
    join(SNIPPETS, "prompts_with_extra.jsonl"),
    "--model",
    "m1",
    "--osl",
    "7",
    "--extra-inputs",
    "seed:1",
  ]);
  const bodies = [...sent.values()].flat().map((b) => JSON.parse(b));
  assert.equal(bodies.length, 3);
  const haiku = bodies.find((b) => b.messages[0].content === "Brainstorm a haiku.");
  assert.equal(haiku.model, "m1");
  assert.equal(haiku.temperature, 1.2);
  // The record's extra wins over --extra-inputs; others keep --extra-inputs.
  assert.equal(bodies.find((b) => b.messages[0].content === "Explain quantum computing.").seed, 42);
  assert.equal(haiku.seed, 1);
});

Deno.test("round trip: mooncake_trace with hash blocks, random_pool, synthetic", opts, async () => {
  const trace = await assertRoundTrip([
    "--input-file",
    join(SNIPPETS, "custom_trace.jsonl"),
    "--model",
    "m",
  ]);
  const bodies = [...trace.values()].flat().map((b) => JSON.parse(b));
  assert.equal(bodies.length, 3);
  assert.deepEqual(bodies.map((b) => b.max_completion_tokens).sort(), [26, 52, 52]);
  // Rows sharing hash id 0 share their first 512-token block.
  const texts = bodies.map((b) => b.messages[0].content as string);
  const [a, b] = texts.filter((t) =>
    texts.filter((u) => u.slice(0, 200) === t.slice(0, 200)).length > 1
  );
  assert.ok(a && b, "two prompts start with the same block");

  const pool = await assertRoundTrip([
    "--input-file",
    join(SNIPPETS, "prompts.jsonl"),
    "--custom-dataset-type",
    "random_pool",
    "--model",
    "m",
    "--num-conversations",
    "6",
    "--random-seed",
    "3",
    // random_pool samples at random by default (with replacement): pin the order so every
    // drawn conversation is sent once and the run's inputs.json equals what was sent.
    "--dataset-sampling-strategy",
    "sequential",
  ]);
  assert.equal(pool.size, 6);

  const synthetic = await assertRoundTrip([
    "--model",
    "m",
    "--isl",
    "40",
    "--num-conversations",
    "4",
    "--random-seed",
    "9",
    "--streaming",
  ]);
  assert.equal(synthetic.size, 4);
});

Deno.test(
  "multi_turn: later turns carry earlier user turns and the live answers",
  opts,
  async () => {
    const server = startCaptureServer({ holdMs: 5 });
    try {
      const run = await profile([
        "--url",
        server.hostPort,
        "--input-file",
        join(SNIPPETS, "conversations.jsonl"),
        "--streaming",
        "--model",
        "m",
      ]);
      await Deno.remove(join(run.runDir, ".."), { recursive: true });
      assert.equal(run.code, 0, run.err);
      const chat2 = server.captured.filter((c) => c.session === "chat_2");
      assert.equal(chat2.length, 3);
      const last = JSON.parse(chat2[2].body).messages;
      assert.deepEqual(last, [
        { role: "user", content: "Explain neural networks." },
        { role: "assistant", content: chat2[0].answer },
        { role: "user", content: "How do they differ from traditional algorithms?" },
        { role: "assistant", content: chat2[1].answer },
        { role: "user", content: "Which architecture for image classification?" },
      ]);
    } finally {
      await server.close();
    }
  },
);

Deno.test(
  "synthetic: same seed, same inputs.json; prompts have exactly --isl tokens",
  opts,
  async () => {
    const { builtinTokenizer } = await import("../../src/tokenizer/tokenizer.ts");
    const server = startCaptureServer();
    const texts: string[] = [];
    try {
      const args = [
        "--model",
        "m",
        "--url",
        server.hostPort,
        "--isl",
        "64",
        "--osl",
        "5",
        "--num-conversations",
        "5",
        "--session-turns-mean",
        "2",
        "--shared-system-prompt-length",
        "10",
        "--random-seed",
        "42",
      ];
      for (let i = 0; i < 2; i++) {
        const run = await profile(args);
        assert.equal(run.code, 0, run.err);
        texts.push(await Deno.readTextFile(join(run.runDir, "inputs.json")));
        await Deno.remove(join(run.runDir, ".."), { recursive: true });
      }
      assert.equal(texts[0], texts[1]);
      const doc = JSON.parse(texts[0]);
      assert.equal(doc.data.length, 5);
      const tok = builtinTokenizer();
      for (const s of doc.data) {
        assert.equal(s.payloads.length, 2);
        for (const p of s.payloads) {
          assert.equal(p.max_completion_tokens, 5);
          assert.equal(p.messages[0].role, "system");
          assert.equal(tok.count(p.messages[0].content), 10);
          assert.equal(tok.count(p.messages.at(-1).content), 64);
        }
      }
      const other = await profile([...args.slice(0, -1), "43"]);
      assert.notEqual(await Deno.readTextFile(join(other.runDir, "inputs.json")), texts[0]);
      await Deno.remove(join(other.runDir, ".."), { recursive: true });
    } finally {
      await server.close();
    }
  },
);

Deno.test("every prompt format runs end to end against the mock server", opts, async () => {
  const server = await startMockServer({ ttftMs: 1, itlMs: 0, outputTokens: 3 });
  try {
    for (
      const input of [
        ["--input-file", join(SNIPPETS, "prompts.jsonl")],
        ["--input-file", join(SNIPPETS, "conversations.jsonl")],
        ["--input-file", join(SNIPPETS, "prompts.jsonl"), "--custom-dataset-type", "random_pool"],
        ["--input-file", join(SNIPPETS, "custom_trace.jsonl")],
        ["--isl", "32", "--num-conversations", "3", "--session-turns-mean", "2"],
      ]
    ) {
      const run = await profile([
        "--url",
        server.url.replace("http://", ""),
        "--model",
        "m",
        "--streaming",
        ...input,
      ]);
      try {
        assert.equal(run.code, 0, `${input.join(" ")}: ${run.err}`);
        const summary = JSON.parse(
          await Deno.readTextFile(join(run.runDir, "profile_export_aiperf.json")),
        );
        assert.ok(summary.request_count.avg > 0);
        assert.equal(summary.error_request_count?.avg ?? 0, 0);
      } finally {
        await Deno.remove(join(run.runDir, ".."), { recursive: true });
      }
    }
  } finally {
    await server.close();
  }
});

Deno.test("sampling defaults per dataset type; the flag overrides it", opts, async () => {
  const dir = await Deno.makeTempDir({ prefix: "reprise-e2e-sampling-" });
  const file = join(dir, "prompts.jsonl");
  await Deno.writeTextFile(file, ["p0", "p1", "p2"].map((t) => `{"text":"${t}"}\n`).join(""));
  const server = startCaptureServer();
  try {
    const run = async (args: string[]) => {
      const before = server.captured.length;
      const r = await profile([
        "--url",
        server.hostPort,
        "--model",
        "m",
        "--concurrency",
        "1",
        "--request-count",
        "6",
        ...args,
      ]);
      try {
        assert.equal(r.code, 0, r.err);
        const summary = JSON.parse(
          await Deno.readTextFile(join(r.runDir, "profile_export_aiperf.json")),
        );
        const texts = server.captured.slice(before).map((c) =>
          JSON.parse(c.body).messages.at(-1).content
        );
        return { sampling: summary.input_config.datasets[0].sampling, texts };
      } finally {
        await Deno.remove(join(r.runDir, ".."), { recursive: true });
      }
    };
    // Files replay in order, wrapping around.
    const files = await run(["--input-file", file]);
    assert.equal(files.sampling, "sequential");
    assert.deepEqual(files.texts, ["p0", "p1", "p2", "p0", "p1", "p2"]);
    // Given, the flag wins: each round of three is a permutation.
    const shuffled = await run(["--input-file", file, "--dataset-sampling-strategy", "shuffle"]);
    assert.equal(shuffled.sampling, "shuffle");
    assert.deepEqual(shuffled.texts.slice(0, 3).sort(), ["p0", "p1", "p2"]);
    assert.deepEqual(shuffled.texts.slice(3).sort(), ["p0", "p1", "p2"]);
    const pool = await run(["--input-file", file, "--custom-dataset-type", "random_pool"]);
    assert.equal(pool.sampling, "random");
    const synthetic = await run(["--isl", "8", "--num-conversations", "3"]);
    assert.equal(synthetic.sampling, "shuffle");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
