import assert from "node:assert/strict";
import { join } from "node:path";
import { recordLine, RecordWriter } from "../../src/export/record_writer.ts";
import { computeRecordMetrics } from "../../src/metrics/record_metrics.ts";
import { record, wordTokenizer } from "../metrics/_records.ts";
import { REFERENCE } from "../_reference.ts";

const REF = join(REFERENCE, "aiperf", "qwen_concurrency1", "profile_export.jsonl");
const ctx = { inputTokens: 100, tokenizer: wordTokenizer, streaming: true };

const OK = record({
  sessionNum: 7,
  requestId: "fd78b108",
  correlationId: "66c73ffd",
  conversationId: "conv-3",
  turnIndex: 2,
  workerId: 4,
  startNs: 1_762_551_534_797_067_827n,
  intendedStartNs: 1_762_551_534_797_000_001n,
  ackNs: 10_190_613,
  endNs: 3_644_287_149,
  responseNs: [31_742_934, 49_610_941, 3_644_260_102],
  responseReasoning: [false, false, false],
  outputText: "a b c d",
});
const FAILED = record({
  startNs: 1_762_551_534_797_067_999n,
  ackNs: null,
  endNs: 1_500.4,
  error: { code: 0, type: "ConnectionError", message: 'refused "quoted"\n' },
  cancelled: false,
});

Deno.test("recordLine: AIPerf's per-request shape with exact epoch ns", async () => {
  const ref = JSON.parse((await Deno.readTextFile(REF)).split("\n")[0]);
  const line = recordLine(OK, computeRecordMetrics(OK, ctx));
  const doc = JSON.parse(line);
  assert.deepEqual(Object.keys(doc), ["metadata", "metrics", "error"]);

  // Same metadata keys as AIPerf's, in its order.
  const refKeys = Object.keys(ref.metadata);
  assert.deepEqual(Object.keys(doc.metadata).filter((k) => k !== "intended_start_ns"), refKeys);
  assert.equal(doc.metadata.cancellation_time_ns, null);

  // Epoch ns are exact integers in the text (a double would round them).
  assert.match(line, /"request_start_ns":1762551534797067827,/);
  assert.match(line, /"request_ack_ns":1762551534807258440,/);
  assert.match(line, /"request_end_ns":1762551538441354976,/);
  assert.match(line, /"intended_start_ns":1762551534797000001[,}]/);
  assert.equal(doc.metadata.session_num, 7);
  assert.equal(doc.metadata.x_request_id, "fd78b108");
  assert.equal(doc.metadata.x_correlation_id, "66c73ffd");
  assert.equal(doc.metadata.conversation_id, "conv-3");
  assert.equal(doc.metadata.turn_index, 2);
  assert.equal(doc.metadata.worker_id, "worker_4");
  assert.equal(doc.metadata.benchmark_phase, "profiling");
  assert.equal(doc.metadata.was_cancelled, false);
  assert.equal(doc.error, null);

  // Metrics in display units, like the reference.
  for (
    const tag of [
      "request_latency",
      "time_to_first_token",
      "time_to_second_token",
      "output_sequence_length",
    ]
  ) {
    assert.equal(doc.metrics[tag].unit, ref.metrics[tag].unit, tag);
  }
  assert.deepEqual(doc.metrics.time_to_first_token, { value: 31.742934, unit: "ms" });
  assert.deepEqual(doc.metrics.request_latency, { value: 3644.260102, unit: "ms" });
  assert.deepEqual(doc.metrics.output_sequence_length, { value: 4, unit: "tokens" });
  assert.deepEqual(doc.metrics.inter_chunk_latency.value, [17.868007, 3594.649161]);
});

Deno.test("recordLine: a failed request", () => {
  const line = recordLine(FAILED, computeRecordMetrics(FAILED, ctx));
  const doc = JSON.parse(line);
  assert.deepEqual(doc.error, { code: 0, type: "ConnectionError", message: 'refused "quoted"\n' });
  assert.equal(doc.metadata.request_ack_ns, null);
  assert.match(line, /"request_end_ns":1762551534797069499,/); // 1500.4 ns rounds to 1500
  assert.ok(!("intended_start_ns" in doc.metadata));
  assert.deepEqual(doc.metrics, { error_isl: { value: 100, unit: "tokens" } });
});

Deno.test("RecordWriter: lines reach the disk while the run goes on, and on close", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "nested", "run", "profile_export.jsonl");
  try {
    const w = await RecordWriter.open(path, { flushMs: 20 });
    w.write(OK, computeRecordMetrics(OK, ctx));
    // Without close, the timer writes the line within its interval.
    let text = "";
    for (let i = 0; i < 50 && text === ""; i++) {
      await new Promise((r) => setTimeout(r, 20));
      text = await Deno.readTextFile(path);
    }
    assert.equal(text.split("\n").filter(Boolean).length, 1);

    w.write(FAILED, computeRecordMetrics(FAILED, ctx));
    w.writeLine('{"x":1}');
    assert.equal(w.lines, 3);
    w.close();
    text = await Deno.readTextFile(path);
    assert.ok(text.endsWith("\n"));
    const lines = text.trimEnd().split("\n");
    assert.equal(lines.length, 3);
    for (const l of lines) JSON.parse(l);
    assert.throws(() => w.writeLine("{}"), /closed/);
    w.close(); // closing twice is harmless
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RecordWriter: a full buffer is written at once", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "profile_export.jsonl");
  try {
    const w = await RecordWriter.open(path, { flushMs: 60_000, maxBufferBytes: 100 });
    w.writeLine("x".repeat(150));
    assert.equal((await Deno.readTextFile(path)).length, 151);
    w.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RecordWriter: lines of any length and script reach the file whole and in order", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "profile_export.jsonl");
  try {
    const w = await RecordWriter.open(path, { flushMs: 60_000, maxBufferBytes: 64 });
    const lines = Array.from(
      { length: 60 },
      (_, i) => `{"i":${i},"t":"${["a", "é", "😀", "語"][i % 4].repeat((i * 7) % 40)}"}`,
    );
    lines.splice(30, 0, "x".repeat(500));
    for (const l of lines) w.writeLine(l);
    w.close();
    assert.equal(await Deno.readTextFile(path), lines.join("\n") + "\n");
    assert.equal(w.lines, lines.length);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
