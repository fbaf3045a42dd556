import assert from "node:assert/strict";
import { Histogram, HISTOGRAM_RELATIVE_ERROR } from "../../src/metrics/histogram.ts";
import { histogramNear } from "./_reference.ts";

/** A linear congruential generator of numbers in [0, 1) from `seed`: the same every run. */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

Deno.test("Histogram: every rank read back within 2^-12 of the sorted values, at any scale and sign", () => {
  const rand = lcg(31337);
  const values: number[] = [];
  for (let i = 0; i < 20_000; i++) {
    // Magnitudes from 1e-9 to 1e12, both signs, many repeats, and exact zeros.
    const v = i % 11 === 0 ? 0 : (rand() < 0.2 ? -1 : 1) * 10 ** (-9 + rand() * 21);
    values.push(i % 5 === 0 ? values[Math.floor(rand() * values.length)] ?? v : v);
  }
  const h = new Histogram();
  h.addAll(values, 0, 7000);
  for (const v of values.slice(7000, 9000)) h.add(v);
  h.addAll(values, 9000);
  assert.equal(h.count, values.length);
  const sorted = Float64Array.from(values).sort();
  const ranks = Array.from(sorted, (_, r) => r);
  const at = h.valuesAt(ranks, sorted[0], sorted[sorted.length - 1]);
  for (const r of ranks) {
    const v = at.get(r)!;
    assert.ok(histogramNear(v, sorted[r]), `rank ${r}: ${v} for ${sorted[r]}`);
  }
  assert.equal(HISTOGRAM_RELATIVE_ERROR, 2 ** -12);
});

Deno.test("Histogram: extremes exact, ranks asked once each, out of range ones left out", () => {
  const h = new Histogram();
  h.addAll([3, 1, 2, 1000, 7]);
  const at = h.valuesAt([4, 0, 0, -1, 5, 2], 1, 1000);
  assert.deepEqual([...at.keys()].sort(), [0, 2, 4]);
  assert.equal(at.get(0), 1);
  assert.equal(at.get(4), 1000);
  assert.ok(histogramNear(at.get(2)!, 3));
  // Bounds the caller gives are kept to.
  assert.equal(h.valuesAt([1], 2.5, 1000).get(1), 2.5);
  assert.equal(new Histogram().valuesAt([0], 0, 0).size, 0);
});

Deno.test("Histogram: infinities, NaN, zeros and subnormals rank as a sort places them", () => {
  const values = [NaN, Infinity, -Infinity, 0, -0, 5e-324, -5e-324, 1, -1, 1e300, -1e300];
  const h = new Histogram();
  h.addAll(values);
  const sorted = Float64Array.from(values).sort();
  const at = h.valuesAt(sorted.keys(), -Infinity, Infinity);
  for (const [r, want] of sorted.entries()) {
    assert.ok(histogramNear(at.get(r)!, want), `rank ${r}: ${at.get(r)} for ${want}`);
  }
  assert.equal(at.get(0), -Infinity);
  assert.equal(at.get(9), Infinity);
  assert.ok(Number.isNaN(at.get(10)));
});

Deno.test("Histogram: quantiles at evenly spaced ranks; a page of counts per sign and exponent", () => {
  const h = new Histogram();
  assert.equal(h.storedBytes, 0);
  const values = Array.from({ length: 1000 }, (_, i) => 1000 + i);
  h.addAll(values);
  // 1,000 to 1,999 span the exponents of 2^9 and 2^10.
  assert.equal(h.storedBytes, 2 * 4096 * 4);
  const q = h.quantiles(11, 1000, 1999);
  assert.equal(q.length, 11);
  for (let i = 0; i < 11; i++) {
    const want = 1000 + Math.round((i * 999) / 10);
    assert.ok(histogramNear(q[i], want), `quantile ${i}: ${q[i]} for ${want}`);
  }
  assert.deepEqual(Array.from(h.quantiles(1, 1000, 1999)), [1000]);
  assert.deepEqual(Array.from(new Histogram().quantiles(5, 0, 0)), []);
  h.add(-1);
  assert.equal(h.storedBytes, 3 * 4096 * 4);
});
