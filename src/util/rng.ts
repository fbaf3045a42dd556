/**
 * Small seeded pseudo-random generators. They are deterministic for a seed and cheap, so every
 * Worker of a run can compute the same draws independently; they are not for cryptography.
 */

/**
 * mulberry32: a sequential generator with 32 bits of state.
 * Returns a function that gives the next float in [0, 1) on each call.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes a 32-bit integer into a well-scrambled unsigned 32-bit integer (a bijection). */
export function mix32(x: number): number {
  x = (x ^ (x >>> 16)) >>> 0;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

const TWO_32 = 4294967296;

/**
 * Hashes a seed and a counter (both safe integers, negative allowed) into an unsigned 32-bit
 * integer: a random draw that depends on nothing but its inputs, so it can be taken in any order
 * and in any thread. `stream` separates independent uses of the same seed and counter.
 */
export function hash32(seed: number, counter: number, stream = 0): number {
  let h = mix32((seed >>> 0) ^ 0x9e3779b9);
  h = mix32(h ^ (Math.floor(seed / TWO_32) >>> 0));
  h = mix32(h ^ (stream >>> 0) ^ 0x85ebca6b);
  h = mix32(h ^ (counter >>> 0));
  return mix32(h ^ (Math.floor(counter / TWO_32) >>> 0) ^ 0xc2b2ae35);
}

/** A float in [0, 1) with 53 random bits, drawn from a seed and a counter like {@link hash32}. */
export function hashFloat(seed: number, counter: number): number {
  const hi = hash32(seed, counter, 1) >>> 11; // 21 bits
  const lo = hash32(seed, counter, 2); // 32 bits
  return (hi * TWO_32 + lo) / 9007199254740992;
}
