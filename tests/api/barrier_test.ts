import assert from "node:assert/strict";
import { createApiApp } from "../../src/api/app.ts";
import { BARRIER_LEAD_MS, StartBarrier } from "../../src/api/barrier.ts";
import { waitAtBarrier } from "../../src/cli/start_at.ts";
import { fakeSource } from "./fake_source.ts";

Deno.test("StartBarrier: opens once every shard came, at one instant for all", () => {
  let now = 1000;
  const b = new StartBarrier(() => now);
  assert.deepEqual(b.arrive(2, 3), { ready: false, seen: 1, of: 3 });
  assert.deepEqual(b.arrive(2, 3), { ready: false, seen: 1, of: 3 });
  assert.deepEqual(b.arrive(0, 3), { ready: false, seen: 2, of: 3 });
  now = 5000;
  assert.deepEqual(b.arrive(1, 3), { ready: true, start_at_ms: 5000 + BARRIER_LEAD_MS });
  now = 9000;
  assert.deepEqual(b.arrive(0, 3), { ready: true, start_at_ms: 5000 + BARRIER_LEAD_MS });
  // Requests that do not fit: an index out of range, another count, no numbers.
  assert.equal(b.arrive(3, 3), null);
  assert.equal(b.arrive(0, 4), null);
  assert.equal(b.arrive(NaN, NaN), null);
});

Deno.test("GET /api/barrier: each shard waits there until all came", async () => {
  const { source } = fakeSource();
  const app = createApiApp(source);
  assert.deepEqual(await (await app.request("/api/barrier")).json(), {
    ready: false,
    seen: 0,
    of: null,
  });
  const first = await app.request("/api/barrier?shard=1&of=2");
  assert.equal(first.status, 200);
  assert.deepEqual(await first.json(), { ready: false, seen: 1, of: 2 });
  const bad = await app.request("/api/barrier?shard=5&of=2");
  assert.equal(bad.status, 400);
  await bad.body?.cancel();
  const before = performance.timeOrigin + performance.now();
  const last = await (await app.request("/api/barrier?shard=0&of=2")).json();
  assert.equal(last.ready, true);
  assert.ok(last.start_at_ms >= before + BARRIER_LEAD_MS);
  assert.deepEqual(await (await app.request("/api/barrier")).json(), last);
});

Deno.test("waitAtBarrier: shards meet at a live API, one not yet up is asked again", async () => {
  const { source } = fakeSource();
  const app = createApiApp(source);
  const port = (() => {
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const p = (l.addr as Deno.NetAddr).port;
    l.close();
    return p;
  })();
  const base = `http://127.0.0.1:${port}`;
  // Shard 1 asks before the API is up.
  const waiting = waitAtBarrier(base, { index: 1, count: 2 }, undefined, { gapMs: 20 });
  await new Promise((r) => setTimeout(r, 100));
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, app.fetch);
  try {
    const zero = await waitAtBarrier(base, { index: 0, count: 2 }, undefined, { gapMs: 20 });
    assert.equal(await waiting, zero);
    await assert.rejects(
      waitAtBarrier(base, { index: 0, count: 3 }, undefined, { gapMs: 20 }),
      /start barrier at .* refused/,
    );
    // A barrier that never opens is given up on after the wait.
    const lonely = createApiApp(fakeSource().source);
    const other = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, lonely.fetch);
    try {
      await assert.rejects(
        waitAtBarrier(`http://127.0.0.1:${other.addr.port}`, { index: 0, count: 2 }, undefined, {
          gapMs: 20,
          waitMs: 100,
        }),
        /did not open \(1 of 2 shards ready\)/,
      );
    } finally {
      await other.shutdown();
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("waitAtBarrier: a stop while waiting ends the wait with null", async () => {
  const app = createApiApp(fakeSource().source);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  try {
    const stop = new AbortController();
    const base = `http://127.0.0.1:${server.addr.port}`;
    const waiting = waitAtBarrier(base, { index: 1, count: 2 }, stop.signal, { gapMs: 20 });
    await new Promise((r) => setTimeout(r, 60));
    stop.abort();
    assert.equal(await waiting, null);
  } finally {
    await server.shutdown();
  }
});
