import assert from "node:assert/strict";
import { join } from "node:path";
import { detectDatasetType } from "../../src/dataset/detect.ts";
import { customDatasetTypes, loadDataset } from "../../src/dataset/mod.ts";
import { REF, rejectsWith, SNIPPETS, withTempDir, write } from "./helpers.ts";

const KNOWN =
  "raw_payload, inputs_json, single_turn, multi_turn, random_pool, mooncake_trace, sharegpt";

Deno.test("customDatasetTypes lists the loaders of this build", () => {
  assert.deepEqual([...customDatasetTypes], KNOWN.split(", "));
  assert.ok(Object.isFrozen(customDatasetTypes));
});

Deno.test("detection picks the type from the content", async (t) => {
  await t.step("fixtures", async () => {
    const cases: [string, string][] = [
      [join(SNIPPETS, "payloads.jsonl"), "raw_payload"],
      [join(SNIPPETS, "session_001.jsonl"), "raw_payload"],
      [join(SNIPPETS, "inputs.json"), "inputs_json"],
      [join(REF, "canary_reference_inputs.json"), "inputs_json"],
    ];
    for (const [path, type] of cases) {
      const detected = await detectDatasetType(path, customDatasetTypes);
      assert.equal(detected.type, type, path);
    }
  });
  await withTempDir(async (dir) => {
    await t.step("a compact inputs.json on one line", async () => {
      const path = await write(
        dir,
        "one.json",
        '{"data":[{"session_id":"a","payloads":[{"x":1}]}]}',
      );
      assert.equal((await detectDatasetType(path, customDatasetTypes)).type, "inputs_json");
    });
    await t.step("a pretty-printed inputs.json is loaded once, during detection", async () => {
      const path = await write(dir, "pretty.json", '\n\n  {\n "data": [{"payloads": [{}]}]}');
      const detected = await detectDatasetType(path, customDatasetTypes);
      assert.equal(detected.type, "inputs_json");
      assert.equal(detected.dataset?.conversations[0].turns[0].body, "{}");
    });
    await t.step("a raw_payload body with extra fields", async () => {
      const path = await write(
        dir,
        "rp.jsonl",
        '\n{"model":"m","messages":[],"data":"not a list"}',
      );
      assert.equal((await detectDatasetType(path, customDatasetTypes)).type, "raw_payload");
    });
  });
});

Deno.test("detection failures say what was seen and which types to pass", async (t) => {
  await t.step("AIPerf formats this build does not load", async () => {
    const cases: [string, string][] = [
      [join(REF, "small.dag.jsonl"), "dag_jsonl"],
    ];
    for (const [path, lookalike] of cases) {
      await rejectsWith(
        loadDataset(path, {}),
        `"${path}"`,
        "cannot tell the dataset type from line 1, a JSON object with keys",
        `AIPerf's ${lookalike} format`,
        `--custom-dataset-type with one of: ${KNOWN}`,
      );
    }
  });
  await t.step("one JSON document that is not inputs_json", async () => {
    const path = join(REF, "simple.json");
    await rejectsWith(
      loadDataset(path, {}),
      `"${path}"`,
      "the file is one JSON document, but not an inputs_json file",
      '"requests"',
      KNOWN,
    );
  });
  await withTempDir(async (dir) => {
    const cases: [string, string, string[]][] = [
      ["trajectory.jsonl", '{"conversation_id":"c","messages":[]}', [
        "line 1",
        '"conversation_id"',
        "agent trajectory",
        KNOWN,
      ]],
      ["ambiguous.jsonl", '{"messages":[],"data":[{"payloads":[]}]}', [
        "line 1",
        "ambiguous",
        '"messages" list says raw_payload',
        '"data" list says inputs_json',
        KNOWN,
      ]],
      ["data-no-payloads.jsonl", '{"data":[{"x":1}]}', ['no sessions with a "payloads" list']],
      ["array.jsonl", "\n\n[1,2]\n", ["from line 3, an array", KNOWN]],
      ["other.jsonl", '{"prompt":"x"}', ['keys "prompt"', '"messages" list (raw_payload)', KNOWN]],
      ["csv.csv", "a,b\n1,2\n", ["cannot tell the dataset type: line 1 is not valid JSON"]],
      ["broken.json", '{\n  "data": [\n    {"payloads": [{"a": 1}]\n  ]\n}\n', [
        "line 1 is not a complete JSON value and the whole file is not one JSON document",
        "line 4, column 3",
      ]],
      ["empty.jsonl", "", ["the file is empty"]],
      ["blank.jsonl", " \n\r\n", ["the file is empty"]],
    ];
    for (const [name, text, parts] of cases) {
      await t.step(name, async () => {
        const path = await write(dir, name, text);
        await rejectsWith(loadDataset(path, {}), `"${path}"`, ...parts);
      });
    }
    await t.step("a directory whose .jsonl files are not request bodies", async () => {
      const sub = join(dir, "conv");
      await Deno.mkdir(sub);
      await write(sub, "a.jsonl", "\n");
      await write(sub, "b.jsonl", '{"prompt": "hi"}\n');
      await rejectsWith(
        loadDataset(sub, {}),
        `"${sub}"`,
        'line 1 of "b.jsonl" is a JSON object with keys "prompt"',
      );
    });
    await t.step("a directory of empty .jsonl files", async () => {
      const sub = join(dir, "blank");
      await Deno.mkdir(sub);
      await write(sub, "a.jsonl", "");
      await rejectsWith(loadDataset(sub, {}), "every .jsonl file in the directory is empty");
    });
  });
});

Deno.test("type names: unknown and unsupported ones list what this build loads", async () => {
  const path = join(SNIPPETS, "payloads.jsonl");
  await rejectsWith(
    loadDataset(path, { type: "rawpayload" }),
    `"${path}"`,
    `unknown --custom-dataset-type "rawpayload" (known: ${KNOWN})`,
  );
  await rejectsWith(
    loadDataset(join(SNIPPETS, "prompts.jsonl"), { type: "bailian_trace" }),
    `--custom-dataset-type bailian_trace is not supported by this build (it loads: ${KNOWN})`,
  );
});
