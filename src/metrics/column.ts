/**
 * A growable numeric column for one record metric: every value kept in a Float64Array (up to
 * a cap), with running count/sum/min/max and a small uniform sample for cheap live snapshots.
 */

/** Values kept exactly before the column switches to a uniform sample of this size. */
const DEFAULT_CAP = 1 << 23; // 8 Mi values, 64 MiB: far beyond any per-request metric
/** Size of the sample a live snapshot sorts. */
const DEFAULT_LIVE = 4096;

/** Options of a column; the defaults suit a benchmark of any length. */
export interface ColumnOptions {
  /** Values kept before sampling (list metrics can yield hundreds per request). */
  cap?: number;
  /** Size of the live sample. */
  liveSize?: number;
}

/** xorshift32: deterministic and cheap; sampling needs uniformity, not secrecy. */
function rng(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

/** One metric's values. */
export class Column {
  /** Values pushed. */
  count = 0;
  /** Exact sum of all values pushed. */
  sum = 0;
  min = Infinity;
  max = -Infinity;
  #values = new Float64Array(64);
  #kept = 0;
  #cap: number;
  #live: Float64Array;
  #liveKept = 0;
  #rand = rng(0x9e3779b9);
  // Welford's running moments, used for std once values are sampled.
  #mean = 0;
  #m2 = 0;

  constructor(opts: ColumnOptions = {}) {
    this.#cap = Math.max(1, opts.cap ?? DEFAULT_CAP);
    this.#live = new Float64Array(Math.max(1, opts.liveSize ?? DEFAULT_LIVE));
  }

  /** Adds one value. */
  push(v: number): void {
    this.count++;
    this.sum += v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
    const d = v - this.#mean;
    this.#mean += d / this.count;
    this.#m2 += d * (v - this.#mean);
    this.#keep(v);
    this.#sample(v);
  }

  #keep(v: number): void {
    if (this.#kept < this.#cap) {
      if (this.#kept === this.#values.length) {
        const grown = new Float64Array(Math.min(this.#cap, this.#values.length * 2));
        grown.set(this.#values);
        this.#values = grown;
      }
      this.#values[this.#kept++] = v;
      return;
    }
    // Reservoir sampling keeps a uniform sample of everything pushed.
    const j = Math.floor(this.#rand() * this.count);
    if (j < this.#cap) this.#values[j] = v;
  }

  #sample(v: number): void {
    const size = this.#live.length;
    if (this.#liveKept < size) {
      this.#live[this.#liveKept++] = v;
      return;
    }
    const j = Math.floor(this.#rand() * this.count);
    if (j < size) this.#live[j] = v;
  }

  /** True when every value pushed is kept, so percentiles are exact. */
  get exact(): boolean {
    return this.count <= this.#cap;
  }

  /** True while the live sample holds every value pushed. */
  get sampleComplete(): boolean {
    return this.count <= this.#live.length;
  }

  /** Running mean of all values. */
  get mean(): number {
    return this.count === 0 ? NaN : this.#mean;
  }

  /** Running population variance of all values. */
  get variance(): number {
    return this.count === 0 ? NaN : this.#m2 / this.count;
  }

  /** The kept values (all of them when `exact`), sorted ascending, as a copy. */
  sorted(): Float64Array {
    return this.#values.slice(0, this.#kept).sort();
  }

  /** The kept values in arrival order (a view: do not keep it across pushes). */
  values(): Float64Array {
    return this.#values.subarray(0, this.#kept);
  }

  /** The live sample, sorted ascending, as a copy (all values while there are few). */
  sortedSample(): Float64Array {
    return this.#live.slice(0, this.#liveKept).sort();
  }
}
