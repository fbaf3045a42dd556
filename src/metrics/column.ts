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

/** Seed of the xorshift32 generator that samples: deterministic and cheap (no secrecy needed). */
const SEED = 0x9e3779b9 | 0;

/** `values` copied into an array twice as long (at most `cap`). */
function grow(values: Float64Array, cap: number): Float64Array<ArrayBuffer> {
  const grown = new Float64Array(Math.min(cap, values.length * 2));
  grown.set(values);
  return grown;
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
  /** State of the xorshift32 generator that picks which values the samples keep. */
  #x = SEED;
  // Welford's running moments, used for std once values are sampled.
  #mean = 0;
  #m2 = 0;

  constructor(opts: ColumnOptions = {}) {
    this.#cap = Math.max(1, opts.cap ?? DEFAULT_CAP);
    this.#live = new Float64Array(Math.max(1, opts.liveSize ?? DEFAULT_LIVE));
  }

  /** Adds one value. */
  push(v: number): void {
    const count = ++this.count;
    this.sum += v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
    const d = v - this.#mean;
    this.#mean += d / count;
    this.#m2 += d * (v - this.#mean);
    if (this.#kept < this.#cap) {
      if (this.#kept === this.#values.length) this.#values = grow(this.#values, this.#cap);
      this.#values[this.#kept++] = v;
    } else {
      // Reservoir sampling keeps a uniform sample of everything pushed.
      const j = Math.floor(this.#rand() * count);
      if (j < this.#cap) this.#values[j] = v;
    }
    if (this.#liveKept < this.#live.length) this.#live[this.#liveKept++] = v;
    else {
      const j = Math.floor(this.#rand() * count);
      if (j < this.#live.length) this.#live[j] = v;
    }
  }

  /** The next number of the sampling generator, in [0, 1). */
  #rand(): number {
    let x = this.#x;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.#x = x;
    return (x >>> 0) / 4294967296;
  }

  /**
   * Adds `values[from]` up to `values[to - 1]` (default: all), in order: the same as pushing
   * them one by one, with the running state in locals for the length of the loop.
   */
  pushAll(values: ArrayLike<number>, from = 0, to = values.length): void {
    let count = this.count;
    let sum = this.sum;
    let min = this.min;
    let max = this.max;
    let mean = this.#mean;
    let m2 = this.#m2;
    let x = this.#x;
    let kept = this.#kept;
    let store = this.#values;
    const cap = this.#cap;
    const live = this.#live;
    const size = live.length;
    let liveKept = this.#liveKept;
    for (let i = from; i < to; i++) {
      const v = values[i];
      count++;
      sum += v;
      if (v < min) min = v;
      if (v > max) max = v;
      const d = v - mean;
      mean += d / count;
      m2 += d * (v - mean);
      if (kept < cap) {
        if (kept === store.length) store = grow(store, cap);
        store[kept++] = v;
      } else {
        // As `push` does, with `#rand` inlined.
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        const j = Math.floor(((x >>> 0) / 4294967296) * count);
        if (j < cap) store[j] = v;
      }
      if (liveKept < size) live[liveKept++] = v;
      else {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        const j = Math.floor(((x >>> 0) / 4294967296) * count);
        if (j < size) live[j] = v;
      }
    }
    this.count = count;
    this.sum = sum;
    this.min = min;
    this.max = max;
    this.#mean = mean;
    this.#m2 = m2;
    this.#x = x;
    this.#kept = kept;
    this.#values = store;
    this.#liveKept = liveKept;
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
