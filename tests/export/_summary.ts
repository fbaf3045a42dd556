/** A realistic streamed run, aggregated, shared by the export tests. */

import { MetricsAggregator } from "../../src/metrics/aggregator.ts";
import { computeRecordMetrics } from "../../src/metrics/record_metrics.ts";
import type { RequestRecord } from "../../src/record/record.ts";
import { record, wordTokenizer } from "../metrics/_records.ts";

/** Start of the first request (epoch ns, beyond 2^53 on purpose). */
export const T0 = 1_762_551_534_797_067_827n;

/** `n` streamed requests (and failures when `errors`), aggregated. */
export function streamedRun(
  n = 20,
  errors = 0,
): { agg: MetricsAggregator; records: RequestRecord[] } {
  const agg = new MetricsAggregator();
  const records: RequestRecord[] = [];
  for (let i = 0; i < n + errors; i++) {
    const chunks = 3 + (i % 4);
    const rec = record({
      sessionNum: i,
      requestId: `req-${i}`,
      startNs: T0 + BigInt(i) * 250_000_000n,
      responseNs: Array.from({ length: chunks }, (_, k) => 30_000_000 + k * 18_000_000 + i * 1000),
      responseReasoning: Array(chunks).fill(false),
      outputText: "w ".repeat(chunks * 2),
      endNs: 30_000_000 + chunks * 18_000_000,
      error: i >= n ? { code: 503, type: "HTTPError", message: "Service Unavailable" } : null,
    });
    records.push(rec);
    agg.add(
      rec,
      computeRecordMetrics(rec, { inputTokens: 100, tokenizer: wordTokenizer, streaming: true }),
    );
  }
  return { agg, records };
}
