import assert from "node:assert/strict";
import { hash32, hashFloat, mix32, mulberry32 } from "../../src/util/rng.ts";

Deno.test("mulberry32 is deterministic per seed and stays in [0, 1)", () => {
  const a = mulberry32(42);
  const b = mulberry32(42);
  const c = mulberry32(43);
  const xs = Array.from({ length: 1000 }, () => a());
  assert.deepEqual(xs, Array.from({ length: 1000 }, () => b()));
  assert.notDeepEqual(xs.slice(0, 10), Array.from({ length: 10 }, () => c()));
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  // Roughly uniform: each tenth of [0, 1) gets 100 ± 50 of 1000 draws.
  const bins = new Array(10).fill(0);
  for (const x of xs) bins[Math.floor(x * 10)]++;
  assert.ok(bins.every((n) => n > 50 && n < 150), `bins ${bins}`);
});

Deno.test("hash32 depends on seed, counter and stream, including their high bits", () => {
  assert.equal(hash32(1, 2), hash32(1, 2));
  const values = new Set([
    hash32(1, 2),
    hash32(2, 2),
    hash32(1, 3),
    hash32(1, 2, 1),
    hash32(1, 2 + 2 ** 32),
    hash32(1 + 2 ** 32, 2),
    hash32(-1, 2),
  ]);
  assert.equal(values.size, 7);
  for (const v of values) assert.ok(Number.isInteger(v) && v >= 0 && v < 2 ** 32);
});

Deno.test("mix32 is a bijection on a sample and returns unsigned integers", () => {
  const seen = new Set<number>();
  for (let i = 0; i < 5000; i++) seen.add(mix32(i));
  assert.equal(seen.size, 5000);
  assert.ok(mix32(-1) >= 0);
});

Deno.test("hashFloat is in [0, 1) and deterministic", () => {
  for (let i = 0; i < 1000; i++) {
    const x = hashFloat(9, i);
    assert.ok(x >= 0 && x < 1);
    assert.equal(x, hashFloat(9, i));
  }
});
