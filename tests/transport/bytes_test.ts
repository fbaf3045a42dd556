import assert from "node:assert/strict";
import { concat, writeAll } from "../../src/transport/bytes.ts";

Deno.test("writeAll: a writer that takes at most 3 bytes a call still gets every byte, in order", async () => {
  const got: number[] = [];
  let calls = 0;
  const writer = {
    write(p: Uint8Array): Promise<number> {
      calls++;
      const n = Math.min(3, p.length);
      got.push(...p.subarray(0, n));
      return Promise.resolve(n);
    },
  };
  await writeAll(writer, Uint8Array.from({ length: 10 }, (_, i) => i + 1));
  assert.deepEqual(got, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.equal(calls, 4);
});

Deno.test("concat: parts joined in order; a single part is returned as it is", () => {
  const one = new Uint8Array([7, 8]);
  assert.equal(concat([one]), one);
  assert.deepEqual(
    concat([new Uint8Array([1]), new Uint8Array([]), new Uint8Array([2, 3])]),
    new Uint8Array([1, 2, 3]),
  );
});
