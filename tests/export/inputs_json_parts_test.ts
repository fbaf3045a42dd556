import assert from "node:assert/strict";
import { join } from "node:path";
import { inputsJson, writeInputsJson } from "../../src/export/inputs_json.ts";
import { writeArtifactParts } from "../../src/export/artifact.ts";

const big = (i: number) => JSON.stringify({ i, pad: "x".repeat(1 << 20) });

Deno.test("writeArtifactParts writes in chunks exactly the concatenation of its parts", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Twelve 1 MiB parts and small ones between: three chunks' worth, each part whole.
    const parts = Array.from({ length: 12 }, (_, i) => [big(i), ",\n"]).flat();
    const path = join(dir, "run", "big.txt");
    await writeArtifactParts(path, parts);
    assert.equal(await Deno.readTextFile(path), parts.join(""));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeInputsJson writes what inputsJson lays out", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const sessions = [
      { sessionId: "a", payloads: [big(0), big(1)] },
      { sessionId: "c", payloads: [] },
    ];
    const path = join(dir, "run", "inputs.json");
    await writeInputsJson(path, sessions);
    const text = await Deno.readTextFile(path);
    assert.equal(text, inputsJson(sessions));
    assert.deepEqual(
      JSON.parse(text).data.map((s: { payloads: unknown[] }) => s.payloads.length),
      [2, 0],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
