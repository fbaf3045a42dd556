/**
 * The seeded draws of synthetic media: sizes, lengths, choices and noise. One stream per kind of
 * media, derived from `--random-seed`, so that adding images leaves the audio (and the prompts)
 * of a run as they were.
 */

import { hash32, mulberry32 } from "../../util/rng.ts";

/** A seeded stream of draws for one kind of media. */
export class MediaRandom {
  #rand: () => number;

  /** @param seed the run's seed; @param stream which kind of media (one stream each). */
  constructor(seed: number, stream: number) {
    this.#rand = mulberry32(hash32(seed, 0, 0x3ed1a + stream));
  }

  /** A float in [0, 1). */
  random(): number {
    return this.#rand();
  }

  /** An unsigned 32-bit integer: the seed of an item's own noise. */
  u32(): number {
    return Math.floor(this.#rand() * 4294967296) >>> 0;
  }

  /** A standard normal draw (Box-Muller). */
  gauss(): number {
    const u = 1 - this.#rand();
    const v = this.#rand();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Normal(mean, stddev) rounded, at least `min`; exactly the mean when stddev is 0. */
  normalInt(mean: number, stddev: number, min = 1): number {
    if (!(stddev > 0)) return Math.max(min, Math.round(mean));
    return Math.max(min, Math.round(mean + this.gauss() * stddev));
  }

  /**
   * Normal(mean, stddev) redrawn until at least `min` (AIPerf's rejection sampling of audio
   * lengths); the mean itself when stddev is 0.
   */
  normalAtLeast(mean: number, stddev: number, min: number): number {
    if (!(stddev > 0)) return Math.max(min, mean);
    for (let i = 0; i < 1000; i++) {
      const x = mean + this.gauss() * stddev;
      if (x >= min) return x;
    }
    return Math.max(min, mean);
  }

  /** One of `items`, uniformly. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#rand() * items.length)];
  }
}

/**
 * Fills `out` with noise bytes from `seed` (xorshift32, four bytes a step): fast enough for a
 * thousand full-size images, and the same bytes for the same seed.
 */
export function fillNoise(out: Uint8Array, seed: number): void {
  let x = (seed >>> 0) || 0x9e3779b9;
  const words = out.length >>> 2;
  const view = new Uint32Array(out.buffer, out.byteOffset, words);
  for (let i = 0; i < words; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    view[i] = x >>> 0;
  }
  for (let i = words << 2; i < out.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
}
