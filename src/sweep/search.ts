/**
 * The monotonic SLA search: on a load axis where latency only grows with load (concurrency),
 * the largest load meeting every SLA is found by bracketing (doubling from the smallest load
 * until a probe fails) and then bisecting between the highest pass and the lowest failure, down
 * to one step. Each probe's verdict comes from its repeated runs' confidence intervals: a probe
 * whose interval is clearly on one side of every threshold needs no more runs.
 */

import { metricValues, type RunRef } from "./aggregate.ts";
import { type ConfidenceStat, confidenceStat } from "./stats.ts";

/** An SLA filter in AIPerf's `sla_filters` shape. */
export interface SlaFilter {
  metric_tag: string;
  stat: string;
  op: "lt" | "le" | "gt" | "ge";
  threshold: number;
}

/**
 * The value a filter reads from a run: the metric statistic; `request_error_rate` (a percentage
 * in the run's summary) as a fraction, as `--error-rate-sla` gives it; `goodput_fraction` as
 * goodput over request throughput.
 */
export function filterValue(f: SlaFilter, run: RunRef): number | undefined {
  if (run.summary === null || run.error !== undefined) return undefined;
  const values = metricValues(run.summary);
  if (f.metric_tag === "goodput_fraction") {
    const good = values.get("goodput_avg")?.value;
    const all = values.get("request_throughput_avg")?.value;
    return good === undefined || !all ? undefined : good / all;
  }
  const v = values.get(`${f.metric_tag}_${f.stat}`)?.value;
  if (v === undefined) return undefined;
  return f.metric_tag === "request_error_rate" ? v / 100 : v;
}

/** Whether `v` meets the filter. */
function meets(f: SlaFilter, v: number): boolean {
  switch (f.op) {
    case "lt":
      return v < f.threshold;
    case "le":
      return v <= f.threshold;
    case "gt":
      return v > f.threshold;
    case "ge":
      return v >= f.threshold;
  }
}

/** One filter's reading at a probe: its statistic across the runs. */
export interface FilterReading {
  filter: SlaFilter;
  stat: ConfidenceStat | null;
  /** pass, fail, or unsure (the interval straddles the threshold). */
  verdict: "pass" | "fail" | "unsure";
}

/** A probe's verdict from its runs so far. */
export interface Judgement {
  verdict: "pass" | "fail" | "unsure";
  readings: FilterReading[];
  /** The first filter that failed, with what was observed (its mean). */
  breach: (SlaFilter & { observed: number }) | null;
}

/**
 * Judges a probe: each filter passes when its whole confidence interval meets it, fails when no
 * part does, and is unsure in between; `decide` (no runs left) judges by the mean instead. A
 * metric no run has fails. With one run the interval is that run's value.
 */
export function judge(
  runs: readonly RunRef[],
  filters: readonly SlaFilter[],
  level: number,
  decide: boolean,
): Judgement {
  const readings: FilterReading[] = filters.map((filter) => {
    const xs = runs.map((r) => filterValue(filter, r)).filter((v): v is number => v !== undefined);
    if (xs.length === 0) return { filter, stat: null, verdict: "fail" };
    const stat = confidenceStat(xs, level, "");
    const lo = meets(filter, stat.ci_low);
    const hi = meets(filter, stat.ci_high);
    const verdict = lo && hi
      ? "pass"
      : !lo && !hi
      ? "fail"
      : decide
      ? (meets(filter, stat.mean) ? "pass" : "fail")
      : "unsure";
    return { filter, stat, verdict };
  });
  const failed = readings.find((r) => r.verdict === "fail");
  const verdict = failed
    ? "fail"
    : readings.some((r) => r.verdict === "unsure")
    ? "unsure"
    : "pass";
  return {
    verdict,
    readings,
    breach: failed ? { ...failed.filter, observed: failed.stat?.mean ?? NaN } : null,
  };
}

/** Why a search stopped, in AIPerf's `convergence_reason` words. */
export type SearchEnd =
  | "monotonic_precision_reached"
  | "monotonic_no_pass_in_range"
  | "monotonic_no_failure_in_range"
  | "max_iterations";

/**
 * The bracket-and-bisect planner over the integers `lo..hi`: `next()` proposes the load to
 * probe (null once done, with `reason`), `tell()` takes its verdict.
 */
export class MonotonicSearch {
  feasibleMax: number | null = null;
  infeasibleMin: number | null = null;
  iterations = 0;
  reason: SearchEnd | null = null;

  constructor(readonly lo: number, readonly hi: number, readonly maxIterations: number) {}

  /** The next load to probe, or null when the search is over (`reason` says why). */
  next(): number | null {
    if (this.reason !== null) return null;
    const end = (r: SearchEnd) => {
      this.reason = r;
      return null;
    };
    let v: number;
    if (this.iterations === 0) v = this.lo;
    else if (this.feasibleMax === null) return end("monotonic_no_pass_in_range");
    else if (this.infeasibleMin === null) {
      if (this.feasibleMax >= this.hi) return end("monotonic_no_failure_in_range");
      v = Math.min(this.hi, this.feasibleMax * 2);
    } else {
      if (this.infeasibleMin - this.feasibleMax <= 1) return end("monotonic_precision_reached");
      v = Math.floor((this.feasibleMax + this.infeasibleMin) / 2);
    }
    if (this.iterations >= this.maxIterations) return end("max_iterations");
    return v;
  }

  /**
   * Takes a probe's verdict; returns whether it breaks monotonicity (a pass at or above a known
   * failure, or a failure at or below a known pass). Such a verdict still moves the bracket.
   */
  tell(value: number, pass: boolean): boolean {
    this.iterations++;
    const odd = pass
      ? this.infeasibleMin !== null && value >= this.infeasibleMin
      : this.feasibleMax !== null && value <= this.feasibleMax;
    (pass ? this.#passes : this.#fails).push(value);
    // A failure wins over a pass at a higher load: the boundary is below the lowest failure.
    this.infeasibleMin = this.#fails.length > 0 ? Math.min(...this.#fails) : null;
    const below = this.#passes.filter((p) => this.infeasibleMin === null || p < this.infeasibleMin);
    this.feasibleMax = below.length > 0 ? Math.max(...below) : null;
    return odd;
  }

  #passes: number[] = [];
  #fails: number[] = [];
}

/** `n` log-spaced integer loads from `lo` to `hi` (AIPerf's grid recipes), without repeats. */
export function logGrid(lo: number, hi: number, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = Math.round(lo * (hi / lo) ** (n === 1 ? 0 : i / (n - 1)));
    if (!out.includes(v)) out.push(v);
  }
  return out;
}
