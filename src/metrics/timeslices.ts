/**
 * `--slice-duration`: the run cut into equal windows of request start time, each with its own
 * metrics, so a drift over the run (warm-up, degradation) shows.
 */

import type { RequestRecord } from "../record/record.ts";
import { type AggregatorOptions, MetricsAggregator } from "./aggregator.ts";
import { type RecordMetrics, type RecordValues, recordValues } from "./definitions.ts";
import type { Summary } from "./summary.ts";

/** One window's metrics. */
export interface Timeslice {
  /** 0 for the first window that holds a request. */
  index: number;
  /** Window start and end (epoch ns). */
  startNs: bigint;
  endNs: bigint;
  summary: Summary;
}

/** Sorts each finished request into the window of its start time. */
export class TimesliceCollector {
  #sliceNs: bigint;
  #opts: AggregatorOptions;
  #origin: bigint | null = null;
  #slices = new Map<number, MetricsAggregator>();

  /** `sliceSeconds` is the window length; `opts` are passed to each window's aggregator. */
  constructor(sliceSeconds: number, opts: AggregatorOptions = {}) {
    if (!(sliceSeconds > 0)) throw new Error("slice duration must be positive");
    this.#sliceNs = BigInt(Math.max(1, Math.round(sliceSeconds * 1e9)));
    this.#opts = opts;
  }

  /** Adds one finished request and its record metrics. */
  add(rec: RequestRecord, metrics: RecordMetrics): void {
    this.addValues(rec, recordValues(metrics));
  }

  /** Adds one finished request with its record metrics by position (`computeRecordValues`). */
  addValues(rec: RequestRecord, values: RecordValues): void {
    // Records arrive out of order: windows count from the first one seen, and may go negative.
    this.#origin ??= rec.startNs;
    const d = rec.startNs - this.#origin;
    const q = d / this.#sliceNs;
    const key = Number(d < 0n && d % this.#sliceNs !== 0n ? q - 1n : q);
    let agg = this.#slices.get(key);
    if (!agg) this.#slices.set(key, agg = new MetricsAggregator(this.#opts));
    agg.addValues(rec, values);
  }

  /** The windows holding requests, in time order, numbered from 0. */
  slices(): Timeslice[] {
    const origin = this.#origin;
    if (origin === null) return [];
    const keys = [...this.#slices.keys()].sort((a, b) => a - b);
    const first = keys[0];
    return keys.map((k) => {
      const startNs = origin + BigInt(k) * this.#sliceNs;
      return {
        index: k - first,
        startNs,
        endNs: startNs + this.#sliceNs,
        summary: this.#slices.get(k)!.summary(),
      };
    });
  }
}
