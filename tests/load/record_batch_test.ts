import assert from "node:assert/strict";
import type { RequestRecord } from "../../src/record/record.ts";
import {
  batchTransfer,
  type RecordBatch,
  RecordPacker,
  unpackRecords,
} from "../../src/load/record_batch.ts";
import { mulberry32 } from "../../src/util/rng.ts";

/** A record with every optional part set or not, as `i` and the random draws decide. */
function record(i: number, rand: () => number): RequestRecord {
  const chunks = Math.floor(rand() * 300);
  const responseNs = Array.from({ length: chunks }, (_, k) => 1e6 * (20 + k * 5) + rand());
  const failed = i % 5 === 3;
  return {
    phase: i % 7 === 0 ? "warmup" : "profiling",
    workerId: i % 3,
    sessionNum: i,
    conversationIndex: i * 11,
    conversationId: `conv-${i % 4}`,
    turnIndex: i % 2,
    requestId: crypto.randomUUID(),
    correlationId: `corr-${i}`,
    intendedStartNs: i % 4 === 1 ? null : 1_795_450_553_960_003_689n + BigInt(i * 17),
    startNs: 1_795_450_553_960_003_689n + BigInt(i * 1_000_003),
    ackNs: i % 6 === 5 ? null : 3_242_865.5 + i,
    endNs: 5_164_979.25 + i,
    responseNs,
    responseReasoning: i % 8 === 2 ? Uint8Array.from(responseNs, (_, k) => k % 2) : null,
    outputText: "word ".repeat(i % 13) + "é😀",
    reasoningText: i % 8 === 2 ? "thinking" : "",
    usage: i % 3 === 0
      ? null
      : i % 3 === 1
      ? { promptTokens: 5 + i, completionTokens: chunks, totalTokens: 5 + i + chunks }
      : {
        promptTokens: 1,
        completionTokens: 2,
        totalTokens: 3,
        reasoningTokens: 4,
        promptCacheReadTokens: 5,
        promptCacheWriteTokens: 6,
        promptCacheMissTokens: 0,
      },
    httpStatus: i % 9 === 4 ? null : failed ? 500 : 200,
    error: failed ? { code: 500, type: "HTTPError", message: `boom ${i}` } : null,
    cancelled: i % 10 === 9,
    ...(i % 5 === 2 ? { urlIndex: i % 3 } : {}),
    ...(i % 6 === 1
      ? { media: { images: i % 4 + 1, videoId: `video_${i}`, videoInferenceS: i / 2 } }
      : {}),
  };
}

/** The record as the main thread compares it: response times and flags as plain arrays. */
function plain(r: RequestRecord): unknown {
  return {
    ...r,
    responseNs: Array.from(r.responseNs),
    responseReasoning: r.responseReasoning === null
      ? null
      : Array.from(r.responseReasoning as ArrayLike<number | boolean>, Number),
  };
}

Deno.test("records packed in a Worker come back field for field, across several batches", () => {
  const rand = mulberry32(7);
  // A small first buffer: the packer has to grow it, and size later ones from earlier batches.
  const packer = new RecordPacker(16);
  const sent: RequestRecord[] = [];
  const received: RequestRecord[] = [];
  for (let i = 0; i < 200; i++) {
    const r = record(i, rand);
    sent.push(structuredClone(r));
    packer.add(r);
    if (packer.count === 32 || i === 199) {
      const batch = packer.take();
      assert.equal(packer.count, 0);
      // As postMessage does: the buffers move to the other side.
      const moved: RecordBatch = structuredClone(batch, { transfer: batchTransfer(batch) });
      assert.equal(batch.nums.length, 0, "the numbers were transferred, not copied");
      received.push(...unpackRecords(moved));
    }
  }
  assert.equal(received.length, sent.length);
  for (let i = 0; i < sent.length; i++) assert.deepEqual(plain(received[i]), plain(sent[i]));
  // Response times are views into the batch's buffer, not copies.
  assert.ok(received[1].responseNs instanceof Float64Array);
  assert.ok(received.some((r) => r.error !== null && r.responseReasoning === null));
  assert.ok(received.some((r) => r.responseReasoning !== null));
});

Deno.test("an empty batch unpacks to no records", () => {
  const batch = new RecordPacker().take();
  assert.equal(batch.count, 0);
  assert.deepEqual(unpackRecords(batch), []);
});
