/**
 * A growable numeric column for one record metric: every value kept in Float64Arrays (up to a
 * cap), with running count/sum/min/max and a small uniform sample for cheap live snapshots.
 * Past the cap, the kept values are counted into a log-linear histogram and given up, and so is
 * every value after them: percentiles then come from the histogram, within 0.025% of the true
 * ones, over every value.
 *
 * Values are kept in chunks: the first grows by doubling up to the chunk size, later ones are
 * allocated whole. A long run's column thus holds at most one chunk it does not use and is
 * never copied while it grows (one array doubling would hold twice its values, three times while
 * being copied). A full chunk whose values are all whole numbers is kept in the narrowest integer
 * array that holds them: a Uint8Array (flags, short token counts), a Uint16Array (token counts up
 * to 65,535) or an Int32Array (times in whole nanoseconds below 2.1 s): the same values in an
 * eighth, a quarter or half the memory.
 */

import { squaredDeviations } from "./stats.ts";
import { Histogram } from "./histogram.ts";
import { fast } from "../util/fast_paths.ts";

/** Values kept exactly before the column counts them in a histogram instead. */
const DEFAULT_CAP = 1 << 23; // 8 Mi values, 8 to 64 MiB: far beyond any per-request metric
/** Size of the sample a live snapshot sorts. */
const DEFAULT_LIVE = 4096;
/**
 * Values per chunk (64 KiB of doubles). Small enough that a per-request metric of whole numbers
 * fills chunks, kept in integer arrays, from a few thousand requests on: at 45,000 requests such
 * a column takes 104-224 KiB, where chunks of 65,536 values left it in one chunk of doubles (512
 * KiB).
 */
const DEFAULT_CHUNK = 1 << 13;

/** Options of a column; the defaults suit a benchmark of any length. */
export interface ColumnOptions {
  /** Values kept before the histogram (list metrics can yield hundreds per request). */
  cap?: number;
  /** Size of the live sample. */
  liveSize?: number;
  /** Values per chunk of storage, a power of two. */
  chunkSize?: number;
}

/** A column's values: doubles, or whole numbers in an Int32Array when all of them are. */
export type Values = Float64Array | Int32Array;

/** Keys of a 16-bit half of a value: the groups of `Column.wholeValuesAt`, and the keys in one. */
const KEYS = 1 << 16;
/** Groups whose low halves `Column.wholeValuesAt` counts in one pass (2 MiB of counts). */
const GROUPS_PER_PASS = 8;
/** Flips an Int32's sign bit: its key, as an unsigned number, is in the order of the values. */
const SIGN = 0x80000000 | 0;

/**
 * Arrays lent to `Column.copy` and `Column.wholeValuesAt` by a caller that ranks one column after
 * another (a summary), so that each column takes the memory the last one left instead of adding
 * to it until the garbage collector runs: at the end of a long run the copies of all columns
 * would otherwise be held at once, as much again as the columns.
 */
export class CopyBuffers {
  #ints = new Int32Array(0);
  #floats = new Float64Array(0);

