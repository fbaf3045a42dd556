/**
 * The plain path of `profile_export.jsonl` (`--plain-paths record-writer`): a record's line built
 * as an object and written by `JSON.stringify`, which the writer's byte-level path must match
 * byte for byte.
 */

import type { RequestRecord } from "../record/record.ts";
import { displayDivisor, RECORD_DEFS, type RecordValues } from "../metrics/definitions.ts";

/** `JSON.rawJSON` (V8 has it; TypeScript's lib does not yet): exact digits of an epoch ns. */
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/** Epoch ns of an offset from the request start, as exact integer digits in the JSON. */
function epoch(start: bigint, offsetNs: number): unknown {
  return rawJSON((start + BigInt(Math.round(offsetNs))).toString());
}

/** The line metrics by position in RECORD_DEFS: tag, unit and divisor; null for one left out. */
const LINE_DEFS = RECORD_DEFS.map((def) =>
  def.flags.includes("no_individual_records")
    ? null
    : { tag: def.tag, unit: def.displayUnit, divisor: displayDivisor(def) }
);

/**
 * One line of `profile_export.jsonl` (without the newline), from the request's metrics by
 * position (`computeRecordValues`): the object AIPerf writes, stringified.
 */
export function plainRecordLine(rec: RequestRecord, values: RecordValues): string {
  const metadata: Record<string, unknown> = {
    session_num: rec.sessionNum,
    x_request_id: rec.requestId,
    x_correlation_id: rec.correlationId,
    conversation_id: rec.conversationId,
    turn_index: rec.turnIndex,
    request_start_ns: epoch(rec.startNs, 0),
    request_ack_ns: rec.ackNs === null ? null : epoch(rec.startNs, rec.ackNs),
    request_end_ns: epoch(rec.startNs, rec.endNs),
    worker_id: `worker_${rec.workerId}`,
    // One process measures every record; AIPerf readers expect the field.
    record_processor_id: "record_processor_0",
    benchmark_phase: rec.phase,
    was_cancelled: rec.cancelled,
    cancellation_time_ns: rec.cancelled ? epoch(rec.startNs, rec.endNs) : null,
  };
  if (rec.intendedStartNs !== null) {
    metadata.intended_start_ns = rawJSON(rec.intendedStartNs.toString());
  }
  if (rec.urlIndex !== undefined) metadata.url_index = rec.urlIndex;
  if (rec.shard !== undefined) metadata.shard_index = rec.shard;
  const metrics: Record<string, { value: number | number[]; unit: string }> = {};
  for (let i = 0; i < LINE_DEFS.length; i++) {
    const def = LINE_DEFS[i];
    const v = values[i];
    if (def === null || v === undefined) continue;
    metrics[def.tag] = {
      value: typeof v === "number" ? v / def.divisor : v.map((x) => x / def.divisor),
      unit: def.unit,
    };
  }
  const error = rec.error === null
    ? null
    : { code: rec.error.code, type: rec.error.type, message: rec.error.message };
  return JSON.stringify({ metadata, metrics, error });
}
