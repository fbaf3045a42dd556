import assert from "node:assert/strict";
import {
  defaultSampling,
  permutation,
  sampler,
  samplingStrategies,
} from "../../src/dataset/sampling.ts";

const take = (f: (i: number) => number, count: number, from = 0) =>
  Array.from({ length: count }, (_, k) => f(from + k));

Deno.test("sequential wraps around", () => {
  assert.deepEqual(take(sampler("sequential", 3, 1), 8), [0, 1, 2, 0, 1, 2, 0, 1]);
  assert.equal(sampler("sequential", 7, 0)(2 ** 40 + 3), (2 ** 40 + 3) % 7);
  assert.deepEqual(take(sampler("sequential", 1, 0), 3), [0, 0, 0]);
});

Deno.test("random draws with replacement, deterministically per seed", () => {
  const n = 10;
  const a = take(sampler("random", n, 123), 2000);
  assert.deepEqual(a, take(sampler("random", n, 123), 2000));
  assert.notDeepEqual(a, take(sampler("random", n, 124), 2000));
  assert.ok(a.every((x) => Number.isInteger(x) && x >= 0 && x < n));
  // With replacement: some index repeats within the first n draws (birthday bound, fixed seed).
  const firstEpoch = a.slice(0, n);
  assert.ok(new Set(firstEpoch).size < n);
  // Every index is drawn, each about 200 times out of 2000.
  const counts = new Array(n).fill(0);
  for (const x of a) counts[x]++;
  assert.ok(counts.every((c) => c > 120 && c < 280), `counts ${counts}`);
});

Deno.test("shuffle is a fresh permutation each epoch", () => {
  const n = 50;
  const f = sampler("shuffle", n, 99);
  const seq = take(f, n * 4);
  const epochs = [0, 1, 2, 3].map((e) => seq.slice(e * n, (e + 1) * n));
  for (const e of epochs) assert.deepEqual([...e].sort((x, y) => x - y), take((i) => i, n));
  assert.notDeepEqual(epochs[0], epochs[1]);
  assert.notDeepEqual(epochs[1], epochs[2]);
  assert.notDeepEqual(epochs[0], take((i) => i, n), "epoch 0 should not be the identity");
  assert.deepEqual(epochs[0], [...permutation(n, 99, 0)]);
  assert.notDeepEqual(take(sampler("shuffle", n, 100), n), epochs[0]);
  assert.deepEqual(take(sampler("shuffle", 1, 5), 3), [0, 0, 0]);
});

Deno.test("every sampler answers from i alone, in any order and in any instance", () => {
  for (const strategy of samplingStrategies) {
    const n = 17;
    const reference = take(sampler(strategy, n, 2024), n * 5);
    // Another instance (another Worker) asking in a scrambled order, jumping across epochs.
    const other = sampler(strategy, n, 2024);
    const order = take((i) => (i * 37) % (n * 5), n * 5);
    for (const i of order) assert.equal(other(i), reference[i], `${strategy} i=${i}`);
    // Far-away session numbers are stable too.
    const far = 2 ** 45 + 11;
    assert.equal(sampler(strategy, n, 2024)(far), other(far));
  }
});

Deno.test("bad arguments are RangeErrors", () => {
  assert.throws(() => sampler("sequential", 0, 1), RangeError);
  assert.throws(() => sampler("random", 2.5, 1), RangeError);
  assert.throws(() => sampler("shuffle", 3, 0.5), RangeError);
  // deno-lint-ignore no-explicit-any
  assert.throws(() => sampler("roundrobin" as any, 3, 1), /known: sequential, random, shuffle/);
  const f = sampler("shuffle", 3, 1);
  assert.throws(() => f(-1), RangeError);
  assert.throws(() => f(1.5), RangeError);
});

Deno.test("default sampling per dataset type follows AIPerf", () => {
  assert.equal(defaultSampling("random_pool"), "random");
  assert.equal(defaultSampling("synthetic"), "shuffle");
  for (const t of ["raw_payload", "inputs_json", "single_turn", "multi_turn", "sharegpt"]) {
    assert.equal(defaultSampling(t), "sequential", t);
  }
  assert.equal(defaultSampling("mooncake_trace"), "sequential");
});
