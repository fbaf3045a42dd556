import assert from "node:assert/strict";
import { join } from "node:path";
import { loadDataset } from "../../src/dataset/mod.ts";
import { loadRawPayload } from "../../src/dataset/raw_payload.ts";
import { rejectsWith, SNIPPETS, withTempDir, write } from "./helpers.ts";

const body = (content: string, extra = "") =>
  `{"messages": [{"role": "user", "content": ${JSON.stringify(content)}}]${extra}}`;

Deno.test("raw_payload single file: the docs snippet", async (t) => {
  const path = join(SNIPPETS, "payloads.jsonl");
  const lines = (await Deno.readTextFile(path)).split("\n").filter((l) => l.trim() !== "");
  for (const type of [undefined, "raw_payload"]) {
    await t.step(`type ${type ?? "detected"}`, async () => {
      const ds = await loadDataset(path, { type });
      assert.equal(ds.type, "raw_payload");
      assert.equal(ds.source, path);
      assert.equal(ds.conversations.length, 3);
      ds.conversations.forEach((c, i) => {
        assert.equal(c.sessionId, `payloads-${i + 1}`);
        assert.equal(c.turns.length, 1);
        assert.equal(c.turns[0].body, lines[i]);
        assert.equal(c.turns[0].origin, `${path}:${i + 1}`);
      });
    });
  }
});

Deno.test("raw_payload single file: session_001 snippet is two single-turn conversations", async () => {
  const path = join(SNIPPETS, "session_001.jsonl");
  const lines = (await Deno.readTextFile(path)).split("\n").filter((l) => l !== "");
  for (const type of [undefined, "raw_payload"]) {
    const ds = await loadDataset(path, { type });
    assert.deepEqual(ds.conversations.map((c) => c.turns.map((x) => x.body)), [
      [lines[0]],
      [lines[1]],
    ]);
    assert.deepEqual(ds.conversations.map((c) => c.sessionId), ["session_001-1", "session_001-2"]);
  }
});

Deno.test("raw_payload keeps each line verbatim, trimming only the terminator and spaces", async () => {
  await withTempDir(async (dir) => {
    const a =
      `{"z":1,  "messages":[ {"role":"user","content":"caf\u00e9 \u2603 \\u00e9"} ],"model":"m" , "n":1.50e+3}`;
    const b = `{"messages":[],"extra":{"k":[1,2,3]}}`;
    const c = body("tabs\tinside");
    const text = `\uFEFF${a}\r\n\n   \t\n  ${b}   \r\n\t${c}`; // BOM, CRLF, blank lines, no final newline
    const path = await write(dir, "mixed.jsonl", text);
    const ds = await loadRawPayload(path);
    assert.deepEqual(ds.conversations.map((x) => x.turns[0].body), [a, b, c]);
    // Line numbers count blank lines.
    assert.deepEqual(ds.conversations.map((x) => x.sessionId), ["mixed-1", "mixed-4", "mixed-5"]);
    assert.deepEqual(ds.conversations.map((x) => x.turns[0].origin), [
      `${path}:1`,
      `${path}:4`,
      `${path}:5`,
    ]);
  });
});

Deno.test("raw_payload reads lines across read-buffer boundaries and longer than the buffer", async () => {
  await withTempDir(async (dir) => {
    const lines: string[] = [];
    // Sizes around the 1 MiB read buffer, including one line of 2.5 MiB.
    for (const size of [10, 1_048_500, 300, 2_600_000, 5, 1_048_576, 77]) {
      lines.push(body("é".repeat(Math.floor(size / 2)) + "x".repeat(size % 2)));
    }
    const path = await write(dir, "big.jsonl", lines.join("\n") + "\n");
    const ds = await loadRawPayload(path);
    assert.equal(ds.conversations.length, lines.length);
    ds.conversations.forEach((c, i) => {
      assert.ok(c.turns[0].body === lines[i], `line ${i + 1} differs`);
      assert.equal(c.sessionId, `big-${i + 1}`);
    });
  });
});

