import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { base64 } from "../../src/util/base64.ts";

Deno.test("base64 writes what Buffer writes, padding included, also for a view into a buffer", () => {
  const all = new Uint8Array(259).map((_, i) => (i * 37) & 0xff);
  for (
    const bytes of [
      all,
      all.subarray(3, 4),
      all.subarray(1, 3),
      all.subarray(5, 200),
      all.subarray(0, 0),
    ]
  ) {
    assert.equal(
      base64(bytes),
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
    );
  }
  assert.equal(base64(new TextEncoder().encode("hi?>")), "aGk/Pg==");
});
