import assert from "node:assert/strict";
import { join } from "node:path";
import { parseInputsJson } from "../../src/dataset/inputs_json.ts";
import { loadDataset } from "../../src/dataset/mod.ts";
import type { Dataset } from "../../src/dataset/types.ts";
import { REF, rejectsWith, SNIPPETS, withTempDir, write } from "./helpers.ts";

/**
 * Checks that every body is an exact slice of the file text, in file order, and parses to the
 * payload JSON.parse sees at the same place.
 */
function assertVerbatim(ds: Dataset, text: string) {
  const doc = JSON.parse(text) as { data: { session_id?: string; payloads: unknown[] }[] };
  assert.equal(ds.conversations.length, doc.data.length);
  let from = 0;
  ds.conversations.forEach((conv, i) => {
    if (doc.data[i].session_id != null) assert.equal(conv.sessionId, doc.data[i].session_id);
    assert.equal(conv.turns.length, doc.data[i].payloads.length);
    conv.turns.forEach((turn, j) => {
      const at = text.indexOf(turn.body, from);
      assert.ok(
        at >= 0,
        `data[${i}].payloads[${j}] is not a slice of the file after offset ${from}`,
      );
      assert.equal(text.slice(at, at + turn.body.length), turn.body);
      assert.ok(turn.body.startsWith("{") && turn.body.endsWith("}"));
      assert.deepEqual(JSON.parse(turn.body), doc.data[i].payloads[j]);
      assert.match(turn.origin ?? "", new RegExp(`: data\\[${i}\\]\\.payloads\\[${j}\\]$`));
      from = at + turn.body.length;
    });
  });
}

Deno.test("inputs_json: the docs snippet and the canary reference file", async (t) => {
  for (const path of [join(SNIPPETS, "inputs.json"), join(REF, "canary_reference_inputs.json")]) {
    const text = await Deno.readTextFile(path);
    for (const type of [undefined, "inputs_json"]) {
      await t.step(`${path.split("/").pop()} with type ${type ?? "detected"}`, async () => {
        const ds = await loadDataset(path, { type });
        assert.equal(ds.type, "inputs_json");
        assert.equal(ds.source, path);
        assertVerbatim(ds, text);
      });
    }
  }
  await t.step("snippet details", async () => {
    const ds = await loadDataset(join(SNIPPETS, "inputs.json"), {});
    assert.equal(ds.conversations[0].sessionId, "session-001");
    assert.equal(ds.conversations[0].turns.length, 2);
    // Pretty-printed payloads keep their own line breaks and indentation.
    assert.equal(
      ds.conversations[0].turns[0].body,
      '{\n          "messages": [{"role": "user", "content": "Hello"}],\n' +
        '          "model": "Qwen/Qwen3-0.6B",\n          "max_tokens": 1024\n        }',
    );
  });
  await t.step("canary file keeps all 20 session ids in order", async () => {
    const ds = await loadDataset(join(REF, "canary_reference_inputs.json"), {});
    assert.deepEqual(
      ds.conversations.map((c) => c.sessionId),
      Array.from({ length: 20 }, (_, i) => `session_${String(i).padStart(6, "0")}`),
    );
  });
});

Deno.test("inputs_json: compact one-line documents, odd spacing and number spelling", async () => {
  await withTempDir(async (dir) => {
    const p1 = '{"messages":[{"role":"user","content":"a\\u00e9"}],"temperature":1.50,"n":1e2}';
    const p2 = '{ "z" : 1 , "a" : [ ] }';
    const p3 = '{"input":"embed me"}';
    const text = `{"extra":{"data":[1]},"data":[{"session_id":"s1","payloads":[${p1},\n\t${p2}]},` +
      `{"payloads":[${p3}],"session_id":null},{"session_id":"s\\"3","payloads":[{}]}]}\n`;
    for (const type of [undefined, "inputs_json"]) {
      const path = await write(dir, "compact.json", text);
      const ds = await loadDataset(path, { type });
      assert.equal(ds.type, "inputs_json");
      assert.deepEqual(ds.conversations.map((c) => c.turns.map((x) => x.body)), [[p1, p2], [p3], [
        "{}",
      ]]);
      // A missing or null session_id becomes <file stem>-<data index>.
      assert.deepEqual(ds.conversations.map((c) => c.sessionId), ["s1", "compact-1", 's"3']);
      assertVerbatim(ds, text);
    }
  });
});