Deno.test("raw_payload directory: one conversation per .jsonl file, sorted, lines are turns", async () => {
  await withTempDir(async (dir) => {
    await write(dir, "b.jsonl", `${body("b1")}\n${body("b2")}\n${body("b3")}\n`);
    await write(dir, "a.jsonl", `${body("a1")}\n\n${body("a2")}`);
    await write(dir, "B-upper.jsonl", body("B"));
    await write(dir, "10.jsonl", body("ten"));
    await write(dir, "2.jsonl", body("two"));
    await write(dir, "notes.txt", "ignored");
    await write(dir, "data.json", "{}");
    await Deno.mkdir(join(dir, "sub.jsonl"));
    await write(dir, "sub.jsonl/inner.jsonl", body("nested, ignored"));
    for (const type of [undefined, "raw_payload"]) {
      const ds = await loadDataset(dir, { type });
      assert.equal(ds.type, "raw_payload");
      // Code-unit order: digits, then upper case, then lower case.
      assert.deepEqual(ds.conversations.map((c) => c.sessionId), ["10", "2", "B-upper", "a", "b"]);
      const a = ds.conversations[3];
      assert.deepEqual(a.turns.map((x) => x.body), [body("a1"), body("a2")]);
      assert.deepEqual(a.turns.map((x) => x.origin), [
        `${join(dir, "a.jsonl")}:1`,
        `${join(dir, "a.jsonl")}:3`,
      ]);
      assert.deepEqual(ds.conversations[4].turns.map((x) => x.body), [
        body("b1"),
        body("b2"),
        body("b3"),
      ]);
    }
  });
});

Deno.test("raw_payload directory: the docs snippet as conversations/session_001.jsonl", async () => {
  await withTempDir(async (dir) => {
    const text = await Deno.readTextFile(join(SNIPPETS, "session_001.jsonl"));
    await write(dir, "session_001.jsonl", text);
    const ds = await loadDataset(dir, {});
    assert.equal(ds.conversations.length, 1);
    assert.equal(ds.conversations[0].sessionId, "session_001");
    assert.deepEqual(
      ds.conversations[0].turns.map((x) => x.body),
      text.split("\n").filter((l) => l !== ""),
    );
  });
});

Deno.test("raw_payload bad input names the file and line", async (t) => {
  await withTempDir(async (dir) => {
    const ok = body("fine");
    const cases: [string, string, string[]][] = [
      ["bad-json.jsonl", `${ok}\n${ok}\n{"messages": [}\n`, ["line 3 is not valid JSON ("]],
      ["not-object.jsonl", `${ok}\n[1, 2]\n`, ["line 2 must be a JSON object", "found an array"]],
      ["string.jsonl", `"hello"\n`, ["line 1 must be a JSON object", "found a string"]],
      ["no-messages.jsonl", `${ok}\n\n{"prompt": "x"}\n`, ['line 3 has no "messages" field']],
      ["messages-type.jsonl", `{"messages": "hi"}`, [
        'line 1: "messages" must be a list',
        "a string",
      ]],
      ["empty.jsonl", "", ["the file is empty"]],
      ["blank.jsonl", "\n  \r\n\t\n", ["the file is empty"]],
    ];
    for (const [name, text, parts] of cases) {
      await t.step(name, async () => {
        const path = await write(dir, name, text);
        await rejectsWith(loadDataset(path, { type: "raw_payload" }), `"${path}"`, ...parts);
      });
    }
    await t.step("a pretty-printed document hints at inputs_json", async () => {
      const path = await write(dir, "pretty.json", '{\n  "data": []\n}\n');
      await rejectsWith(
        loadDataset(path, { type: "raw_payload" }),
        "line 1 is not valid JSON",
        "--custom-dataset-type inputs_json",
      );
    });
  });
});

