/** The raw export, outputs.json and the export names of --profile-export-prefix. */

import assert from "node:assert/strict";
import { exportNames, outputEntry, rawLine } from "../../src/export/raw_export.ts";
import type { RequestRecord } from "../../src/record/record.ts";

const RECORD: RequestRecord = {
  phase: "profiling",
  workerId: 1,
  sessionNum: 7,
  conversationIndex: 0,
  conversationId: "c0",
  turnIndex: 0,
  requestId: "r-1",
  correlationId: "x-1",
  intendedStartNs: null,
  startNs: 1_000_000_000n,
  ackNs: 2_000_000,
  endNs: 9_000_000,
  responseNs: [3_000_000, 5_000_000],
  responseReasoning: null,
  outputText: "Hello there",
  reasoningText: "",
  usage: { promptTokens: 3, completionTokens: 2 },
  httpStatus: 200,
  error: null,
  cancelled: false,
};

Deno.test("--profile-export-prefix names every export as AIPerf does", () => {
  assert.deepEqual(exportNames("foo"), {
    json: "foo.json",
    csv: "foo.csv",
    records: "foo.jsonl",
    raw: "foo_raw.jsonl",
    timeslices: "foo_timeslices",
  });
  assert.equal(exportNames("foo.json").csv, "foo.csv");
  assert.equal(exportNames("run.1.jsonl").raw, "run.1_raw.jsonl");
  assert.equal(exportNames().records, "profile_export.jsonl");
  assert.equal(exportNames().json, "profile_export_aiperf.json");
});

Deno.test("a raw line holds the body sent and the answer read, with the secrets redacted", () => {
  const body = JSON.stringify({
    model: "m",
    messages: [{ role: "user", content: "sk-TOPSECRET1" }],
  });
  const line = rawLine(RECORD, body, ["sk-TOPSECRET1"]);
  assert.equal(line.includes("sk-TOPSECRET1"), false);
  const doc = JSON.parse(line);
  assert.equal(doc.metadata.x_request_id, "r-1");
  assert.equal(doc.metadata.request_end_ns, "1009000000");
  assert.equal(doc.payload.model, "m");
  assert.equal(doc.status, 200);
  assert.deepEqual(doc.response_ns, [3_000_000, 5_000_000]);
  assert.equal(doc.response.text, "Hello there");
  assert.deepEqual(doc.response.usage, { promptTokens: 3, completionTokens: 2 });
  assert.equal(doc.error, null);
});

Deno.test("an outputs.json entry holds the answer text and the request's latency", () => {
  const e = outputEntry({ ...RECORD, error: { code: 500, type: "HTTPError", message: "boom" } });
  assert.equal(e.output_text, "Hello there");
  assert.equal(e.x_request_id, "r-1");
  assert.deepEqual(e.metrics, {
    request_latency: { value: 9, unit: "ms" },
    time_to_first_token: { value: 3, unit: "ms" },
  });
  assert.deepEqual(e.error, { code: 500, type: "HTTPError", message: "boom" });
});
