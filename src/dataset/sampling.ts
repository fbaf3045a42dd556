/**
 * Which conversation the i-th session of a run replays. A sampler is a pure function of
 * (strategy, n, seed, i), so the Workers of a run, each calling it for the sessions they start,
 * all agree without talking to each other.
 */

import { hash32, hashFloat, mulberry32 } from "../util/rng.ts";

/** The `--dataset-sampling-strategy` values. */
export type SamplingStrategy = "sequential" | "random" | "shuffle";

/** Every sampling strategy, for option validation and help. */
export const samplingStrategies: readonly SamplingStrategy[] = Object.freeze([
  "sequential",
  "random",
  "shuffle",
]);

/**
 * The strategy a run uses when `--dataset-sampling-strategy` is not given, by dataset type, as in
 * AIPerf: `random` for `random_pool` (draws with replacement), `shuffle` for synthetic prompts,
 * and `sequential` for files and traces, which replay in their recorded order.
 */
export function defaultSampling(datasetType: string): SamplingStrategy {
  // Type names as literals: Workers import this module and should not load the loaders.
  if (datasetType === "random_pool") return "random";
  if (datasetType === "synthetic") return "shuffle";
  return "sequential";
}

/**
 * Returns the function mapping i (the i-th conversation started in a run, from 0) to a
 * conversation index in [0, n):
 *
 * - `sequential`: 0, 1, …, n-1, then wraps around;
 * - `random`: uniform draws with replacement;
 * - `shuffle`: each epoch of n sessions is a fresh permutation of 0…n-1 (no repeats inside an
 *   epoch), reshuffled every epoch.
 *
 * Deterministic for `seed` (a safe integer). Throws `RangeError` for a bad `n`, `seed` or `i`.
 */
export function sampler(
  strategy: SamplingStrategy,
  n: number,
  seed: number,
): (i: number) => number {
  if (!Number.isSafeInteger(n) || n < 1 || n > 0xffffffff) {
    throw new RangeError(`sampler needs a positive number of conversations, got ${n}`);
  }
  if (!Number.isSafeInteger(seed)) {
    throw new RangeError(`sampler needs an integer seed, got ${seed}`);
  }
  switch (strategy) {
    case "sequential":
      return (i) => checkIndex(i) % n;
    case "random":
      return (i) => Math.floor(hashFloat(seed, checkIndex(i)) * n);
    case "shuffle":
      return shuffled(n, seed);
    default:
      throw new RangeError(
        `unknown sampling strategy "${strategy}" (known: ${samplingStrategies.join(", ")})`,
      );
  }
}

/**
 * The permutation of 0…n-1 used for shuffle epoch `epoch`: a Fisher–Yates shuffle driven by a
 * generator seeded from (seed, epoch).
 */
export function permutation(n: number, seed: number, epoch: number): Uint32Array {
  const perm = new Uint32Array(n);
  for (let k = 0; k < n; k++) perm[k] = k;
  const rand = mulberry32(hash32(seed, epoch, 3));
  for (let k = n - 1; k > 0; k--) {
    const j = Math.floor(rand() * (k + 1));
    const t = perm[k];
    perm[k] = perm[j];
    perm[j] = t;
  }
  return perm;
}

function shuffled(n: number, seed: number): (i: number) => number {
  // Two cached epochs: around an epoch boundary, sessions from both are still being started.
  const cache: { epoch: number; perm: Uint32Array }[] = [];
  return (i) => {
    checkIndex(i);
    const epoch = Math.floor(i / n);
    let hit = cache.find((c) => c.epoch === epoch);
    if (!hit) {
      hit = { epoch, perm: permutation(n, seed, epoch) };
      cache.unshift(hit);
      if (cache.length > 2) cache.pop();
    }
    return hit.perm[i - epoch * n];
  };
}

function checkIndex(i: number): number {
  if (!Number.isSafeInteger(i) || i < 0) {
    throw new RangeError(`session number must be a non-negative integer, got ${i}`);
  }
  return i;
}
