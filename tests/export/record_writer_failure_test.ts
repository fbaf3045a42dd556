/**
 * A record writer whose file fails (a full disk) leaves the file at its last complete line, says
 * which file and why, and takes no more lines; lines that fit the buffer go out whole.
 */

import assert from "node:assert/strict";
import { ArtifactError } from "../../src/export/artifact.ts";
import { type RecordFile, recordLine, RecordWriter } from "../../src/export/record_writer.ts";
import { computeRecordMetrics } from "../../src/metrics/record_metrics.ts";
import { record, wordTokenizer } from "../metrics/_records.ts";

const PATH = "run/profile_export.jsonl";

/** An in-memory file that takes `capacity` bytes, then fails as a full disk does. */
class FullDisk implements RecordFile {
  bytes: number[] = [];
  /** The length of every write call that went through, whole or short. */
  writes: number[] = [];
  closed = false;
  constructor(readonly capacity: number) {}
  writeSync(p: Uint8Array): number {
    const room = this.capacity - this.bytes.length;
    if (room <= 0) {
      throw Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" });
    }
    const n = Math.min(room, p.length);
    for (let i = 0; i < n; i++) this.bytes.push(p[i]);
    this.writes.push(n);
    return n;
  }
  truncateSync(len = 0): void {
    this.bytes.length = Math.min(this.bytes.length, len);
  }
  close(): void {
    this.closed = true;
  }
  text(): string {
    return new TextDecoder().decode(new Uint8Array(this.bytes));
  }
}

/** Line `i`: JSON of varied length, some of it not ASCII. */
function line(i: number): string {
  return JSON.stringify({ i, pad: "x".repeat((i * 37) % 200), word: i % 5 === 0 ? "héllo" : "a" });
}

const LINES = Array.from({ length: 200 }, (_, i) => line(i));
const FULL = LINES.map((l) => l + "\n").join("");
const FULL_BYTES = new TextEncoder().encode(FULL).length;

/** The longest whole-line start of FULL within `n` bytes (FULL is ASCII but for "é"). */
function wholeLinesWithin(n: number): string {
  const bytes = new TextEncoder().encode(FULL).subarray(0, n);
  const end = bytes.lastIndexOf(10) + 1;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

Deno.test("RecordWriter on a full disk: the file ends at its last complete line, whatever the room", () => {
  for (const capacity of [0, 1, 57, 500, 1023, 4096, 7777, FULL_BYTES - 1]) {
    for (const bufferBytes of [64, 300, 1024, 64 * 1024]) {
      const file = new FullDisk(capacity);
      const told: ArtifactError[] = [];
      const w = RecordWriter.onFile(file, PATH, {
        flushMs: 60_000,
        maxBufferBytes: bufferBytes,
        onError: (e) => told.push(e),
      });
      let thrown: unknown = null;
      for (const l of LINES) {
        try {
          w.writeLine(l);
        } catch (e) {
          thrown = e;
          break;
        }
      }
      w.close(); // told through onError already: close does not throw it again
      const where = `capacity ${capacity}, buffer ${bufferBytes}`;
      assert.equal(file.text(), wholeLinesWithin(capacity), where);
      assert.ok(file.closed, where);
      assert.equal(told.length, 1, where);
      assert.ok(told[0] instanceof ArtifactError, where);
      assert.equal(told[0].kind, "write");
      assert.equal(told[0].path, PATH);
      assert.equal(told[0].message, `cannot write ${PATH}: no space left on device`);
      assert.equal(w.failure, told[0]);
      // A failure before the last line was thrown to the writer of the line that met it.
      if (thrown !== null) assert.equal(thrown, told[0], where);
    }
  }
});

Deno.test("RecordWriter: once a write failed, no more lines are taken", () => {
  const file = new FullDisk(100);
  const w = RecordWriter.onFile(file, PATH, { flushMs: 60_000, maxBufferBytes: 64 });
  assert.throws(() => LINES.forEach((l) => w.writeLine(l)), ArtifactError);
  const kept = file.text();
  assert.throws(() => w.writeLine("{}"), /cannot write run\/profile_export\.jsonl/);
  w.flush();
  w.close();
  assert.equal(file.text(), kept);
  assert.ok(kept.endsWith("\n") && kept.length <= 100);
});

Deno.test("RecordWriter: a timed write that fails is told to onError, or thrown by close", async () => {
  for (const withListener of [true, false]) {
    const file = new FullDisk(300);
    const told: ArtifactError[] = [];
    const w = RecordWriter.onFile(file, PATH, {
      flushMs: 5,
      onError: withListener ? (e) => told.push(e) : undefined,
    });
    for (const l of LINES.slice(0, 20)) w.writeLine(l);
    // Only the timer writes these lines (the buffer is far from full); a hang fails the test.
    for (let i = 0; i < 1000 && file.writes.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(file.text(), wholeLinesWithin(300));
    if (withListener) {
      assert.equal(told.length, 1);
      w.close();
    } else {
      assert.throws(() => w.close(), /no space left on device/);
    }
  }
});

Deno.test("RecordWriter: lines that fit the buffer reach the file whole, each write ends a line", () => {
  const file = new FullDisk(Infinity);
  // Lines up to ~250 bytes in a 300-byte buffer: a line begun near the end must wait.
  const w = RecordWriter.onFile(file, PATH, { flushMs: 60_000, maxBufferBytes: 300 });
  for (const l of LINES) w.writeLine(l);
  w.close();
  assert.equal(file.text(), FULL);
  assert.ok(file.writes.length > 10);
  let at = 0;
  const bytes = new Uint8Array(file.bytes);
  for (const n of file.writes) {
    at += n;
    assert.equal(bytes[at - 1], 10, `a write ended mid-line at byte ${at}`);
  }
});

Deno.test("RecordWriter: a record's line built piece by piece goes out whole when it fits", () => {
  const ctx = { inputTokens: 100, tokenizer: wordTokenizer, streaming: true };
  const recs = Array.from({ length: 60 }, (_, i) =>
    record({
      requestId: `req-${i}`,
      startNs: 1_762_551_534_797_067_827n + BigInt(i) * 1_000_000n,
      ackNs: 10_000 + i,
      endNs: 3_000_000 + i * 1000,
      responseNs: Array.from({ length: 1 + (i % 30) }, (_, k) => 20_000 + k * 1_000 + i),
      responseReasoning: Array.from({ length: 1 + (i % 30) }, () => false),
      outputText: "a b c ".repeat(1 + (i % 30)),
    }));
  const lines = recs.map((r) => recordLine(r, computeRecordMetrics(r, ctx)));
  const longest = Math.max(...lines.map((l) => l.length));
  const file = new FullDisk(Infinity);
  const w = RecordWriter.onFile(file, PATH, { flushMs: 60_000, maxBufferBytes: longest + 200 });
  for (const r of recs) w.write(r, computeRecordMetrics(r, ctx));
  w.close();
  assert.equal(file.text(), lines.map((l) => l + "\n").join(""));
  assert.ok(file.writes.length > 10);
  let at = 0;
  const bytes = new Uint8Array(file.bytes);
  for (const n of file.writes) {
    at += n;
    assert.equal(bytes[at - 1], 10, `a write ended mid-line at byte ${at}`);
  }
});
