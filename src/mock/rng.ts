/** A small seeded pseudo-random generator, so injected faults and jitter repeat for a seed. */

/** Uniform numbers in [0, 1), fully determined by the seed: the dataset's mulberry32. */
export { mulberry32 as seededRandom } from "../util/rng.ts";

/** A 32-bit FNV-1a hash of a string: a stable seed derived from request text. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
