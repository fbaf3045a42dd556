import assert from "node:assert/strict";
import { join } from "node:path";
import { inputsJson, writeInputsJson } from "../../src/export/inputs_json.ts";
import { type Body, BodyStore } from "../../src/util/body_store.ts";
import { REFERENCE } from "../_reference.ts";

const REF = join(REFERENCE, "aiperf", "docs_snippets", "inputs.json");

Deno.test("inputsJson splices each payload byte for byte", () => {
  // Spacing, key order, escapes and number spellings a re-serialization would change.
  const p1 =
    '{"model":"m",  "messages":[{"role":"user","content":"h\\u00e9 \\"q\\""}],"temperature":1.0}';
  const p2 = '{\n  "model": "m",\n  "max_tokens": 1e3\n}';
  const p3 = '{"input":"naïve 🚀"}';
  const text = inputsJson([
    { sessionId: "s-1", payloads: [p1, p2] },
    { sessionId: 'odd "id"', payloads: [p3] },
  ]);
  for (const p of [p1, p2, p3]) assert.ok(text.includes(p), `payload spliced as is: ${p}`);
  const doc = JSON.parse(text);
  assert.deepEqual(doc, {
    data: [
      { session_id: "s-1", payloads: [JSON.parse(p1), JSON.parse(p2)] },
      { session_id: 'odd "id"', payloads: [JSON.parse(p3)] },
    ],
  });
});

Deno.test("inputsJson lays out like AIPerf's file", async () => {
  const ref = await Deno.readTextFile(REF);
  const text = inputsJson([{ sessionId: "session-001", payloads: ['{"a":1}'] }]);
  assert.equal(
    text,
    '{\n  "data": [\n    {\n      "session_id": "session-001",\n      "payloads": [\n        {"a":1}\n      ]\n    }\n  ]\n}\n',
  );
  // The reference opens the same way, down to the payload indentation.
  assert.ok(
    ref.startsWith(
      '{\n  "data": [\n    {\n      "session_id": "session-001",\n      "payloads": [\n        {',
    ),
  );
});

Deno.test("inputsJson: empty sessions and bodies that are not JSON", () => {
  assert.deepEqual(JSON.parse(inputsJson([])), { data: [] });
  assert.deepEqual(JSON.parse(inputsJson([{ sessionId: "s", payloads: [] }])), {
    data: [{ session_id: "s", payloads: [] }],
  });
  // A body that is not JSON is kept as a string so that the file still parses.
  assert.deepEqual(
    JSON.parse(inputsJson([{ sessionId: "s", payloads: ["plain text"] }])).data[0].payloads,
    [
      "plain text",
    ],
  );
});

Deno.test("writeInputsJson creates the directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "x", "inputs.json");
    await writeInputsJson(path, [{ sessionId: "s", payloads: ['{"k": 1}'] }]);
    assert.ok((await Deno.readTextFile(path)).includes('{"k": 1}'));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stored bodies are written byte for byte as the same bodies given as text", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const bodies = [
      '{"model":"m",  "messages":[{"role":"user","content":"h\\u00e9 🚀"}],"max_tokens":1e3}',
      '{\n  "input": "naïve"\n}',
      "not JSON",
    ];
    const store = new BodyStore(32);
    const sessions = (payloads: Body[][]) =>
      payloads.map((p, i) => ({ sessionId: `s${i}`, payloads: p }));
    const asText = sessions([[bodies[0], bodies[1]], [bodies[2]]]);
    const stored = sessions([[store.add(bodies[0]), bodies[1]], [store.add(bodies[2])]]);
    await writeInputsJson(join(dir, "text.json"), asText);
    await writeInputsJson(join(dir, "stored.json"), stored);
    const text = await Deno.readFile(join(dir, "text.json"));
    assert.deepEqual(await Deno.readFile(join(dir, "stored.json")), text);
    assert.equal(new TextDecoder().decode(text), inputsJson(asText));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