Deno.test("inputs_json: a UTF-8 byte order mark is skipped", async () => {
  await withTempDir(async (dir) => {
    const path = await write(dir, "bom.json", '\uFEFF{"data":[{"payloads":[{"a":1}]}]}');
    const ds = await loadDataset(path, {});
    assert.equal(ds.conversations[0].turns[0].body, '{"a":1}');
  });
});

Deno.test("inputs_json bad input names the file and the JSON path", async (t) => {
  const cases: [string, string, string[]][] = [
    ["payload not object", '{"data":[{"payloads":[{}]},{"payloads":[{},"x"]}]}', [
      "data[1].payloads[1] must be a JSON object",
      "found a string",
      "line 1, column 44",
    ]],
    ["payload array", '{"data":[{"payloads":[[1]]}]}', [
      "data[0].payloads[0] must be a JSON object",
      "an array",
    ]],
    ["entry not object", '{"data":[{"payloads":[{}]}, 5]}', [
      "data[1] must be an object",
      "a number",
    ]],
    ["no payloads", '{"data":[{"payloads":[{}]},{"session_id":"x"}]}', [
      'data[1] has no "payloads" list',
    ]],
    ["payloads not list", '{"data":[{"payloads":{"a":1}}]}', [
      "data[0].payloads must be a list",
      "an object",
    ]],
    ["empty payloads", '{"data":[{"payloads":[]}]}', ["data[0].payloads is empty"]],
    ["session id type", '{"data":[{"session_id":7,"payloads":[{}]}]}', [
      "data[0].session_id must be a string",
      "a number",
    ]],
    ["empty data", '{"data":[]}', ['"data" is empty']],
    ["data not list", '{"data":{}}', ['"data" must be a list']],
    ["no data", '{"sessions":[]}', ['no "data" list', '"sessions"']],
    ["not object", "[1,2]", ['must be a JSON object with a "data" list', "an array"]],
    ["syntax", '{\n  "data": [\n    {"payloads": [\n      {"a": 1,}\n    ]}\n  ]\n}\n', [
      "not valid JSON at line 4, column 15 (in data[0].payloads[0])",
      "expected a string key",
    ]],
    ["trailing content", '{"data":[{"payloads":[{}]}]}\n{"data":[]}\n', [
      "line 2, column 1",
      "expected the end of the file",
    ]],
    ["empty file", "  \n", ["the file is empty"]],
  ];
  await withTempDir(async (dir) => {
    for (const [name, text, parts] of cases) {
      await t.step(name, async () => {
        const path = await write(dir, "in.json", text);
        await rejectsWith(loadDataset(path, { type: "inputs_json" }), `"${path}"`, ...parts);
      });
    }
    await t.step("NUL byte", async () => {
      const path = await write(dir, "nul.json", new Uint8Array([0x7b, 0x0a, 0x00, 0x7d]));
      await rejectsWith(loadDataset(path, { type: "inputs_json" }), "line 2 contains a NUL byte");
    });
    await t.step("invalid UTF-8", async () => {
      const bytes = new TextEncoder().encode('{"data":\n[{"payloads":[{"a":"\xff"}]}]}');
      bytes[bytes.indexOf(0xc3)] = 0xff; // break the two-byte sequence encoding U+00FF
      const path = await write(dir, "latin1.json", bytes);
      await rejectsWith(loadDataset(path, { type: "inputs_json" }), "line 2 is not valid UTF-8");
    });
    await t.step("a directory", async () => {
      await rejectsWith(loadDataset(dir, { type: "inputs_json" }), `"${dir}"`, "it is a directory");
    });
  });
});

Deno.test("parseInputsJson names the given source", () => {
  assert.throws(
    () => parseInputsJson('{"data":[{"payloads":[1]}]}', "mem.json"),
    /Cannot read dataset "mem.json": data\[0\]\.payloads\[0\] must be a JSON object/,
  );
});
