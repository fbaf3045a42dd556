/** Distribution statistics with numpy's conventions, over sorted arrays of numbers. */

/** The percentiles every distribution reports, in order. */
export const PERCENTILES = [1, 5, 10, 25, 50, 75, 90, 95, 99] as const;

/** A stats block key for a percentile: `p1` … `p99`. */
export type PercentileKey = `p${(typeof PERCENTILES)[number]}`;

/** numpy's `_lerp`: interpolates from the nearer end, so results match `np.percentile` bit for bit. */
function lerp(a: number, b: number, t: number): number {
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/**
 * The p-th percentile (0–100) of ascending `sorted`, by linear interpolation between closest
 * ranks: numpy's default method. NaN for an empty array.
 */
export function percentileLinear(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (p / 100) * (n - 1);
  const lo = Math.floor(h);
  // Reads only the ranks `linearRanks` names: a partly ordered array (selectRanks) will do.
  if (lo >= n - 1) return sorted[n - 1];
  const t = h - lo;
  const a = sorted[lo];
  const b = sorted[lo + 1];
  // numpy keeps a when both ends are equal (also for infinities, where lerp gives NaN).
  return a === b ? a : lerp(a, b, t);
}

/** The 0-based ranks `percentileLinear` reads for the p-th percentile of n values. */
export function linearRanks(p: number, n: number): number[] {
  const lo = Math.floor((p / 100) * (n - 1));
  return lo >= n - 1 ? [n - 1] : [lo, lo + 1];
}

/**
 * Puts the values of the given 0-based ranks in place, as a full ascending sort would, without
 * sorting the rest: each rank's position then holds that order statistic. Linear time for a
 * handful of ranks, against the n log n of a sort (about 0.4 s for 4 million inter-chunk gaps).
 * Values must not be NaN.
 */
export function selectRanks(values: Float64Array | Int32Array, ranks: Iterable<number>): void {
  const wanted = [...new Set(ranks)].filter((r) => r >= 0 && r < values.length).sort((a, b) =>
    a - b
  );
  select(values, 0, values.length - 1, wanted, 0, wanted.length);
}

/**
 * Where the last {@link partition} put the pivot's values: `a[partLt, partGt]`. (Two numbers
 * returned without an object per call.)
 */
let partLt = 0;
let partGt = 0;

/**
 * Orders `a[lo..hi]` enough that each of `ranks[from, to)` (ascending, inside it) is in place.
 *
 * The long loops (the partition and the insertion sort) are functions of their own: written
 * inside this one, each was compiled on stack replacement and that code was thrown away every
 * time the loop ended ("exit from OSR'd inner loop", `--trace-deopt`: 127 times in the summary
 * of a 100,000-request run), so most of the work ran in slower code; called, they are compiled
 * once, as any function called often.
 */
function select(
  a: Float64Array | Int32Array,
  lo: number,
  hi: number,
  ranks: number[],
  from: number,
  to: number,
): void {
  while (from < to) {
    if (hi - lo < 32) {
      // Short ranges: insertion sort settles every rank at once.
      insertionSort(a, lo, hi);
      return;
    }
    // Median of three as the pivot, then a three-way partition: runs of equal values (many
    // zero gaps) end up in the middle and are settled at once.
    const mid = lo + ((hi - lo) >> 1);
    const x = a[lo], y = a[mid], z = a[hi];
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
    partition(a, lo, hi, pivot);
    const lt = partLt, gt = partGt;
    // a[lo, lt) < pivot, a[lt, gt] = pivot, a(gt, hi] > pivot.
    let left = from;
    while (left < to && ranks[left] < lt) left++;
    let right = left;
    while (right < to && ranks[right] <= gt) right++;
    // Recurse into the smaller side with ranks; loop on the other.
    if (left - from > 0 && to - right > 0) {
      if (lt - lo < hi - gt) {
        select(a, lo, lt - 1, ranks, from, left);
        lo = gt + 1;
        from = right;
      } else {
        select(a, gt + 1, hi, ranks, right, to);
        hi = lt - 1;
        to = left;
      }
    } else if (left - from > 0) {
      hi = lt - 1;
      to = left;
    } else {
      lo = gt + 1;
      from = right;
    }
  }
}

/** Sorts `a[lo..hi]` ascending in place. */
function insertionSort(a: Float64Array | Int32Array, lo: number, hi: number): void {
  for (let i = lo + 1; i <= hi; i++) {
    const v = a[i];
    let j = i - 1;
    while (j >= lo && a[j] > v) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = v;
  }
}

/**
 * Three-way partition of `a[lo..hi]` around `pivot`: the smaller values first, then those equal
 * to it, then the larger; the equal ones' bounds are left in `partLt` and `partGt`.
 */
function partition(a: Float64Array | Int32Array, lo: number, hi: number, pivot: number): void {
  let lt = lo, i = lo, gt = hi;
  while (i <= gt) {
    const v = a[i];
    if (v < pivot) {
      a[i++] = a[lt];
      a[lt++] = v;
    } else if (v > pivot) {
      a[i] = a[gt];
      a[gt--] = v;
    } else i++;
  }
  partLt = lt;
  partGt = gt;
}

/** Rounds half to even, as numpy's `around` does. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** The 0-based index numpy's `method="nearest"` picks for the p-th percentile of n values. */
export function nearestRank(p: number, n: number): number {
  return Math.min(n - 1, Math.max(0, roundHalfEven((p / 100) * (n - 1))));
}

/**
 * The p-th percentile (0–100) of ascending `sorted` by the nearest rank: numpy's
 * `method="nearest"`, used where failed requests count as infinite values. NaN when empty.
 */
export function percentileNearest(sorted: ArrayLike<number>, p: number): number {
  return sorted.length === 0 ? NaN : sorted[nearestRank(p, sorted.length)];
}

/** Population standard deviation (ddof 0) in two passes, as `np.std` computes it. */
export function stdPopulation(values: ArrayLike<number>, mean: number): number {
  const n = values.length;
  return n === 0 ? NaN : Math.sqrt(squaredDeviations(values, mean, 0) / n);
}

/**
 * `ss` plus `(v - mean)^2` for each value, added one by one: values held in pieces give, piece
 * after piece, the sum `stdPopulation` takes over them all.
 */
export function squaredDeviations(values: ArrayLike<number>, mean: number, ss: number): number {
  for (let i = 0; i < values.length; i++) {
    const d = values[i] - mean;
    ss += d * d;
  }
  return ss;
}

/** Sum of an array. */
export function sumOf(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i];
  return s;
}
