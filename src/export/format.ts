/** Number formatting shared by the console table and the CSV export. */

/** Two decimals, like Python's `f"{x:.2f}"` (`inf`, `-inf`, `nan` for non-finite values). */
export function fixed2(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const s = x.toFixed(2);
  // toFixed switches to exponent notation from 1e21; spell such values out.
  return s.includes("e") ? BigInt(Math.round(x)).toString() + ".00" : s;
}

/** Two decimals with thousands separators, like Python's `f"{x:,.2f}"`. */
export function grouped2(x: number): string {
  const s = fixed2(x);
  const m = /^(-?)(\d+)(\.\d+)$/.exec(s);
  if (!m) return s;
  return m[1] + m[2].replace(/\B(?=(\d{3})+(?!\d))/g, ",") + m[3];
}
