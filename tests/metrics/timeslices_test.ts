import assert from "node:assert/strict";
import { computeRecordMetrics } from "../../src/metrics/record_metrics.ts";
import { TimesliceCollector } from "../../src/metrics/timeslices.ts";
import { timeslicesCsv, timeslicesJson } from "../../src/export/timeslices.ts";
import { record, wordTokenizer } from "./_records.ts";

const S = 1_762_551_534_797_067_827n;
const SEC = 1_000_000_000n;

Deno.test("timeslices: requests land in the window of their start, in time order", () => {
  const c = new TimesliceCollector(1);
  const ctx = { inputTokens: 1, tokenizer: wordTokenizer, streaming: false };
  // Out of order: the first seen is not the earliest, and windows count from it.
  for (const off of [1n, 0n, 2n * SEC + 5n, SEC / 2n, -SEC / 2n]) {
    const r = record({ startNs: S + SEC + off, endNs: 1_000_000, outputText: "a b" });
    c.add(r, computeRecordMetrics(r, ctx));
  }
  const slices = c.slices();
  assert.deepEqual(slices.map((s) => s.index), [0, 1, 3]);
  const count = (i: number) =>
    slices[i].summary.metrics.find((m) => m.tag === "request_count")?.avg;
  assert.deepEqual([count(0), count(1), count(2)], [2, 2, 1]);
  assert.equal(slices[1].endNs - slices[1].startNs, SEC);

  const doc = JSON.parse(timeslicesJson(slices, { concurrency: 1 }));
  assert.equal(doc.timeslices.length, 3);
  assert.equal(doc.timeslices[1].timeslice_index, 1);
  assert.equal(doc.timeslices[1].request_count.avg, 2);
  assert.equal(doc.timeslices[1].request_latency.unit, "ms");
  assert.deepEqual(doc.input_config, { concurrency: 1 });
  // Epoch ns written exactly.
  assert.ok(timeslicesJson(slices, {}).includes(`"start_ns": ${slices[0].startNs}`));

  const csv = timeslicesCsv(slices).split("\r\n");
  assert.equal(csv[0], "Timeslice,Metric,Unit,Stat,Value");
  assert.ok(csv.includes("1,Request Count,requests,avg,2.00"));
});