Deno.test("raw_payload binary input: NUL bytes and invalid UTF-8 are named with their line", async (t) => {
  await withTempDir(async (dir) => {
    const enc = new TextEncoder();
    const ok = enc.encode(body("fine") + "\n");
    const join3 = (...parts: Uint8Array[]) => {
      const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) {
        out.set(p, at);
        at += p.length;
      }
      return out;
    };
    await t.step("NUL byte", async () => {
      const path = await write(dir, "nul.jsonl", join3(ok, ok, new Uint8Array([0x7b, 0, 0x7d])));
      await rejectsWith(loadRawPayload(path), `"${path}"`, "line 3 contains a NUL byte", "binary");
    });
    await t.step("a binary file (PNG header)", async () => {
      // The PNG signature holds two LF bytes, so the NUL after it is on line 3.
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
      const path = await write(dir, "image.jsonl", png);
      await rejectsWith(loadDataset(path, {}), `"${path}"`, "line 3 contains a NUL byte");
    });
    await t.step("invalid UTF-8", async () => {
      const bad = join3(
        ok,
        ok,
        ok,
        enc.encode('{"messages": ["'),
        new Uint8Array([0xc3, 0x28]),
        enc.encode('"]}\n'),
        ok,
      );
      const path = await write(dir, "latin.jsonl", bad);
      await rejectsWith(loadRawPayload(path), `"${path}"`, "line 4 is not valid UTF-8");
    });
  });
});

Deno.test("raw_payload directory bad input", async (t) => {
  await withTempDir(async (root) => {
    await t.step("empty directory", async () => {
      const dir = join(root, "empty");
      await Deno.mkdir(dir);
      await rejectsWith(loadDataset(dir, {}), `"${dir}"`, "the directory is empty");
      await rejectsWith(loadDataset(dir, { type: "raw_payload" }), "the directory is empty");
    });
    await t.step("no .jsonl file", async () => {
      const dir = join(root, "nojsonl");
      await Deno.mkdir(dir);
      await write(dir, "a.json", body("x"));
      await write(dir, "b.txt", "x");
      await rejectsWith(loadDataset(dir, {}), `"${dir}"`, "has no .jsonl file", "2 other entries");
    });
    await t.step("a .jsonl symlink that loops is named", async () => {
      const dir = join(root, "loop");
      await Deno.mkdir(dir);
      await Deno.symlink(join(dir, "a.jsonl"), join(dir, "a.jsonl"));
      await Deno.symlink(join(dir, "nowhere"), join(dir, "b.jsonl"));
      const msg = await rejectsWith(
        loadDataset(dir, {}),
        `"${join(dir, "a.jsonl")}"`,
        "the symlink is a loop",
      );
      assert.ok(!msg.includes("\n"), msg);
    });
    await t.step("a .jsonl symlink to nothing is counted", async () => {
      const dir = join(root, "dangling");
      await Deno.mkdir(dir);
      await Deno.symlink(join(dir, "nowhere"), join(dir, "b.jsonl"));
      await rejectsWith(
        loadDataset(dir, {}),
        "has no .jsonl file",
        "1 .jsonl symlink leads nowhere",
      );
    });
    await t.step("an empty .jsonl file", async () => {
      const dir = join(root, "oneempty");
      await Deno.mkdir(dir);
      await write(dir, "a.jsonl", body("x"));
      const empty = await write(dir, "b.jsonl", "\n");
      await rejectsWith(
        loadDataset(dir, { type: "raw_payload" }),
        `"${empty}"`,
        "the file is empty",
      );
    });
    await t.step("a bad line in the second file", async () => {
      const dir = join(root, "badline");
      await Deno.mkdir(dir);
      await write(dir, "a.jsonl", body("x"));
      const b = await write(dir, "b.jsonl", `${body("y")}\n{"nope": 1}\n`);
      await rejectsWith(loadDataset(dir, {}), `"${b}"`, 'line 2 has no "messages" field');
    });
  });
});

Deno.test("a missing path is a clear error", async () => {
  for (const type of [undefined, "raw_payload", "inputs_json"]) {
    await rejectsWith(
      loadDataset("/nonexistent/reprise/payloads.jsonl", { type }),
      'Cannot read dataset "/nonexistent/reprise/payloads.jsonl": no such file or directory',
    );
  }
});
