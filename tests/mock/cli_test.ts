import assert from "node:assert/strict";
import { runMockServer } from "../../src/mock/cli.ts";

Deno.test("runMockServer prints its URL, serves, and stops on abort", async () => {
  const lines: string[] = [];
  const ac = new AbortController();
  const { promise: listening, resolve } = Promise.withResolvers<string>();
  const done = runMockServer({ port: 0, outputTokens: 2 }, {
    stderr: (line) => {
      lines.push(line);
      resolve(line);
    },
    signal: ac.signal,
  });
  const line = await listening;
  const url = line.match(/^mock server listening on (http:\/\/127\.0\.0\.1:\d+)$/)?.[1];
  assert.ok(url, line);
  const res = await fetch(`${url}/health`);
  assert.equal(res.status, 200);
  await res.body?.cancel();
  ac.abort();
  assert.equal(await done, 0);
  assert.equal(lines.length, 1);
  await assert.rejects(() => fetch(`${url}/health`), TypeError, "the server is down");
});

Deno.test("runMockServer stops on SIGTERM", async () => {
  if (Deno.build.os === "windows") return;
  const src = new URL("../../src/mock/cli.ts", import.meta.url).href;
  const code = `import { runMockServer } from ${JSON.stringify(src)};
    const rc = await runMockServer({ port: 0 }, { stderr: (l) => console.error(l) });
    console.error("exit " + rc);`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    cwd: new URL("../..", import.meta.url).pathname,
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let err = "";
  const timer = setTimeout(() => child.kill("SIGKILL"), 20000);
  try {
    while (!err.includes("listening on")) {
      const { value, done } = await reader.read();
      if (done) break;
      err += value;
    }
    assert.match(err, /mock server listening on http:\/\/127\.0\.0\.1:\d+/);
    child.kill("SIGTERM");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      err += value;
    }
    const status = await child.status;
    assert.equal(status.code, 0, err);
    assert.match(err, /exit 0/);
  } finally {
    clearTimeout(timer);
  }
});
