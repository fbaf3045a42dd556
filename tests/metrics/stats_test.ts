import assert from "node:assert/strict";
import {
  linearRanks,
  nearestRank,
  percentileLinear,
  percentileNearest,
  PERCENTILES,
  selectRanks,
  stdPopulation,
  sumOf,
} from "../../src/metrics/stats.ts";

function close(actual: number, expected: number, tol = 1e-12) {
  assert.ok(
    Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected)),
    `${actual} != ${expected}`,
  );
}

const DATA = [3.5, 1.0, 7.25, 2.0, 10.0, 4.0, 4.0, 100.5, 0.1, 9.0, 6.0];
// np.percentile(DATA, p) with numpy 2.4's default (linear) method.
const NUMPY: Record<number, number> = {
  1: 0.19,
  5: 0.55,
  10: 1.0,
  25: 2.75,
  50: 4.0,
  75: 8.125,
  90: 10.0,
  95: 55.25,
  99: 91.45000000000003,
};

Deno.test("percentileLinear matches numpy's default method", () => {
  const sorted = Float64Array.from(DATA).sort();
  for (const p of PERCENTILES) close(percentileLinear(sorted, p), NUMPY[p]);
  assert.equal(percentileLinear(sorted, 0), 0.1);
  assert.equal(percentileLinear(sorted, 100), 100.5);
  assert.equal(percentileLinear(new Float64Array([42]), 99), 42);
  assert.ok(Number.isNaN(percentileLinear(new Float64Array(0), 50)));
});

Deno.test("percentileNearest rounds half to even, like numpy's nearest", () => {
  const s = [1, 2, 3, 4];
  assert.equal(percentileNearest(s, 12.5), 1); // rank 0.375 → 0
  assert.equal(percentileNearest(s, 37.5), 2); // rank 1.125 → 1
  assert.equal(percentileNearest(s, 50), 3); // rank 1.5 → 2 (even)
  assert.equal(nearestRank(50, 2), 0); // rank 0.5 → 0 (even)
  const withFailures = [1, 3, 5, Infinity, Infinity];
  assert.equal(percentileNearest(withFailures, 25), 3);
  assert.equal(percentileNearest(withFailures, 50), 5);
  assert.equal(percentileNearest(withFailures, 75), Infinity);
});

Deno.test("stdPopulation and sumOf", () => {
  const mean = sumOf(DATA) / DATA.length;
  close(mean, 13.395454545454545);
  close(stdPopulation(DATA, mean), 27.708305733327872); // np.std (ddof=0)
  assert.equal(stdPopulation([5, 5, 5], 5), 0);
});

Deno.test("selectRanks: each asked rank holds what a full sort puts there", () => {
  // xorshift: reproducible inputs with many ties (zeros and a few distinct values) and without.
  let x = 12345;
  const rand = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  for (const n of [1, 2, 3, 31, 32, 33, 100, 1000, 70_000]) {
    for (const shape of ["ties", "spread", "sorted", "reversed"]) {
      const values = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        values[i] = shape === "ties"
          ? (rand() < 0.7 ? 0 : Math.floor(rand() * 5))
          : shape === "spread"
          ? rand() * 1e6 - 5e5
          : shape === "sorted"
          ? i
          : n - i;
      }
      const sorted = values.slice().sort();
      const ranks = [0, n - 1, Math.floor(n / 2), ...PERCENTILES.flatMap((p) => linearRanks(p, n))];
      const got = values.slice();
      selectRanks(got, ranks);
      for (const r of ranks) assert.equal(got[r], sorted[r], `n=${n} ${shape} rank ${r}`);
      for (const p of PERCENTILES) {
        assert.equal(
          percentileLinear(got, p),
          percentileLinear(sorted, p),
          `n=${n} ${shape} p${p}`,
        );
      }
      // Nothing is lost or invented: the same multiset of values.
      assert.deepEqual(got.slice().sort(), sorted);
    }
  }
});
