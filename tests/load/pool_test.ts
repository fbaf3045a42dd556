import assert from "node:assert/strict";
import { splitSlots, WorkerPool } from "../../src/load/pool.ts";
import { claimRequest, createControl, Ctl } from "../../src/load/control.ts";

Deno.test("slots are spread evenly over at most `workers` Workers", () => {
  assert.deepEqual(splitSlots(1, 2), [1]);
  assert.deepEqual(splitSlots(2, 2), [1, 1]);
  assert.deepEqual(splitSlots(5, 2), [3, 2]);
  assert.deepEqual(splitSlots(4096, 2), [2048, 2048]);
  for (const [c, w] of [[7, 3], [100, 8], [3, 5]]) {
    const s = splitSlots(c, w);
    assert.equal(s.reduce((a, b) => a + b, 0), c);
    assert.ok(s.length <= w && s.every((n) => n >= 1));
  }
});

Deno.test("claimRequest issues exactly the limit and nothing after STOP", () => {
  const ctl = createControl(0);
  let n = 0;
  while (claimRequest(ctl, 5)) n++;
  assert.equal(n, 5);
  assert.equal(Atomics.load(ctl, Ctl.ISSUED), 5);
  const ctl2 = createControl(0);
  Atomics.store(ctl2, Ctl.STOP, 1);
  assert.equal(claimRequest(ctl2, 5), false);
});

Deno.test("Worker clocks are checked against the main thread's at start", async () => {
  const pool = await WorkerPool.start(2, [{ sessionId: "s", bodies: ["{}"] }]);
  try {
    // Each Worker's reading fell between the main thread's before and after: no skew beyond
    // the round trip, which is what bounds the check's precision.
    assert.ok(pool.clock.maxRoundTripNs > 0);
    assert.ok(pool.clock.maxSkewNs <= 1_000_000, `skew ${pool.clock.maxSkewNs} ns`);
    const again = await pool.checkClocks();
    assert.ok(again.maxRoundTripNs > 0 && again.maxSkewNs <= 1_000_000);
  } finally {
    pool.close();
  }
});

Deno.test("a start whose signal aborts ends at once, its Workers terminated", async () => {
  const stop = new AbortController();
  const starting = WorkerPool.start(2, [{ sessionId: "s", bodies: ["{}"] }], {
    signal: stop.signal,
  });
  stop.abort("SIGINT");
  const pool = await starting;
  assert.equal(pool.cancelled, true);
  // No clock check was made: the Workers were not waited for.
  assert.equal(pool.clock.maxRoundTripNs, 0);
  // The start did not wait for the Workers to be ready.
  assert.ok(pool.states.every((s) => s.state === "starting"), JSON.stringify(pool.states));

  const ready = await WorkerPool.start(1, [{ sessionId: "s", bodies: ["{}"] }], {
    signal: new AbortController().signal,
  });
  try {
    assert.equal(ready.cancelled, false);
    assert.equal(ready.states[0].state, "idle");
  } finally {
    ready.close();
  }
});
