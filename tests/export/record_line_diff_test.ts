import assert from "node:assert/strict";
import { join } from "node:path";
import { recordLine, RecordWriter } from "../../src/export/record_writer.ts";
import { MAX_NUMBER_BYTES, wholeNumbers, writeNumbers } from "../../src/export/json_digits.ts";
import type { RequestRecord } from "../../src/record/record.ts";
import {
  metricDef,
  RECORD_DEFS,
  type RecordMetrics,
  recordValues,
  toDisplay,
} from "../../src/metrics/definitions.ts";
import { setPlainPaths } from "../../src/util/fast_paths.ts";
import { plainRecordLine } from "../../src/export/record_line_plain.ts";
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
  if (rec.urlIndex !== undefined) meta.push(`"url_index":${rec.urlIndex}`);
  if (rec.shard !== undefined) meta.push(`"shard_index":${rec.shard}`);
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

Deno.test("plainRecordLine: the writer's line for every varied case, in table order", () => {
  for (const c of variedCases()) {
    const m = computeRecordMetrics(c.rec, c.ctx);
    const inOrder = Object.fromEntries(
      RECORD_DEFS.filter((d) => d.tag in m).map((d) => [d.tag, m[d.tag]]),
    );
    assert.equal(plainRecordLine(c.rec, recordValues(m)), recordLine(c.rec, inOrder), c.name);
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

Deno.test("writeNumbers: whole numbers as JSON.stringify writes them divided, across buffer ends", () => {
  const values: number[] = [
    0,
    -0,
    1,
    -1,
    9,
    10,
    999_999,
    1_000_000,
    1_000_001,
    1_234_567,
    20_000,
    123_456,
    100_000,
    2_147_483_647,
    -2_147_483_647,
    -5_000_000,
    10_000_000,
    1_000_000_000,
  ];
  // Integers of every digit count, and random ones, as arrival gaps in ns are.
  for (let p = 1; p < 2 ** 31; p *= 3) values.push(p, p + 1, -p, (p * 7) % 2_000_000_000);
  let x = 12345;
  for (let i = 0; i < 2000; i++) {
    x = (x * 1103515245 + 12345) % 2_147_483_648;
    values.push(x % [10, 1000, 100_000, 5_000_000, 2_147_483_647][i % 5]);
  }
  const dec = new TextDecoder();
  for (const divisor of [1e6, 1]) {
    assert.ok(wholeNumbers(values, divisor));
    const want = JSON.stringify(values.map((v) => v / divisor));
    for (const size of [24, 64, 1000, 1 << 16]) {
      const buf = new Uint8Array(size);
      let got = "";
      const room = (at: number) => {
        if (at + MAX_NUMBER_BYTES <= buf.length) return at;
        got += dec.decode(buf.subarray(0, at));
        return 0;
      };
      const end = writeNumbers(buf, 0, values, divisor, room);
      got += dec.decode(buf.subarray(0, end));
      assert.equal(got, want, `divisor ${divisor}, buffer ${size}`);
    }
    const empty = new Uint8Array(30);
    assert.equal(
      dec.decode(empty.subarray(0, writeNumbers(empty, 0, [], divisor, (a) => a))),
      "[]",
    );
  }
});

Deno.test("wholeNumbers: not for fractions, non-finite values, |v| >= 2^31 or other divisors", () => {
  assert.ok(wholeNumbers([], 1e6));
  assert.ok(wholeNumbers([1, -0, 2_147_483_647], 1));
  for (const odd of [0.5, NaN, Infinity, -Infinity, 2 ** 31, -(2 ** 31), 1e21, 5e-324]) {
    assert.ok(!wholeNumbers([1, odd, 2], 1e6), String(odd));
  }
  assert.ok(!wholeNumbers([1, 2], 1e3));
  assert.ok(!wholeNumbers([1, 2], 1e9));
});

Deno.test("RecordWriter.write: the bytes of recordLine, whatever the buffer's size", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const [c] = variedCases();
    const lines: [RequestRecord, RecordMetrics][] = variedCases().map((v) => [
      v.rec,
      computeRecordMetrics(v.rec, v.ctx),
    ]);
    const gaps = Array.from({ length: 600 }, (_, i) => (i * 7919) % 3_000_000);
    lines.push(
      [c.rec, { inter_chunk_latency: gaps, request_latency: 1e9 + 0.5 }],
      [c.rec, { inter_chunk_latency: [NaN, -0, 1e-7, 123_456_789_012.5] }],
      [c.rec, { inter_chunk_latency: gaps.map((g) => g + 0.25) }],
      [c.rec, { inter_chunk_latency: [...gaps, 2 ** 31] }],
      [c.rec, { inter_chunk_latency: [], output_token_count: [3, 4] }],
      [{ ...c.rec, requestId: "é😀語".repeat(50) }, computeRecordMetrics(c.rec, c.ctx)],
    );
    // Metadata written byte by byte where it is plain ASCII, and through JSON.stringify where not.
    const m = computeRecordMetrics(c.rec, c.ctx);
    const WHOLE: RecordMetrics = {
      request_latency: 51_930_240,
      time_to_first_token: 0,
      inter_chunk_latency: [0, 1, 999_999, 1_000_000, 41_000, 2 ** 31 - 1],
      output_token_count: 16,
      e2e_output_token_throughput: 308.10564326296196,
    };
    for (
      const over of [
        { requestId: 'a"b', correlationId: "a\\b", conversationId: "tab\there" },
        { requestId: "\u0000", correlationId: "\u001f", conversationId: "\u007f" },
        { requestId: "é", correlationId: "~ !", conversationId: "\u2028" },
        // One string at a time that must be escaped, the others plain.
        { correlationId: "a\\b" },
        { conversationId: 'say "hi"' },
        { requestId: "line\nbreak" },
        { conversationId: "\u007f" },
        { conversationId: "x".repeat(700), correlationId: "" },
        { sessionNum: 2 ** 31, turnIndex: -3, workerId: 2_147_483_647 },
        { sessionNum: 1.5, turnIndex: -(2 ** 31), workerId: -0 },
        { ackNs: null, intendedStartNs: null, cancelled: true, phase: "warmup" as const },
        { urlIndex: 0 },
        { urlIndex: 12, intendedStartNs: null },
        { shard: 0 },
        { urlIndex: 3, shard: 15 },
        { error: { code: 502, type: "HTTPError", message: 'bad "gateway" é\n' } },
        // Epoch ns: carries and borrows across whole seconds, starts outside 0..2^63, offsets
        // rounded or too large for the digit-by-digit path, the intended start equal or not.
        { startNs: 999_999_999n, ackNs: 1, endNs: 1_000_000_001.5, intendedStartNs: 999_999_999n },
        { startNs: 1_000_000_000n, ackNs: -1, endNs: -1_000_000_000, cancelled: true },
        { startNs: 0n, ackNs: 0.4, endNs: 999_999_999.5, intendedStartNs: 5n },
        { startNs: 5n, ackNs: -5, endNs: -6, intendedStartNs: 5n },
        { startNs: 2n ** 63n - 1n, ackNs: -(2 ** 40), endNs: 0, intendedStartNs: -(2n ** 70n) },
        { startNs: 2n ** 63n, ackNs: 1, endNs: 2, intendedStartNs: 2n ** 63n },
        { startNs: -10n, ackNs: 3, endNs: 30, cancelled: true, intendedStartNs: -10n },
        { startNs: 1_795_759_552_964_700_180n, ackNs: 2 ** 52, endNs: -(2 ** 53) },
        { startNs: 1_795_759_552_964_700_180n, ackNs: 35_300_819.5, endNs: 64_061_917 },
      ] satisfies Partial<RequestRecord>[]
    ) {
      lines.push([{ ...c.rec, ...over }, m]);
      // And with whole numbers only, as most lines have: written by the writer's fast path.
      lines.push([{ ...c.rec, ...over }, WHOLE]);
    }
    // Scalars written digit by digit when they are whole numbers of a unit, else as JSON does.
    const scalars = [0, -0, 1, -1, 999_999, 1_000_000, 1_234_567, 2 ** 31 - 1, -(2 ** 31)];
    scalars.push(2 ** 31, 0.5, -2.25, 1e21, 5e-324, 0.1 + 0.2, NaN, Infinity, -Infinity);
    for (const v of scalars) {
      lines.push([c.rec, { request_latency: v, output_token_count: v, inter_token_latency: v }]);
    }
    const want = lines.map(([r, m]) => recordLine(r, m) + "\n").join("");
    // By position, the record metrics come in table order, and no other tag.
    const inTableOrder = (m: RecordMetrics): RecordMetrics =>
      Object.fromEntries(RECORD_DEFS.filter((d) => d.tag in m).map((d) => [d.tag, m[d.tag]]));
    const wantValues = lines.map(([r, m]) => recordLine(r, inTableOrder(m)) + "\n").join("");
    assert.notEqual(wantValues, want, "some lines list their metrics out of table order");
    for (const size of [52, 100, 4096, 1 << 16]) {
      const path = join(dir, `records_${size}.jsonl`);
      const w = await RecordWriter.open(path, { flushMs: 60_000, maxBufferBytes: size });
      for (const [r, m] of lines) w.write(r, m);
      w.close();
      assert.equal(await Deno.readTextFile(path), want, `buffer ${size}`);
      const byValues = await RecordWriter.open(path, { flushMs: 60_000, maxBufferBytes: size });
      for (const [r, m] of lines) byValues.writeValues(r, recordValues(m));
      byValues.close();
      assert.equal(await Deno.readTextFile(path), wantValues, `by values, buffer ${size}`);
      // The plain path (`--plain-paths record-writer`): each line an object, JSON.stringify'd.
      setPlainPaths(["record-writer"]);
      try {
        const plain = await RecordWriter.open(path, { flushMs: 60_000, maxBufferBytes: size });
        for (const [r, m] of lines) plain.writeValues(r, recordValues(m));
        plain.close();
      } finally {
        setPlainPaths([]);
      }
      assert.equal(await Deno.readTextFile(path), wantValues, `plain path, buffer ${size}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
