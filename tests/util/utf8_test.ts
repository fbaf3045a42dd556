import assert from "node:assert/strict";
import { utf8Length } from "../../src/util/utf8.ts";

Deno.test("utf8Length: the bytes TextEncoder writes, ASCII or not, lone surrogates as U+FFFD", () => {
  const enc = new TextEncoder();
  const cases = ["", 'data: {"a":1}\n\n', "é", "€ and ✓", "😀", "a\ud800b", "\udc00", "x\ud83d"];
  for (const s of cases) assert.equal(utf8Length(s), enc.encode(s).length, JSON.stringify(s));
  assert.equal(utf8Length("😀"), 4);
  assert.equal(utf8Length("a\ud800b"), 5);
});
