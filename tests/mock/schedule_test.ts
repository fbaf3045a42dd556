import assert from "node:assert/strict";
import { seededRandom } from "../../src/mock/rng.ts";
import { jittered, sleepUntil, tokenTimes } from "../../src/mock/schedule.ts";

Deno.test("tokenTimes is absolute: arrival + ttft + k * itl without jitter", () => {
  const times = tokenTimes(1000, 4, { ttftMs: 50, itlMs: 10, jitterMs: 0 }, Math.random);
  assert.deepEqual(Array.from(times), [1050, 1060, 1070, 1080]);
  assert.equal(tokenTimes(0, 0, { ttftMs: 5, itlMs: 5, jitterMs: 0 }, Math.random).length, 0);
});

Deno.test("jitter stays within ± jitterMs per delay, never negative, and repeats by seed", () => {
  const random = seededRandom(9);
  for (let i = 0; i < 1000; i++) {
    const d = jittered(10, 4, random);
    assert.ok(d >= 6 && d <= 14, String(d));
  }
  for (let i = 0; i < 100; i++) assert.ok(jittered(1, 5, random) >= 0);
  const timing = { ttftMs: 20, itlMs: 5, jitterMs: 3 };
  const a = tokenTimes(0, 50, timing, seededRandom(1));
  assert.deepEqual(a, tokenTimes(0, 50, timing, seededRandom(1)));
  assert.ok(a[0] >= 17 && a[0] <= 23);
  for (let k = 1; k < a.length; k++) {
    const gap = a[k] - a[k - 1];
    assert.ok(gap >= 2 - 1e-9 && gap <= 8 + 1e-9, `gap ${gap}`);
  }
});

Deno.test("sleepUntil never resolves early and stops on abort", async () => {
  const due = performance.now() + 15;
  await sleepUntil(due);
  assert.ok(performance.now() >= due);
  const ac = new AbortController();
  const t0 = performance.now();
  const p = sleepUntil(t0 + 60_000, ac.signal);
  ac.abort();
  await p;
  assert.ok(performance.now() - t0 < 1000);
  await sleepUntil(0); // past: resolves at once
});
