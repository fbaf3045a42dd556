/** Failed requests grouped by what failed: AIPerf's `error_summary`. */

import type { RecordError, RequestRecord } from "../record/record.ts";

/** One group of identical errors. */
export interface ErrorSummaryEntry {
  error_details: { code: number; type: string; message: string };
  count: number;
}

/** Distinct groups kept before further messages are folded into one group per type and code. */
const MAX_GROUPS = 1000;

/** Counts errors incrementally, grouped by type, code and message. */
export class ErrorCounter {
  #groups = new Map<string, ErrorSummaryEntry>();

  /** Counts one error. */
  add(err: RecordError): void {
    let key = JSON.stringify([err.type, err.code, err.message]);
    let message = err.message;
    if (!this.#groups.has(key) && this.#groups.size >= MAX_GROUPS) {
      // Messages carrying ids would otherwise grow the summary without bound.
      message = "(other messages)";
      key = JSON.stringify([err.type, err.code, message]);
    }
    const g = this.#groups.get(key);
    if (g) g.count++;
    else {
      this.#groups.set(key, {
        error_details: { code: err.code, type: err.type, message },
        count: 1,
      });
    }
  }

  /** Total errors counted. */
  get total(): number {
    let n = 0;
    for (const g of this.#groups.values()) n += g.count;
    return n;
  }

  /** The groups, most frequent first (ties in first-seen order), as copies. */
  entries(): ErrorSummaryEntry[] {
    return [...this.#groups.values()]
      .map((g) => ({ error_details: { ...g.error_details }, count: g.count }))
      .sort((a, b) => b.count - a.count);
  }
}

/** The error summary of a list of records (records without an error are skipped). */
export function errorSummary(records: Iterable<RequestRecord>): ErrorSummaryEntry[] {
  const c = new ErrorCounter();
  for (const r of records) if (r.error) c.add(r.error);
  return c.entries();
}
