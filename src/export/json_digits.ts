/**
 * The byte-level digits of `profile_export.jsonl` lines (`record_writer.ts`): whole numbers, lists
 * of them and epoch nanoseconds written digit by digit into a byte buffer, the same text as
 * `JSON.stringify` and `BigInt.toString` give, without making a string.
 */

/** The two digits of 0-99, as ASCII bytes: 00, 01, … 99. */
const PAIRS = Uint8Array.from(
  { length: 200 },
  (_, i) => 48 + (i % 2 === 0 ? (i >> 1) / 10 | 0 : (i >> 1) % 10),
);

/** Most bytes one number of a list takes with its comma: `,-2147.483647`. */
export const MAX_NUMBER_BYTES = 13;

/** True when `writeWhole` can write `v`: a whole number above -2^31 and below 2^31. */
export function whole(v: number): boolean {
  return (v | 0) === v && v !== -2147483648;
}

/** True for the divisors `writeWhole` writes by: ns shown in ms, or values shown as they are. */
export function wholeDivisor(divisor: number): boolean {
  return divisor === 1e6 || divisor === 1;
}

/**
 * True when `writeNumbers` can write the list: whole numbers above -2^31 and below 2^31 (times
 * in whole ns, which Workers stamp, or counts), shown in ms or as they are.
 */
export function wholeNumbers(values: ArrayLike<number>, divisor: number): boolean {
  if (!wholeDivisor(divisor)) return false;
  for (let i = 0; i < values.length; i++) {
    if (!whole(values[i])) return false;
  }
  return true;
}

/**
 * Writes `v / divisor` into `buf` at `at` as JSON writes it, and returns where it ends; `v` is
 * `whole` and `divisor` 1e6 or 1, and there is room for MAX_NUMBER_BYTES.
 *
 * The number is written digit by digit: for a whole number n of ns, the exact decimal n / 10^6
 * with its trailing zeros dropped is the shortest text that reads back as the double n / 1e6 (n
 * has at most 10 digits, far below a double's 15), which is what JSON writes; -0 is written 0.
 */
export function writeWhole(buf: Uint8Array, at: number, v: number, divisor: number): number {
  let n = v | 0;
  if (n < 0) {
    buf[at++] = 45; // -
    n = -n;
  }
  if (n === 0) {
    buf[at++] = 48;
    return at;
  }
  if (divisor === 1) return writeDigits(buf, at, n);
  const int = (n / 1000000) | 0;
  let frac = n - int * 1000000;
  if (int < 10) buf[at++] = 48 + int;
  else at = writeDigits(buf, at, int);
  if (frac !== 0) {
    // Six digits, two at a time, then the trailing zeros taken back (one digit is not 0).
    buf[at] = 46; // .
    const a = (frac / 10000) | 0;
    frac -= a * 10000;
    const b = (frac / 100) | 0;
    const c = frac - b * 100;
    buf[at + 1] = PAIRS[2 * a];
    buf[at + 2] = PAIRS[2 * a + 1];
    buf[at + 3] = PAIRS[2 * b];
    buf[at + 4] = PAIRS[2 * b + 1];
    buf[at + 5] = PAIRS[2 * c];
    buf[at + 6] = PAIRS[2 * c + 1];
    at += 7;
    while (buf[at - 1] === 48) at--;
  }
  return at;
}

/**
 * Writes `values[i] / divisor` for each i into `buf` from `at`, as the JSON array
 * `JSON.stringify` writes, and returns where it ends; `room(at)` is called before each number
 * and returns where to go on (it may write out the buffer and start again at 0). The list must
 * pass `wholeNumbers`.
 */
export function writeNumbers(
  buf: Uint8Array,
  at: number,
  values: ArrayLike<number>,
  divisor: number,
  room: (at: number) => number,
): number {
  at = room(at);
  buf[at++] = 91; // [
  for (let i = 0; i < values.length; i++) {
    if (at + MAX_NUMBER_BYTES > buf.length) at = room(at);
    if (i > 0) buf[at++] = 44; // ,
    at = writeWhole(buf, at, values[i], divisor);
  }
  at = room(at);
  buf[at++] = 93; // ]
  return at;
}

/** Writes the decimal digits of the integer `n` (0 <= n < 2^31) at `at`; returns their end. */
function writeDigits(buf: Uint8Array, at: number, n: number): number {
  let digits = 1;
  for (let p = 10; p <= n && digits < 10; p *= 10) digits++;
  return writeFixed(buf, at, n, digits);
}

/** Writes the last `digits` decimal digits of `n` (0 <= n < 2^31), leading zeros and all. */
function writeFixed(buf: Uint8Array, at: number, n: number, digits: number): number {
  for (let k = at + digits - 1; k >= at; k--) {
    const q = (n / 10) | 0;
    buf[k] = 48 + n - q * 10;
    n = q;
  }
  return at + digits;
}

/** Writes the digits of the integer `n` (0 <= n < 2^53) at `at`; returns their end. */
function writeLong(buf: Uint8Array, at: number, n: number): number {
  if (n < 2147483648) return writeDigits(buf, at, n);
  const hi = Math.floor(n / 1e9);
  return writeFixed(buf, writeLong(buf, at, hi), n - hi * 1e9, 9);
}

/** Most bytes `#epoch` writes itself: the 19 digits of a non-negative 64-bit integer. */
export const EPOCH_BYTES = 19;

/**
 * Writes `s` quoted, as `JSON.stringify` writes it, when each of its characters stands for itself
 * (printable ASCII other than `"` and `\`); returns its end, or -1 when it is not such a string.
 */
export function putPlainString(buf: Uint8Array, at: number, s: string): number {
  buf[at++] = 34; // "
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 || c > 126 || c === 34 || c === 92) return -1;
    buf[at++] = c;
  }
  buf[at++] = 34;
  return at;
}

/**
 * Writes the epoch ns `startS * 10^9 + startNs + Math.round(offsetNs)` as `epochNs` writes it,
 * digit by digit: the start is split into seconds and ns once per record (`#splitStart`), and each
 * time after it is a sum of numbers, where BigInt arithmetic and its text cost an object or two
 * per field. Returns its end, or -1 for an offset of 2^52 ns or more or a time before the epoch.
 */
export function putEpoch(
  buf: Uint8Array,
  at: number,
  startS: number,
  startNs: number,
  offsetNs: number,
): number {
  const offset = Math.round(offsetNs);
  if (!(Math.abs(offset) < 2 ** 52)) return -1;
  const ns = startNs + offset;
  const carry = Math.floor(ns / 1e9);
  const seconds = startS + carry;
  if (seconds < 0) return -1;
  const past = ns - carry * 1e9;
  return seconds === 0
    ? writeDigits(buf, at, past)
    : writeFixed(buf, writeLong(buf, at, seconds), past, 9);
}
