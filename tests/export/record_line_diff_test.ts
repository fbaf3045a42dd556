import assert from "node:assert/strict";
import { recordLine } from "../../src/export/record_writer.ts";
import type { RequestRecord } from "../../src/load/record.ts";
import { metricDef, type RecordMetrics, toDisplay } from "../../src/metrics/definitions.ts";
import { computeRecordMetrics } from "../../src/metrics/record_metrics.ts";
import { referenceRecordMetrics, variedCases } from "../metrics/_reference.ts";

function epochNs(start: bigint, offsetNs: number): string {
  return (start + BigInt(Math.round(offsetNs))).toString();
}

/** The line built as an object of display values and written by JSON.stringify. */
function referenceLine(rec: RequestRecord, metrics: RecordMetrics): string {
  const s = JSON.stringify;
  const meta = [
    `"session_num":${rec.sessionNum}`,
    `"x_request_id":${s(rec.requestId)}`,
    `"x_correlation_id":${s(rec.correlationId)}`,
    `"conversation_id":${s(rec.conversationId)}`,
    `"turn_index":${rec.turnIndex}`,
    `"request_start_ns":${rec.startNs.toString()}`,
    `"request_ack_ns":${rec.ackNs === null ? "null" : epochNs(rec.startNs, rec.ackNs)}`,
    `"request_end_ns":${epochNs(rec.startNs, rec.endNs)}`,
    `"worker_id":${s(`worker_${rec.workerId}`)}`,
    `"record_processor_id":"record_processor_0"`,
    `"benchmark_phase":${s(rec.phase)}`,
    `"was_cancelled":${rec.cancelled}`,
    `"cancellation_time_ns":${rec.cancelled ? epochNs(rec.startNs, rec.endNs) : "null"}`,
  ];
  if (rec.intendedStartNs !== null) {
    meta.push(`"intended_start_ns":${rec.intendedStartNs.toString()}`);
  }
  const out: Record<string, { value: number | number[]; unit: string }> = {};
  for (const tag in metrics) {
    const def = metricDef(tag);
    if (!def || def.flags.includes("no_individual_records")) continue;
    const v = metrics[tag];
    out[tag] = {
      value: typeof v === "number" ? toDisplay(def, v) : v.map((x) => toDisplay(def, x)),
      unit: def.displayUnit,
    };
  }
  const error = rec.error === null
    ? "null"
    : s({ code: rec.error.code, type: rec.error.type, message: rec.error.message });
  return `{"metadata":{${meta.join(",")}},"metrics":${s(out)},"error":${error}}`;
}

Deno.test("recordLine: the same text as building the object and stringifying it", () => {
  for (const c of variedCases()) {
    const m = computeRecordMetrics(c.rec, c.ctx);
    const want = referenceLine(c.rec, referenceRecordMetrics(c.rec, c.ctx));
    assert.equal(recordLine(c.rec, m), want, c.name);
    assert.equal(recordLine(c.rec, m), referenceLine(c.rec, m), c.name);
    JSON.parse(want);
  }
});

Deno.test("recordLine: metrics given in any order, with odd values and tags", () => {
  const [c] = variedCases();
  const base = computeRecordMetrics(c.rec, c.ctx);
  const odd: RecordMetrics[] = [
    {},
    Object.fromEntries(Object.entries(base).reverse()),
    { not_a_metric: 3, request_count: 5, total_osl: 9, ...base },
    {
      request_latency: NaN,
      time_to_first_token: Infinity,
      time_to_second_token: -Infinity,
      schedule_lag: -0,
      output_token_count: -0,
      input_sequence_length: 1e21,
      inter_token_latency: 5e-324,
      output_sequence_length: 0.1 + 0.2,
    },
    { inter_chunk_latency: [] },
    { inter_chunk_latency: [NaN, Infinity, -0, 1e-7, 123_456_789_012.5, 1] },
    { inter_chunk_latency: 7_000_000 },
    { request_latency: [1_000_000, 2_500_000], output_token_count: [3, 4] },
    { error_isl: 12, usage_discrepancy: 1, osl_mismatch: 0 },
  ];
  for (const m of odd) {
    assert.equal(recordLine(c.rec, m), referenceLine(c.rec, m), JSON.stringify(m));
  }
});
