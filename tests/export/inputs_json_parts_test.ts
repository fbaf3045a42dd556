import assert from "node:assert/strict";
import { join } from "node:path";
import { inputsJson, writeInputsJson } from "../../src/export/inputs_json.ts";

Deno.test("writeInputsJson writes in pieces the same bytes inputsJson joins, past its chunk size", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Twelve bodies of 1 MiB each: three chunks' worth, each body spliced whole.
    const big = (i: number) => JSON.stringify({ i, pad: "x".repeat(1 << 20) });
    const sessions = [
      { sessionId: "a", payloads: [big(0), big(1), big(2), big(3)] },
      { sessionId: "b", payloads: Array.from({ length: 8 }, (_, i) => big(4 + i)) },
      { sessionId: "c", payloads: [] },
    ];
    const path = join(dir, "run", "inputs.json");
    await writeInputsJson(path, sessions);
    const text = await Deno.readTextFile(path);
    assert.equal(text, inputsJson(sessions));
    assert.deepEqual(JSON.parse(text).data.map((s: { payloads: unknown[] }) => s.payloads.length), [
      4,
      8,
      0,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
