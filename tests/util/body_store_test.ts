import assert from "node:assert/strict";
import { BodyStore, bodyText } from "../../src/util/body_store.ts";

Deno.test("a stored body decodes back to exactly its text, from bytes in shared memory", () => {
  const store = new BodyStore(16);
  const texts = ["abc", '\ufeff{"x":"naïve 🚀"}', "", "a body longer than one block of 16 bytes"];
  const refs = texts.map((t) => store.add(t));
  refs.forEach((r, i) => {
    assert.equal(r.index, i);
    assert.equal(bodyText(r), texts[i]);
    assert.deepEqual([...store.bytes(i)], [...new TextEncoder().encode(texts[i])]);
    assert.ok(store.bytes(i).buffer instanceof SharedArrayBuffer);
  });
  // "abc", the 24-byte body and the empty one share no block with the longer body, which has one
  // of its own size.
  const [block3, start3, end3] = store.span(3);
  assert.equal(start3, 0);
  assert.equal(end3, store.blocks[block3].length);
  assert.equal(store.span(0)[0], 0);
  assert.notEqual(store.span(1)[0], store.span(0)[0]);
  assert.equal(bodyText("plain"), "plain");
});
