import assert from "node:assert/strict";
import { startApiServer } from "../../src/api/server.ts";
import { fakeSource } from "./fake_source.ts";

Deno.test("startApiServer serves over HTTP on a free port and closes", async () => {
  const { source, state } = fakeSource();
  const server = await startApiServer({ host: "127.0.0.1", port: 0, source });
  try {
    assert.ok(server.port > 0);
    assert.equal(server.url, `http://127.0.0.1:${server.port}`);
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(await ready.text(), "ok");
    state.status = "complete";
    const notReady = await fetch(`${server.url}/readyz`);
    assert.equal(notReady.status, 503);
    await notReady.body?.cancel();
    const run = await fetch(`${server.url}/api/run`);
    assert.equal((await run.json()).benchmark_id, "bench-123");
    const metrics = await fetch(`${server.url}/metrics`);
    assert.match(await metrics.text(), /^aiperf_info\{/m);
  } finally {
    await server.close();
    await server.close(); // twice is harmless
  }
  await assert.rejects(fetch(`${server.url}/healthz`), "closed servers refuse connections");
});

Deno.test("startApiServer rejects clearly when the port is taken", async () => {
  const { source } = fakeSource();
  const first = await startApiServer({ host: "127.0.0.1", port: 0, source });
  try {
    await assert.rejects(
      startApiServer({ host: "127.0.0.1", port: first.port, source }),
      (err: Error) => {
        assert.match(err.message, /Cannot start the API server on 127\.0\.0\.1:\d+: .*in use/);
        return true;
      },
    );
  } finally {
    await first.close();
  }
});
