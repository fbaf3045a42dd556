/** Typed arrays of finished answers kept for the next answers. */

/**
 * Typed arrays of finished answers, for the next answers: each new one is an allocation outside
 * the heap that the collector has to track, several per answer as it grows.
 *
 * - Kept by size, one stack per power of two, and the largest kept is taken. Arrays an answer
 *   outgrew are not given back: handed out again they would start the next answers small.
 * - Up to {@link MANY_SPARES} of each size up to {@link SMALL_SPARE} bytes are kept, 256 of each
 *   larger one: thousands of streams end together and as many start again.
 * - With none kept, a new array is as long as the last answer given back needed.
 *
 * At 4,096 streams of 256 tokens (two Workers, 8,192 requests each), one stack of 256 that also
 * took outgrown arrays had answers grow their arrays 1.3-1.7 (times) and 2.0-2.6 (text) times
 * each. Kept by size, a Worker's arrays grew 3,900-4,100 and 5,900-6,100 times in all: what its
 * first 2,048 answers, started together with nothing kept, need.
 */
export class Spares<T extends Float64Array | Uint8Array> {
  /** By size class: arrays of `2 ** k` up to `2 ** (k + 1)` elements at index `k`. */
  #classes: T[][] = [];
  #make: (length: number) => T;
  #first: number;
  #maxLength: number;
  /** The length the last answer given back needed. */
  #recent = 0;

  /**
   * @param make a new array of a length
   * @param first the length of a new array before any answer was given back
   * @param maxLength longest array kept
   */
  constructor(make: (length: number) => T, first: number, maxLength: number) {
    this.#make = make;
    this.#first = first;
    this.#maxLength = maxLength;
  }

  /** A kept array (the largest), or a new one. */
  take(): T {
    const classes = this.#classes;
    for (let k = classes.length - 1; k >= 0; k--) {
      const list = classes[k];
      if (list.length > 0) return list.pop()!;
    }
    const need = this.#recent;
    // The next power of two: the sizes doubling from `first` reach.
    let n = this.#first;
    while (n < need && n < this.#maxLength) n *= 2;
    return this.#make(n);
  }

  /**
   * Gives back an array no longer used (kept if there is room, else left to the collector).
   * @param used how much of it the answer filled; given when the answer ended, not outgrown
   */
  give(a: T, used?: number): void {
    if (used !== undefined) this.#recent = used;
    if (a.length === 0 || a.length > this.#maxLength) return;
    const k = 31 - Math.clz32(a.length);
    const classes = this.#classes;
    while (classes.length <= k) classes.push([]);
    const list = classes[k];
    if (list.length < (a.byteLength <= SMALL_SPARE ? MANY_SPARES : MAX_SPARES)) list.push(a);
  }
}

const MAX_SPARES = 256;
const MANY_SPARES = 4096;
const SMALL_SPARE = 4096;
