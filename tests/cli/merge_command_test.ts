import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import type { Io } from "../../src/cli/io.ts";

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    env: () => undefined,
    isTerminal: false,
  };
  return { code: await main(args, io), out, err };
}

Deno.test("reprise merge: bad input is one line and a documented exit code, before anything is written", async () => {
  const root = await Deno.makeTempDir();
  try {
    const out = join(root, "out");
    const none = await run(["merge", "--output", out]);
    assert.equal(none.code, 2);
    assert.match(none.err, /^error: merge needs at least one shard/);
    const noOut = await run(["merge", root]);
    assert.equal(noOut.code, 2);
    assert.match(noOut.err, /^error: merge needs --output <dir>\n$/);
    const missing = await run(["merge", join(root, "nope"), "--output", out]);
    assert.equal(missing.code, 3);
    assert.match(missing.err, /^error: Cannot read ".*nope": no such folder\n$/);
    const empty = await run(["merge", root, "--output", out]);
    assert.equal(empty.code, 3);
    assert.match(empty.err, /holds no profile_export_aiperf\.json or profile_export\.jsonl/);
    // A live API that is not there: waited for as long as asked, then one line.
    const port = (() => {
      const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const p = (l.addr as Deno.NetAddr).port;
      l.close();
      return p;
    })();
    const down = await run(["merge", `http://127.0.0.1:${port}`, "--output", out]);
    assert.equal(down.code, 3);
    assert.match(down.err, /the run has not ended \(unreachable\); give --wait-seconds/);
    await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("reprise merge --help lists its options; the command list names it", async () => {
  const help = await run(["merge", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /--output DIR/);
  assert.match(help.out, /--wait-seconds S/);
  assert.match((await run(["--help"])).out, /^ {2}merge {9}Join the shards/m);
});