  /** An Int32Array of `n` values, over the lent one (grown when too short). */
  ints(n: number): Int32Array {
    if (this.#ints.length < n) this.#ints = new Int32Array(n);
    return this.#ints.subarray(0, n);
  }

  /** A Float64Array of `n` values, over the lent one (grown when too short). */
  floats(n: number): Float64Array {
    if (this.#floats.length < n) this.#floats = new Float64Array(n);
    return this.#floats.subarray(0, n);
  }

  /** The counts `Column.wholeValuesAt` makes its passes with (2.3 MiB), made once. */
  counts(): RankCounts {
    return this.#counts ??= {
      high: new Uint32Array(KEYS),
      slotOf: new Int16Array(KEYS),
      low: new Uint32Array(KEYS * GROUPS_PER_PASS),
    };
  }
  #counts: RankCounts | undefined;
}

/** Counts of values by the halves of their keys (see `Column.wholeValuesAt`). */
interface RankCounts {
  high: Uint32Array;
  slotOf: Int16Array;
  low: Uint32Array;
}

/** A chunk of kept values: doubles, or whole numbers in the narrowest array holding them. */
type Chunk = Float64Array | Int32Array | Uint16Array | Uint8Array;

/** True when an Int32Array holds `v` exactly (not -0, NaN, a fraction or out of range). */
function int32Exact(v: number): boolean {
  return (v | 0) === v && !Object.is(v, -0);
}

/**
 * A full chunk in the narrowest array that holds each of its values exactly: Uint8Array,
 * Uint16Array or Int32Array when all are whole numbers in their range, else the chunk itself.
 */
function compact(chunk: Float64Array): Chunk {
  // The plain path (`--plain-paths narrow-columns`): every chunk stays in doubles.
  if (!fast("narrow-columns")) return chunk;
  const width = wholeWidth(chunk);
  if (width === 0) return chunk;
  if (width === 1) return new Uint8Array(chunk);
  if (width === 2) return new Uint16Array(chunk);
  return new Int32Array(chunk);
}

/**
 * The bytes per value `compact` keeps `chunk` in: 1 or 2 when its values are all whole numbers
 * from 0 to 255 or 65,535, 4 when they are all in an Int32Array's range, 0 when some is not.
 * (A chunk is long, and the loop is compiled while it runs, on stack replacement. Written inside
 * `compact`, with `if`s updating the bounds and the comparisons that choose the array after the
 * loop, that code was thrown away as it left the loop ("insufficient type feedback for compare
 * operation", V8's `--log-deopt`), twice in every wave of a paced run, and compiled again; written
 * as here, it was not.)
 */
function wholeWidth(chunk: Float64Array): number {
  let min = 0;
  let max = 0;
  for (let i = 0; i < chunk.length; i++) {
    const v = chunk[i];
    if (!int32Exact(v)) return 0;
    min = v < min ? v : min;
    max = v > max ? v : max;
  }
  return min < 0 || max > 0xffff ? 4 : max > 0xff ? 2 : 1;
}

/** Counts the whole numbers of `c` by the high half of their keys. */
function countHigh(c: Chunk, high: Uint32Array): void {
  for (let i = 0; i < c.length; i++) high[(c[i] ^ SIGN) >>> 16]++;
}

/** Counts the whole numbers of `c` whose group has a slot, by the low half of their keys. */
function countLow(c: Chunk, slotOf: Int16Array, low: Uint32Array): void {
  for (let i = 0; i < c.length; i++) {
    const key = (c[i] ^ SIGN) >>> 0;
    const slot = slotOf[key >>> 16];
    if (slot >= 0) low[slot * KEYS + (key & 0xffff)]++;
  }
}

/** The values before the group the last {@link groupOf} found. */
let groupStart = 0;

/**
 * The group (by `high`'s counts) that holds rank `r`, walking on from group `g`, which starts at
 * rank `before`; the rank its values start at is left in `groupStart`. (This loop and
 * {@link keyAt}'s are functions of their own: inside `wholeValuesAt`, their code compiled on
 * stack replacement was thrown away each time the loop ended, `--trace-deopt`'s "exit from OSR'd
 * inner loop", and the work ran in slower code.)
 */
function groupOf(high: Uint32Array, g: number, before: number, r: number): number {
  while (before + high[g] <= r) before += high[g++];
  groupStart = before;
  return g;
}

/** The index of the key in `low` from `k` whose count holds the value of rank `within` there. */
function keyAt(low: Uint32Array, k: number, within: number): number {
  for (let seen = 0; seen + low[k] <= within; k++) seen += low[k];
  return k;
}

/** The running moments the last {@link foldChunk} left. */
let foldMean = 0;
let foldM2 = 0;

/**
 * Folds `chunk[from, to)` into running moments `mean` and `m2` of `count` values, one value at a
 * time (Welford); leaves them in `foldMean` and `foldM2`. (A function of its own for the reason
 * {@link groupOf} gives.)
 */
function foldChunk(
  chunk: Chunk,
  from: number,
  to: number,
  count: number,
  mean: number,
  m2: number,
): void {
  for (let j = from; j < to; j++) {
    const v = chunk[j];
    count++;
    const d = v - mean;
    mean += d / count;
    m2 += d * (v - mean);
  }
  foldMean = mean;
  foldM2 = m2;
}

/** 2^-32: a product by it is exact, and cheaper than dividing by 2^32. */
const TWO_TO_MINUS_32 = 2 ** -32;

/** Seed of the xorshift32 generator that samples: deterministic and cheap (no secrecy needed). */
const SEED = 0x9e3779b9 | 0;

/** One metric's values. */
export class Column {
  /** Values pushed. */
  count = 0;
  /** Exact sum of all values pushed. */
  sum = 0;
  min = Infinity;
  max = -Infinity;
  /** The chunks before the last, each full (`#chunk` values). */
  #full: Chunk[] = [];
  /** The last chunk: values `#full.length * #chunk` and on. */
  #values = new Float64Array(64);
  #kept = 0;
  #cap: number;
  #chunk: number;
  #chunkBits: number;
  #live: Float64Array;
  #liveKept = 0;
  /** State of the xorshift32 generator that picks which values the live sample keeps. */
  #x = SEED;
  /** Every value pushed, by bucket, once there are more than the cap (the kept ones given up). */
  #hist: Histogram | null = null;
  // Welford's running moments, used for std once values are counted. While every value is kept
  // they are brought up to date only when read (`#fold`): the division each value costs is then
  // paid by nobody in a run whose summary ranks all values, and in the same order otherwise.
  #mean = 0;
  #m2 = 0;
  /** Values folded into `#mean` and `#m2`: the first `#folded` pushed. */
  #folded = 0;

