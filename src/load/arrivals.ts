/**
 * Arrival schedules: when the i-th request of a request-rate phase is meant to be sent, in ms
 * from the phase start. Each gap is drawn from the seed and its index alone (no shared generator
 * state), so every Worker computes the same schedule and no Worker ever sleeps "after the
 * previous send": times are absolute, and a late send never pushes the later ones back.
 */

import { hash32 } from "../util/rng.ts";
import type { ArrivalPattern, RateSchedule } from "../plan/types.ts";

/** The schedule types live with the plan that builds them; the load reads them from here too. */
export type { ArrivalPattern, RateSchedule };

/** Ramps move in steps of this length, as AIPerf's ramp updates every 0.1 s. */
export const RAMP_STEP_MS = 100;

const TWO_32 = 4294967296;

/** A uniform draw in (0, 1) for gap `i`, sub-draw `k`: never exactly 0 or 1, so logs are finite. */
function uniform(seed: number, i: number, k: number): number {
  return (hash32(seed, i, 2 * k + 11) + 0.5) / TWO_32;
}

/** A standard normal draw (Box–Muller) for gap `i`, sub-draw `k`. */
function normal(seed: number, i: number, k: number): number {
  const u1 = uniform(seed, i, 2 * k + 100);
  const u2 = uniform(seed, i, 2 * k + 101);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** Gamma(shape, 1) by Marsaglia–Tsang; shapes below 1 use the `U^(1/shape)` boost. */
function gamma(shape: number, seed: number, i: number): number {
  if (shape < 1) return gamma(shape + 1, seed, i) * Math.pow(uniform(seed, i, 999), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  // Rejection succeeds with probability > 0.95; the bound only guards against a pathological seed.
  for (let k = 0; k < 64; k++) {
    const x = normal(seed, i, k);
    const v0 = 1 + c * x;
    if (v0 <= 0) continue;
    const v = v0 * v0 * v0;
    const u = uniform(seed, i, k);
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
  return shape;
}

/**
 * The i-th gap in units of the mean gap (mean 1): constant 1, exponential for poisson, and
 * Gamma(shape, 1/shape) for gamma (shape 1 is exponential too).
 */
export function unitGap(pattern: ArrivalPattern, smoothness: number, seed: number, i: number) {
  switch (pattern) {
    case "constant":
      return 1;
    case "poisson":
      return -Math.log(uniform(seed, i, 0));
    case "gamma":
      return gamma(smoothness, seed, i) / smoothness;
  }
}

/** Rate (req/s) during ramp step `k`: the rate grows by equal steps and reaches it at the end. */
function stepRate(s: RateSchedule, k: number, steps: number): number {
  return k >= steps ? s.rate : (s.rate * (k + 1)) / steps;
}

/**
 * Send times of a rate schedule, read in increasing index order (each Worker keeps one).
 * The i-th time is the moment the cumulative rate reaches the sum of the first i gaps: without
 * a ramp that is simply `sum / rate`; during a ramp the rate is a step function of time.
 */
export class ArrivalCursor {
  #s: RateSchedule;
  #steps: number;
  #index = 0;
  /** Sum of the first `#index` unit gaps. */
  #sum = 0;
  /** Where the ramp integration stands: step k, and the expected arrivals before it. */
  #step = 0;
  #workBefore = 0;

  /** With a rate series: the segment the integration stands in, and the work before it. */
  #seg = 0;
  #segWork = 0;

  constructor(schedule: RateSchedule) {
    if (!(schedule.rate > 0) || !Number.isFinite(schedule.rate)) {
      throw new RangeError(`request rate must be a positive number, got ${schedule.rate}`);
    }
    if (!(schedule.smoothness > 0)) {
      throw new RangeError(`arrival smoothness must be positive, got ${schedule.smoothness}`);
    }
    this.#s = schedule;
    this.#steps = Math.ceil(Math.max(0, schedule.rampMs) / RAMP_STEP_MS);
  }

  /** Send time of request `i` in ms from the phase start; `i` must not decrease between calls. */
  timeOf(i: number): number {
    if (i < this.#index) {
      throw new RangeError(`arrival ${i} was already passed (at ${this.#index})`);
    }
    const s = this.#s;
    while (this.#index < i) this.#sum += unitGap(s.pattern, s.smoothness, s.seed, this.#index++);
    return s.series ? this.#timeOfSeriesWork(s.series, this.#sum) : this.#timeOfWork(this.#sum);
  }

  /**
   * When `work` arrivals are due under a piecewise-linear rate: the segment where the integral
   * of the rate reaches `work`, then the root of its quadratic within it. After the last point
   * the last rate holds.
   */
  #timeOfSeriesWork(series: [number, number][], work: number): number {
    for (; this.#seg < series.length - 1; this.#seg++) {
      const [t0, r0] = series[this.#seg];
      const [t1, r1] = series[this.#seg + 1];
      const inSeg = ((r0 + r1) / 2) * ((t1 - t0) / 1000);
      if (work < this.#segWork + inSeg) break;
      this.#segWork += inSeg;
    }
    const [t0, r0] = series[this.#seg];
    const left = work - this.#segWork;
    if (this.#seg >= series.length - 1) return t0 + (left / r0) * 1000;
    const [t1, r1] = series[this.#seg + 1];
    const dt = (t1 - t0) / 1000;
    // r(x) = r0 + a x over the segment (x in s): r0 x + a x^2 / 2 = left.
    const a = (r1 - r0) / dt;
    const x = Math.abs(a) < 1e-12
      ? left / r0
      : (-r0 + Math.sqrt(Math.max(0, r0 * r0 + 2 * a * left))) / a;
    return t0 + Math.min(Math.max(0, x), dt) * 1000;
  }

  /** Inverse of the cumulative expected arrivals: when `work` arrivals are due. */
  #timeOfWork(work: number): number {
    const stepS = RAMP_STEP_MS / 1000;
    while (this.#step < this.#steps) {
      const inStep = stepRate(this.#s, this.#step, this.#steps) * stepS;
      if (work < this.#workBefore + inStep) break;
      this.#workBefore += inStep;
      this.#step++;
    }
    const rate = stepRate(this.#s, this.#step, this.#steps);
    return this.#step * RAMP_STEP_MS + ((work - this.#workBefore) / rate) * 1000;
  }
}

/** Concurrency allowed at `elapsedMs` into a ramp to `target` over `rampMs`, in 0.1 s steps. */
export function rampedConcurrency(target: number, rampMs: number, elapsedMs: number): number {
  if (rampMs <= 0 || elapsedMs >= rampMs) return target;
  const steps = Math.ceil(rampMs / RAMP_STEP_MS);
  const k = Math.floor(Math.max(0, elapsedMs) / RAMP_STEP_MS);
  return Math.max(1, Math.min(target, Math.ceil((target * (k + 1)) / steps)));
}
