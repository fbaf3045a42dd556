/** Distribution statistics with numpy's conventions, over sorted Float64Arrays. */

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
  if (lo >= n - 1) return sorted[n - 1];
  const t = h - lo;
  const a = sorted[lo];
  const b = sorted[lo + 1];
  // numpy keeps a when both ends are equal (also for infinities, where lerp gives NaN).
  return a === b ? a : lerp(a, b, t);
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
  if (n === 0) return NaN;
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const d = values[i] - mean;
    ss += d * d;
  }
  return Math.sqrt(ss / n);
}

/** Sum of an array. */
export function sumOf(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i];
  return s;
}
