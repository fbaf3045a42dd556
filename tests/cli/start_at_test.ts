import assert from "node:assert/strict";
import {
  checkClock,
  type ClockSource,
  dateHeaderSource,
  liveApiSource,
  waitForEpoch,
} from "../../src/cli/start_at.ts";
import { clockWarning } from "../../src/export/shard_info.ts";

/** A reference `offsetMs` ahead of a fake local clock, each reading taking `rttMs`. */
function fake(offsetMs: number, rttMs: number, kind: "exact" | "date"): {
  source: ClockSource;
  now: () => number;
} {
  let local = 1_000_000_000_000.25;
  // Reads of the clock since the last reading: the second is the next round's start, after a
  // pause that lands the next reading elsewhere in the server's second.
  let reads = 0;
  return {
    now: () => {
      if (++reads === 2) local += 37;
      return local;
    },
    source: {
      name: "fake",
      samples: kind === "exact" ? 4 : 30,
      gapMs: 0,
      maxMs: 10_000,
      probe: () => {
        local += rttMs / 2;
        const ref = local + offsetMs;
        local += rttMs / 2;
        reads = 0;
        if (kind === "exact") return Promise.resolve({ lowMs: ref, highMs: ref });
        const s = Math.floor(ref / 1000) * 1000;
        return Promise.resolve({ lowMs: s, highMs: s + 2000 });
      },
    },
  };
}

Deno.test("checkClock: an exact reference bounds the offset by the round trip", async () => {
  for (const offset of [0, 250, -3000]) {
    const { source, now } = fake(offset, 2, "exact");
    const c = (await checkClock(source, 10_000, now))!;
    assert.ok(c.lowMs <= offset && offset <= c.highMs, `${offset} in [${c.lowMs}, ${c.highMs}]`);
    assert.ok(c.highMs - c.lowMs <= 2);
    assert.equal(c.samples, 4);
    assert.equal(clockWarning(c) === null, Math.abs(offset) <= 100);
  }
});

Deno.test("checkClock: a Date header never warns of a right clock, and tells one seconds off", async () => {
  for (const offset of [0, 50, -50, 99.5]) {
    const { source, now } = fake(offset, 3, "date");
    const c = (await checkClock(source, 10_000, now))!;
    assert.ok(c.lowMs <= offset && offset <= c.highMs);
    assert.equal(clockWarning(c), null);
  }
  const { source, now } = fake(-5000, 3, "date");
  assert.match(clockWarning(await checkClock(source, 10_000, now))!, /ahead of the fake/);
});

Deno.test("checkClock: no answer, or no time in it, is no check", async () => {
  const failing: ClockSource = {
    name: "down",
    samples: 3,
    gapMs: 0,
    maxMs: 50,
    probe: () => Promise.reject(new Error("refused")),
  };
  assert.equal(await checkClock(failing, 50), null);
  const silent: ClockSource = { ...failing, probe: () => Promise.resolve(null) };
  assert.equal(await checkClock(silent, 50), null);
  assert.equal(dateHeaderSource("not a url"), null);
});

Deno.test("the real sources read a Date header and a live API's /api/clock", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) =>
      new URL(req.url).pathname === "/api/clock"
        ? Response.json({ epoch_ms: performance.timeOrigin + performance.now() })
        : new Response(null, { status: 404 }),
  );
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const api = (await checkClock(liveApiSource(base), 5000))!;
    assert.ok(api.lowMs <= 1 && api.highMs >= -1, `${api.lowMs}..${api.highMs}`);
    const date = (await checkClock({ ...dateHeaderSource(`${base}/v1/chat`)!, samples: 2 }, 5000))!;
    assert.equal(date.samples, 2);
    assert.ok(date.lowMs <= 0 && date.highMs >= 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("waitForEpoch: resolves at the instant, or false once aborted", async () => {
  const at = performance.timeOrigin + performance.now() + 30;
  assert.equal(await waitForEpoch(at), true);
  assert.ok(performance.timeOrigin + performance.now() >= at);
  const stop = new AbortController();
  const waiting = waitForEpoch(performance.timeOrigin + performance.now() + 60_000, stop.signal);
  stop.abort();
  assert.equal(await waiting, false);
});
