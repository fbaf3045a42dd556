import assert from "node:assert/strict";
import { ErrorCounter, errorSummary } from "../../src/metrics/error_summary.ts";
import { record } from "./_records.ts";

Deno.test("errorSummary groups by type, code and message, most frequent first", () => {
  const e500 = { code: 500, type: "HTTPError", message: "Internal Server Error" };
  const e503 = { code: 503, type: "HTTPError", message: "Service Unavailable" };
  const reset = { code: 0, type: "ConnectionError", message: "connection reset" };
  const records = [
    record({ error: e500 }),
    record({ error: e503 }),
    record(),
    record({ error: { ...e503 } }),
    record({ error: reset }),
    record({ error: { ...e503 } }),
    record({ error: { ...e500, message: "other" } }),
  ];
  assert.deepEqual(errorSummary(records), [
    { error_details: e503, count: 3 },
    { error_details: e500, count: 1 },
    { error_details: reset, count: 1 },
    { error_details: { ...e500, message: "other" }, count: 1 },
  ]);
  assert.deepEqual(errorSummary([record()]), []);
});

Deno.test("ErrorCounter folds messages past its group limit", () => {
  const c = new ErrorCounter();
  for (let i = 0; i < 1005; i++) c.add({ code: 500, type: "HTTPError", message: `id ${i}` });
  const entries = c.entries();
  assert.equal(c.total, 1005);
  assert.equal(entries.length, 1001);
  assert.deepEqual(entries[0], {
    error_details: { code: 500, type: "HTTPError", message: "(other messages)" },
    count: 5,
  });
});
