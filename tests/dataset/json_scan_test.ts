import assert from "node:assert/strict";
import {
  forEachElement,
  forEachMember,
  JsonSyntaxError,
  kindAt,
  lineColumn,
  skipSpace,
  skipValue,
} from "../../src/dataset/json_scan.ts";
import { mulberry32 } from "../../src/util/rng.ts";

/** True when the scanner accepts `text` as exactly one JSON document. */
function scans(text: string): boolean {
  try {
    return skipSpace(text, skipValue(text, 0)) === text.length;
  } catch (err) {
    if (err instanceof JsonSyntaxError) return false;
    throw err;
  }
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

Deno.test("skipValue accepts what JSON.parse accepts", () => {
  const valid = [
    "0",
    "-0",
    "-12.5e+10",
    "1E5",
    '"a\\"b\\\\c\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00"',
    '"caf\u00e9 \u2603"',
    "true",
    "false",
    "null",
    "[]",
    "{}",
    ' [ 1 , [ ] , { } , "x" ] ',
    '{"a":{"b":[{"c":null}]},"d":-1.0e-3}',
    "[".repeat(5000) + "]".repeat(5000),
  ];
  for (const text of valid) assert.ok(scans(text), `should scan: ${text.slice(0, 40)}`);
});

Deno.test("skipValue rejects what JSON.parse rejects", () => {
  const invalid = [
    "",
    " ",
    "01",
    "1.",
    ".5",
    "+1",
    "1e",
    "-",
    "tru",
    "nul",
    "NaN",
    '"unterminated',
    '"bad \\x escape"',
    '"bad \\u12 escape"',
    '"raw\ttab"',
    '"raw\nnewline"',
    "[1,]",
    "[,1]",
    "[1 2]",
    '{"a":1,}',
    '{"a" 1}',
    "{a:1}",
    "{'a':1}",
    '{"a":1',
    "[1",
    "[] []",
    "{} x",
    "[".repeat(3) + "]".repeat(2),
  ];
  for (const text of invalid) {
    assert.equal(parses(text), false, `JSON.parse should reject ${JSON.stringify(text)}`);
    assert.equal(scans(text), false, `should not scan: ${JSON.stringify(text)}`);
  }
});

Deno.test("skipValue agrees with JSON.parse on mutated documents", () => {
  const rand = mulberry32(7);
  const base = [
    '{"messages":[{"role":"user","content":"hi \\"there\\""}],"max_tokens":10,"t":0.5}',
    '[1,-2.5e3,true,false,null,"x",{"k":[]}]',
    '{"data":[{"session_id":"s","payloads":[{"a":1},{"b":[2,3]}]}]}',
  ];
  const alphabet = ' {}[],:"\\0123456789.-+eEtrufalsn\n\tx';
  for (let n = 0; n < 3000; n++) {
    let text = base[n % base.length];
    const edits = 1 + Math.floor(rand() * 3);
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(rand() * (text.length + 1));
      const op = rand();
      const ch = alphabet[Math.floor(rand() * alphabet.length)];
      if (op < 0.4) text = text.slice(0, at) + text.slice(at + 1); // delete
      else if (op < 0.7) text = text.slice(0, at) + ch + text.slice(at); // insert
      else text = text.slice(0, at) + ch + text.slice(at + 1); // replace
    }
    assert.equal(
      scans(text),
      parses(text),
      `scanner and JSON.parse disagree on ${JSON.stringify(text)}`,
    );
  }
});

Deno.test("walkers report keys, indexes and exact spans", () => {
  const text = ' { "a" : [ 1 , {"x": "y"} ] , "b\\u0041" : "s" } ';
  const members: [string, string][] = [];
  const end = forEachMember(text, 0, (key, at) => {
    const stop = skipValue(text, at);
    members.push([key, text.slice(at, stop)]);
    if (key === "a") {
      const items: string[] = [];
      forEachElement(text, at, (i, p) => {
        const e = skipValue(text, p);
        items.push(`${i}:${text.slice(p, e)}`);
        return e;
      });
      assert.deepEqual(items, ["0:1", '1:{"x": "y"}']);
    }
    return stop;
  });
  assert.deepEqual(members, [["a", '[ 1 , {"x": "y"} ]'], ["bA", '"s"']]);
  assert.equal(text.slice(end), " ");
  assert.equal(kindAt(text, 1), "object");
  assert.equal(kindAt(text, 3), "string");
  assert.equal(kindAt(text, 0), null);
});

Deno.test("syntax errors carry their offset; lineColumn converts it", () => {
  const text = '{\n  "a": [1,\n    2\n  }\n}';
  try {
    skipValue(text, 0);
    assert.fail("should throw");
  } catch (err) {
    assert.ok(err instanceof JsonSyntaxError);
    assert.equal(err.expected, "',' or ']'");
    assert.deepEqual(lineColumn(text, err.offset), { line: 4, column: 3 });
  }
  assert.deepEqual(lineColumn("abc", 0), { line: 1, column: 1 });
  assert.deepEqual(lineColumn("a\nbc", 3), { line: 2, column: 2 });
});
