import assert from "node:assert/strict";
import { compileWat, MODULE_PATH, moduleText, WAT_PATH } from "../../scripts/gen_sse_scan.ts";

Deno.test("sse_scan_wasm.ts is the module compiled from sse_scan.wat", async () => {
  const root = new URL("../../", import.meta.url);
  const wasm = await compileWat(await Deno.readTextFile(new URL(WAT_PATH, root)));
  const onDisk = await Deno.readTextFile(new URL(MODULE_PATH, root));
  assert.ok(onDisk === moduleText(wasm), "regenerate with scripts/gen_sse_scan.ts");
  assert.ok(WebAssembly.validate(wasm));
});
