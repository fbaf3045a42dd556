import assert from "node:assert/strict";
import { concat, sameBytes, writeAll } from "../../src/util/bytes.ts";

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

Deno.test("sameBytes: equal only when every byte is, at any offset and length", () => {
  const bytes = Uint8Array.from({ length: 23 }, (_, i) => (i * 37 + 11) & 0xff);
  for (let n = 0; n <= bytes.length; n++) {
    const kept = bytes.slice(0, n);
    const view = new DataView(kept.buffer);
    for (let lead = 0; lead < 4; lead++) {
      const b = new Uint8Array(lead + n + 3);
      b.set(kept, lead);
      assert.equal(sameBytes(kept, view, b, lead, n), true, `n ${n}, at ${lead}`);
      for (let i = 0; i < n; i++) {
        b[lead + i] ^= 0x80;
        assert.equal(sameBytes(kept, view, b, lead, n), false, `n ${n}, at ${lead}, byte ${i}`);
        b[lead + i] ^= 0x80;
      }
    }
  }
  // A range from `i`: bytes before it are not compared, every one from it is.
  const kept = bytes.slice();
  const view = new DataView(kept.buffer);
  for (let i = 0; i < kept.length; i++) {
    const b = new Uint8Array(2 + kept.length);
    b.set(kept, 2);
    if (i > 0) b[2 + i - 1] ^= 0x80;
    assert.equal(sameBytes(kept, view, b, 2, kept.length, i), true, `from ${i}`);
    for (let j = i; j < kept.length; j++) {
      b[2 + j] ^= 0x80;
      assert.equal(sameBytes(kept, view, b, 2, kept.length, i), false, `from ${i}, byte ${j}`);
      b[2 + j] ^= 0x80;
    }
  }
  // Another array of the same bytes: the view made for the last one is not reused for it.
  const a = Uint8Array.from([1, 2, 3, 4, 5]);
  const other = Uint8Array.from([1, 2, 3, 4, 6]);
  const aView = new DataView(a.slice().buffer);
  assert.equal(sameBytes(a, aView, a, 0, 5), true);
  assert.equal(sameBytes(a, aView, other, 0, 5), false);
});
