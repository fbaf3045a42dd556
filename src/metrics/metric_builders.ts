/**
 * Constructors for the shapes of definition that several metric families share: run totals,
 * per-second rates, per-request percentages, and the hidden per-request flags that a run-level
 * count sums.
 */

import type { RequestRecord } from "../record/record.ts";
import {
  type MetricDef,
  type MetricFlag,
  NS_PER_S,
  type RecordContext,
  type RunValues,
  type ScalarRecordFn,
} from "./metric_def.ts";

/** Input tokens: the server's count when preferred and given, else the client's. */
export function inputTokens(rec: RequestRecord, ctx: RecordContext): number | undefined {
  const u = ctx.preferUsage === false ? undefined : rec.usage?.promptTokens;
  return u ?? ctx.inputTokens ?? undefined;
}

/** A hidden 0/1 per-request flag, summed by a run-level count. */
export function hiddenFlag(tag: string, flags: MetricFlag[], record: ScalarRecordFn): MetricDef {
  return {
    tag,
    header: tag,
    unit: "requests",
    displayUnit: "requests",
    kind: "record",
    flags: ["hidden", "no_individual_records", "no_console", ...flags],
    displayOrder: 9999,
    record,
  };
}

/** A run-level count of requests: the sum of a hidden per-request flag. */
export function countOf(
  tag: string,
  header: string,
  of: string,
  displayOrder: number,
  flags: MetricFlag[],
): MetricDef {
  return {
    tag,
    header,
    unit: "requests",
    displayUnit: "requests",
    kind: "derived",
    flags: ["no_individual_records", "no_console", ...flags],
    displayOrder,
    derive: (r) => r.sum(of),
  };
}

/** A per-request percentage, kept in files and left out of the console table. */
export function percentOf(
  tag: string,
  header: string,
  displayOrder: number,
  flags: MetricFlag[],
  record: ScalarRecordFn,
): MetricDef {
  return {
    tag,
    header,
    unit: "%",
    displayUnit: "%",
    kind: "record",
    flags: ["no_console", ...flags],
    displayOrder,
    record,
  };
}

/** A run total of tokens: the sum of a record metric over the phase. */
export function total(
  tag: string,
  header: string,
  of: string,
  displayOrder: number,
  flags: MetricFlag[] = [],
): MetricDef {
  return {
    tag,
    header,
    unit: "tokens",
    displayUnit: "tokens",
    kind: "derived",
    flags: ["no_individual_records", "no_console", ...flags],
    displayOrder,
    derive: (r) => r.sum(of),
  };
}

/** A run-level rate: `numerator` over the benchmark duration in seconds. */
export function perSecond(
  tag: string,
  header: string,
  unit: string,
  displayOrder: number,
  flags: MetricFlag[],
  numerator: (r: RunValues) => number | undefined,
): MetricDef {
  return {
    tag,
    header,
    unit,
    displayUnit: unit,
    kind: "derived",
    flags: ["larger_is_better", "no_individual_records", ...flags],
    displayOrder,
    derive: (r) => {
      const n = numerator(r);
      const d = r.value("benchmark_duration");
      return n === undefined || d === undefined || d <= 0 ? undefined : n / (d / NS_PER_S);
    },
  };
}