  constructor(opts: ColumnOptions = {}) {
    this.#cap = Math.max(1, opts.cap ?? DEFAULT_CAP);
    this.#live = new Float64Array(Math.max(1, opts.liveSize ?? DEFAULT_LIVE));
    this.#chunkBits = Math.max(0, Math.round(Math.log2(opts.chunkSize ?? DEFAULT_CHUNK)));
    this.#chunk = 2 ** this.#chunkBits;
    if (this.#chunk < this.#values.length) this.#values = new Float64Array(this.#chunk);
  }

  /**
   * Makes room for value `kept` once the last chunk is full: that chunk doubled while it is the
   * first and shorter than a chunk, else a new chunk (no longer than the cap needs).
   */
  #room(): void {
    const last = this.#values;
    const chunk = this.#chunk;
    if (this.#full.length === 0 && last.length < chunk) {
      const grown = new Float64Array(Math.min(chunk, this.#cap, last.length * 2));
      grown.set(last);
      this.#values = grown;
    } else {
      const kept = compact(last);
      this.#full.push(kept);
      const size = Math.min(chunk, this.#cap - this.#kept);
      // A chunk kept as a copy in whole numbers leaves its doubles free: they take the next values.
      // (A new chunk per chunk would leave one dead chunk of doubles after another, for the
      // garbage collector to free only at its next full collection: tens of MB on a long run.)
      this.#values = kept !== last && last.length === size ? last : new Float64Array(size);
    }
  }

  /**
   * Counts the kept values in a histogram, folded into the running moments first, and gives
   * them up: from here on each value is counted there (called when the cap is passed).
   */
  #toHistogram(): Histogram {
    this.#fold();
    const hist = new Histogram();
    for (const c of this.#full) hist.addAll(c);
    hist.addAll(this.#last());
    this.#full = [];
    this.#values = new Float64Array(0);
    this.#kept = 0;
    return this.#hist = hist;
  }

  /** Adds one value. */
  push(v: number): void {
    const count = ++this.count;
    this.sum += v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
    if (this.#hist === null && this.#kept < this.#cap) {
      let at = this.#kept - this.#full.length * this.#chunk;
      if (at === this.#values.length) {
        this.#room();
        at = this.#kept - this.#full.length * this.#chunk;
      }
      this.#values[at] = v;
      this.#kept++;
    } else {
      // Counted from here on (`count` was counted above).
      (this.#hist ?? this.#toHistogram()).add(v);
      const d = v - this.#mean;
      this.#mean += d / count;
      this.#m2 += d * (v - this.#mean);
      this.#folded = count;
      // The histogram stands for the live sample too.
      return;
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
    return (x >>> 0) * TWO_TO_MINUS_32;
  }

  /**
   * Adds `values[from]` up to `values[to - 1]` (default: all), in order: the same as pushing
   * them one by one, with the running state in locals for the length of each loop (past the
   * cap, the running mean and variance are the same to rounding). The values that fit under the
   * cap are kept; the rest are counted in the histogram.
   */
  pushAll(values: ArrayLike<number>, from = 0, to = values.length): void {
    const split = this.#hist !== null
      ? from
      : Math.min(to, from + Math.max(0, this.#cap - this.#kept));
    if (split > from) this.#pushKept(values, from, split);
    if (to > split) this.#pushCounted(values, split, to);
  }

  /** `pushAll` of values that all fit under the cap: each is kept, none folded yet. */
  #pushKept(values: ArrayLike<number>, from: number, to: number): void {
    let sum = this.sum;
    let min = this.min;
    let max = this.max;
    let x = this.#x;
    let kept = this.#kept;
    let store = this.#values;
    // Index in `store` of value `kept`.
    let at = kept - this.#full.length * this.#chunk;
    const live = this.#live;
    const size = live.length;
    let liveKept = this.#liveKept;
    for (let i = from; i < to; i++) {
      const v = values[i];
      sum += v;
      if (v < min) min = v;
      if (v > max) max = v;
      if (at === store.length) {
        this.#kept = kept;
        this.#room();
        store = this.#values;
        at = kept - this.#full.length * this.#chunk;
      }
      store[at++] = v;
      kept++;
      if (liveKept < size) live[liveKept++] = v;
      else {
        // As `push` does, with `#rand` inlined; `kept` is the count with this value.
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        const j = Math.floor(((x >>> 0) * TWO_TO_MINUS_32) * kept);
        if (j < size) live[j] = v;
      }
    }
    this.count = kept;
    this.sum = sum;
    this.min = min;
    this.max = max;
    this.#x = x;
    this.#kept = kept;
    this.#liveKept = liveKept;
  }

  /**
   * `pushAll` of values past the cap: the kept values are counted in the histogram first (see
   * `#toHistogram`), then these values. Their moments about their own mean are merged into the
   * running ones (Chan, Golub and LeVeque's pairwise update), which is as stable as folding them
   * in one by one and costs no division per value; count, sum, min and max are kept as `push`
   * keeps them.
   */
  #pushCounted(values: ArrayLike<number>, from: number, to: number): void {
    (this.#hist ?? this.#toHistogram()).addAll(values, from, to);
    const n = to - from;
    let sum = this.sum;
    let min = this.min;
    let max = this.max;
    let batchSum = 0;
    for (let i = from; i < to; i++) {
      const v = values[i];
      sum += v;
      batchSum += v;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    const batchMean = batchSum / n;
    let batchM2 = 0;
    for (let i = from; i < to; i++) {
      const d = values[i] - batchMean;
      batchM2 += d * d;
    }
    const before = this.count;
    const count = before + n;
    const delta = batchMean - this.#mean;
    this.#mean += delta * (n / count);
    this.#m2 += batchM2 + delta * delta * (before * (n / count));
    this.count = count;
    this.sum = sum;
    this.min = min;
    this.max = max;
    this.#folded = count;
  }

  /**
   * Folds the kept values not yet in the running moments into them, one by one in the order
   * they came (as pushing each would have): only values still all kept are ever pending.
   */
  #fold(): void {
    let folded = this.#folded;
    const kept = this.#kept;
    if (folded >= kept) return;
    let mean = this.#mean;
    let m2 = this.#m2;
    const bits = this.#chunkBits;
    const full = this.#full;
    while (folded < kept) {
      const c = folded >>> bits;
      const chunk = c < full.length ? full[c] : this.#values;
      const offset = c << bits;
      const end = Math.min(kept - offset, chunk.length);
      foldChunk(chunk, folded - offset, end, folded, mean, m2);
      folded = offset + end;
      mean = foldMean;
      m2 = foldM2;
    }
    this.#mean = mean;
    this.#m2 = m2;
    this.#folded = folded;
  }

  /**
   * True when every value pushed is kept, so percentiles are exact; false once they are counted
   * in the histogram (more were pushed than the cap).
   */
  get exact(): boolean {
    return this.#hist === null;
  }

  /**
   * Past the cap, the values at the given 0-based ranks of all values pushed, in ascending
   * order, read from the histogram (within 0.025%; min and max exact); null before it.
   */
  countedValuesAt(ranks: Iterable<number>): Map<number, number> | null {
    return this.#hist?.valuesAt(ranks, this.min, this.max) ?? null;
  }

  /** True while the live sample holds every value pushed. */
  get sampleComplete(): boolean {
    return this.#hist === null && this.count <= this.#live.length;
  }

  /** Running mean of all values. */
  get mean(): number {
    this.#fold();
    return this.count === 0 ? NaN : this.#mean;
  }

  /** Running population variance of all values. */
  get variance(): number {
    this.#fold();
    return this.count === 0 ? NaN : this.#m2 / this.count;
  }

  /** The most values kept before they are counted in the histogram. */
  get cap(): number {
    return this.#cap;
  }

  /** The number of values kept: all pushed while `exact`, none once counted. */
  get kept(): number {
    return this.#kept;
  }

  /**
   * The kept values (all of them when `exact`), sorted ascending, as a copy: in `buffers` when
   * given (valid until their next use).
   */
  sorted(buffers?: CopyBuffers): Values {
    return this.copy(buffers).sort();
  }

  /** Bytes the kept values (or the histogram's counts) take. */
  get storedBytes(): number {
    let n = this.#values.byteLength + (this.#hist?.storedBytes ?? 0);
    for (const c of this.#full) n += c.byteLength;
    return n;
  }

  /**
   * The kept values in arrival order, as a new array: an Int32Array when every full chunk holds
   * whole numbers and the last chunk's values fit one too (half the memory of the copy a summary
   * ranks). With `buffers`, the copy is made in the arrays they lend (valid until their next use).
   */
  copy(buffers?: CopyBuffers): Values {
    const last = this.#last();
    const n = this.#kept;
    const out = this.#whole(last)
      ? (buffers?.ints(n) ?? new Int32Array(n))
      : (buffers?.floats(n) ?? new Float64Array(n));
    let at = 0;
    for (const c of this.#full) {
      out.set(c, at);
      at += c.length;
    }
    out.set(last, at);
    return out;
  }

  /**
   * The kept values at the given 0-based ranks of their ascending order (what `sorted()` holds
   * at each), or null unless every kept value is a whole number an Int32Array holds. Found in
   * passes over the chunks, with no copy of the values: a count of the values by their high 16
   * bits (as unsigned keys) places each rank in one group of 65,536 keys, and a count by the low
   * 16 bits of the values in those groups (8 groups a pass) gives its value. The counts take
   * 2.3 MiB, in `buffers` when given (shared by the columns a summary ranks); a copy to rank
   * would take 4 bytes a value, 32 MiB for a column of 8 Mi times, at the end of a run, when the
   * rest of its memory is still held.
   */
  wholeValuesAt(ranks: Iterable<number>, buffers?: CopyBuffers): Map<number, number> | null {
    const n = this.#kept;
    const last = this.#last();
    if (!this.#whole(last)) return null;
    const chunks: Chunk[] = [...this.#full, last];
    const wanted = [...new Set(ranks)].filter((r) => r >= 0 && r < n).sort((a, b) => a - b);
    const out = new Map<number, number>();
    if (wanted.length === 0) return out;
    const { high, slotOf, low } = (buffers ?? new CopyBuffers()).counts();
    high.fill(0);
    for (const c of chunks) countHigh(c, high);
    // Each rank's group and its rank among the group's values.
    const groups: number[] = [];
    const within: number[] = [];
    let g = 0;
    let before = 0;
    for (const r of wanted) {
      g = groupOf(high, g, before, r);
      before = groupStart;
      groups.push(g);
      within.push(r - before);
    }
    const distinct = [...new Set(groups)];
    for (let from = 0; from < distinct.length; from += GROUPS_PER_PASS) {
      const batch = distinct.slice(from, from + GROUPS_PER_PASS);
      slotOf.fill(-1);
      low.fill(0);
      batch.forEach((group, slot) => slotOf[group] = slot);
      for (const c of chunks) countLow(c, slotOf, low);
      for (let i = 0; i < wanted.length; i++) {
        const slot = slotOf[groups[i]];
        if (slot < 0) continue;
        const k = keyAt(low, slot * KEYS, within[i]);
        // The key back to the value: the high and low halves, the sign bit flipped back.
        out.set(wanted[i], ((groups[i] << 16) | (k - slot * KEYS)) ^ SIGN);
      }
    }
    return out;
  }

  /** Population standard deviation of the kept values about `mean`: `stdPopulation` of them. */
  stdAbout(mean: number): number {
    const n = this.#kept;
    if (n === 0) return NaN;
    let ss = 0;
    for (const c of this.#full) ss = squaredDeviations(c, mean, ss);
    ss = squaredDeviations(this.#last(), mean, ss);
    return Math.sqrt(ss / n);
  }

  /** The kept values of the last chunk. */
  #last(): Float64Array {
    return this.#values.subarray(0, this.#kept - this.#full.length * this.#chunk);
  }

  /** True when every kept value is a whole number an Int32Array holds (`last`: `#last()`). */
  #whole(last: Float64Array): boolean {
    if (this.#full.some((c) => c instanceof Float64Array)) return false;
    for (let i = 0; i < last.length; i++) if (!int32Exact(last[i])) return false;
    return true;
  }

  /**
   * The kept values in arrival order: a view while they fit one chunk, else a copy (do not keep
   * it across pushes).
   */
  values(): Values {
    return this.#full.length === 0 ? this.#values.subarray(0, this.#kept) : this.copy();
  }

  /**
   * The live sample, sorted ascending, as a copy (all values while there are few); once values
   * are counted, as many values read from the histogram at evenly spaced ranks.
   */
  sortedSample(): Float64Array {
    if (this.#hist !== null) return this.#hist.quantiles(this.#live.length, this.min, this.max);
    return this.#live.slice(0, this.#liveKept).sort();
  }
}
