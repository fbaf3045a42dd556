import assert from "node:assert/strict";
import {
  ArrivalCursor,
  rampedConcurrency,
  type RateSchedule,
  unitGap,
} from "../../src/load/arrivals.ts";

const base: RateSchedule = { rate: 200, pattern: "constant", smoothness: 1, rampMs: 0, seed: 7 };

function times(s: RateSchedule, n: number): number[] {
  const c = new ArrivalCursor(s);
  return Array.from({ length: n }, (_, i) => c.timeOf(i));
}

Deno.test("constant arrivals are exactly 1/rate apart, on absolute time from zero", () => {
  const t = times(base, 2001);
  assert.equal(t[0], 0);
  for (let i = 0; i < t.length; i++) assert.ok(Math.abs(t[i] - i * 5) < 1e-9, `t[${i}]=${t[i]}`);
});

Deno.test("the i-th time depends only on the seed and i, whoever reads it and in what steps", () => {
  const s: RateSchedule = { ...base, pattern: "poisson", seed: 42 };
  const all = times(s, 500);
  const skip = new ArrivalCursor(s);
  for (const i of [0, 3, 4, 100, 499]) assert.equal(skip.timeOf(i), all[i]);
  assert.deepEqual(times(s, 500), all);
  assert.notDeepEqual(times({ ...s, seed: 43 }, 500), all);
  assert.throws(() => skip.timeOf(10), RangeError);
});

/** Kolmogorov–Smirnov statistic of samples against a CDF. */
function ks(samples: number[], cdf: (x: number) => number): number {
  const xs = [...samples].sort((a, b) => a - b);
  let d = 0;
  xs.forEach((x, i) => {
    const f = cdf(x);
    d = Math.max(d, Math.abs((i + 1) / xs.length - f), Math.abs(f - i / xs.length));
  });
  return d;
}

Deno.test("poisson gaps pass a Kolmogorov–Smirnov test against the exponential (seed 1)", () => {
  const n = 5000;
  const t = times({ ...base, pattern: "poisson", seed: 1 }, n + 1);
  const gapsS = t.slice(1).map((v, i) => (v - t[i]) / 1000);
  const d = ks(gapsS, (x) => 1 - Math.exp(-200 * x));
  // Critical value at alpha = 0.01 is 1.63/sqrt(n).
  assert.ok(d < 1.63 / Math.sqrt(n), `KS D=${d}`);
  const mean = gapsS.reduce((a, b) => a + b, 0) / n;
  assert.ok(Math.abs(mean - 0.005) < 0.0003, `mean gap ${mean}`);
  // Not constant in disguise: an exponential's gaps spread with std = mean.
  const sd = Math.sqrt(gapsS.reduce((a, g) => a + (g - mean) ** 2, 0) / n);
  assert.ok(Math.abs(sd / mean - 1) < 0.1, `cv ${sd / mean}`);
});

Deno.test("gamma gaps have mean 1 and variance 1/shape; shape 1 matches the exponential", () => {
  for (const shape of [0.5, 4]) {
    const n = 20000;
    const g = Array.from({ length: n }, (_, i) => unitGap("gamma", shape, 3, i));
    const mean = g.reduce((a, b) => a + b, 0) / n;
    const v = g.reduce((a, x) => a + (x - mean) ** 2, 0) / n;
    assert.ok(Math.abs(mean - 1) < 0.03, `shape ${shape}: mean ${mean}`);
    assert.ok(Math.abs(v - 1 / shape) < 0.08 / shape, `shape ${shape}: var ${v}`);
    assert.ok(g.every((x) => x > 0 && Number.isFinite(x)));
  }
  const g1 = Array.from({ length: 5000 }, (_, i) => unitGap("gamma", 1, 9, i));
  assert.ok(ks(g1, (x) => 1 - Math.exp(-x)) < 1.63 / Math.sqrt(5000));
});

Deno.test("a rate ramp rises in 0.1 s steps and reaches the target at its end", () => {
  // 100 req/s over 1 s: ten steps of 10, 20, … 100 req/s → 1, 2, … 10 arrivals per step.
  const t = times({ ...base, rate: 100, rampMs: 1000 }, 80);
  const perStep = new Array(10).fill(0);
  for (const v of t) if (v < 1000) perStep[Math.floor(v / 100)]++;
  assert.deepEqual(perStep, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  // After the ramp the gap is the target's: 10 ms.
  const after = t.filter((v) => v >= 1000);
  for (let i = 1; i < after.length; i++) assert.ok(Math.abs(after[i] - after[i - 1] - 10) < 1e-9);
  for (let i = 1; i < t.length; i++) assert.ok(t[i] > t[i - 1]);
});

Deno.test("a concurrency ramp starts at 1 and reaches the target at the ramp's end", () => {
  assert.equal(rampedConcurrency(10, 1000, 0), 1);
  assert.equal(rampedConcurrency(10, 1000, 450), 5);
  assert.equal(rampedConcurrency(10, 1000, 999), 10);
  assert.equal(rampedConcurrency(10, 1000, 5000), 10);
  assert.equal(rampedConcurrency(3, 0, 0), 3);
  let prev = 0;
  for (let ms = 0; ms <= 2000; ms += 37) {
    const c = rampedConcurrency(64, 2000, ms);
    assert.ok(c >= prev && c >= 1 && c <= 64);
    prev = c;
  }
});

Deno.test("a schedule without a positive rate is refused", () => {
  assert.throws(() => new ArrivalCursor({ ...base, rate: 0 }), /positive/);
  assert.throws(() => new ArrivalCursor({ ...base, smoothness: 0 }), /smoothness/);
});
