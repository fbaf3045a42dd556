/**
 * The main thread's warm-up records: made like a Worker's, for `Results.warmUp` to measure before
 * the run, so that the run's first records, which arrive all at once, are measured by compiled
 * code (see `warm.ts` for the Workers' side).
 */

import { BATCH_SIZE, RecordPacker, unpackRecords } from "./record_batch.ts";
import type { RequestRecord } from "../record/record.ts";
import { tokensText } from "../tokenizer/words.ts";

/** Records the main thread warms up with (`warmRecords`, `Results.warmUp`). */
export const MAIN_WARM_RECORDS = 512;

/**
 * Records of `count` answers to the conversation at `conversationIndex`, `events` timed events
 * each (the first 50 ms after the start, then every 5 ms), as the main thread gets them from a
 * Worker: packed in batches, then unpacked, a batch at a time.
 */
export function* warmRecords(
  count: number,
  events: number,
  conversationIndex: number,
  conversationId: string,
): Generator<RequestRecord> {
  const packer = new RecordPacker();
  const outputText = tokensText(0, events);
  const startNs = BigInt(Date.now()) * 1_000_000n;
  const responseNs = new Float64Array(events);
  for (let i = 0; i < count; i++) {
    // A few microseconds apart from one record to the next, so that no column holds one value.
    for (let k = 0; k < events; k++) responseNs[k] = 50e6 + 5e6 * k + 1000 * (i % 97);
    const at = startNs + BigInt(i) * 1_000_000n;
    packer.add({
      phase: "profiling",
      workerId: 0,
      sessionNum: i,
      conversationIndex,
      conversationId,
      turnIndex: 0,
      requestId: crypto.randomUUID(),
      correlationId: conversationId,
      intendedStartNs: at,
      startNs: at,
      ackNs: 1e6,
      endNs: responseNs[events - 1] + 1e5,
      responseNs,
      responseReasoning: null,
      outputText,
      reasoningText: "",
      usage: { promptTokens: 5, completionTokens: events, totalTokens: 5 + events },
      httpStatus: 200,
      error: null,
      cancelled: false,
    });
    if (packer.count === BATCH_SIZE || i === count - 1) yield* unpackRecords(packer.take());
  }
}
