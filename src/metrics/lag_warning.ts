/** The warning that the client, not the server, limited the load: its own send lag was high. */

import type { Summary } from "./summary.ts";

/** p99 `schedule_lag` (ms) above which the run is called client-limited. */
export const SCHEDULE_LAG_WARN_MS = 10;

/**
 * A warning line when the p99 of `schedule_lag` (actual minus intended send time) exceeds
 * `thresholdMs`; empty when the client kept to its schedule or the run had no schedule.
 */
export function scheduleLagWarnings(
  summary: Summary,
  thresholdMs = SCHEDULE_LAG_WARN_MS,
): string[] {
  const lag = summary.metrics.find((m) => m.tag === "schedule_lag");
  const p99 = lag?.p99;
  if (typeof p99 !== "number" || !(p99 > thresholdMs)) return [];
  return [
    `warning: schedule lag p99 is ${p99.toFixed(1)} ms (over ${thresholdMs} ms): the client, not ` +
    `the server, limited the load (a full --concurrency cap or busy Workers delayed sends); ` +
    `latencies after a late send understate what the schedule would have met`,
  ];
}
