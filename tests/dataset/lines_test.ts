import assert from "node:assert/strict";
import { forEachLine, readText } from "../../src/dataset/lines.ts";
import { rejectsWith, withTempDir, write } from "./helpers.ts";

Deno.test("forEachLine numbers lines, skips blank ones and can stop early", async () => {
  await withTempDir(async (dir) => {
    const path = await write(dir, "l.jsonl", "a\r\n\n  b  \n\t\nc\nd");
    const seen: [string, number][] = [];
    const all = await forEachLine(path, (text, line) => {
      seen.push([text, line]);
    });
    assert.deepEqual(seen, [["a", 1], ["b", 3], ["c", 5], ["d", 6]]);
    assert.deepEqual(all, { lines: 4, stopped: false });

    const firstTwo: string[] = [];
    const some = await forEachLine(path, (text) => {
      firstTwo.push(text);
      return firstTwo.length < 2;
    });
    assert.deepEqual(firstTwo, ["a", "b"]);
    assert.deepEqual(some, { lines: 2, stopped: true });
  });
});

Deno.test("forEachLine keeps multi-byte characters split across reads intact", async () => {
  await withTempDir(async (dir) => {
    // A 4-byte character straddles the 1 MiB read boundary.
    const head = "x".repeat((1 << 20) - 2);
    const path = await write(dir, "u.jsonl", `${head}\u{1F600}tail\nnext\u00e9`);
    const seen: string[] = [];
    await forEachLine(path, (text) => {
      seen.push(text);
    });
    assert.deepEqual(seen, [`${head}\u{1F600}tail`, "next\u00e9"]);
  });
});

Deno.test("readText drops a byte order mark and names the line of a NUL byte", async () => {
  await withTempDir(async (dir) => {
    assert.equal(await readText(await write(dir, "a.json", "\uFEFF{}\n")), "{}\n");
    const nul = await write(dir, "b.json", new Uint8Array([0x7b, 0x0a, 0x0a, 0x00]));
    await rejectsWith(readText(nul), `"${nul}"`, "line 3 contains a NUL byte");
    await rejectsWith(readText(`${dir}/missing.json`), "no such file or directory");
  });
});
