import assert from "node:assert/strict";
import { computeRecordMetrics, computeRecordValues } from "../../src/metrics/record_metrics.ts";
import { RECORD_DEFS } from "../../src/metrics/definitions.ts";
import { referenceRecordMetrics, variedCases } from "./_reference.ts";

Deno.test("computeRecordMetrics: the same values, tags and tag order as the plain loop", () => {
  const cases = variedCases();
  // Twice over, in a different order the second time: results must not depend on what came before.
  for (const c of [...cases, ...cases.slice().reverse()]) {
    const got = computeRecordMetrics(c.rec, c.ctx);
    const want = referenceRecordMetrics(c.rec, c.ctx);
    assert.deepEqual(got, want, c.name);
    assert.deepEqual(Object.keys(got), Object.keys(want), c.name);
    assert.equal(JSON.stringify(got), JSON.stringify(want), c.name);
  }
});

Deno.test("computeRecordMetrics: a result is a plain object of its own", () => {
  const [c] = variedCases();
  const a = computeRecordMetrics(c.rec, c.ctx);
  const b = computeRecordMetrics(c.rec, c.ctx);
  assert.equal(Object.getPrototypeOf(a), Object.prototype);
  assert.notEqual(a, b);
  a.request_latency = -1;
  delete a.time_to_first_token;
  assert.deepEqual(b, referenceRecordMetrics(c.rec, c.ctx));
});

Deno.test("computeRecordValues: the plain loop's values, each at its metric's position", () => {
  const cases = variedCases();
  for (const c of [...cases, ...cases.slice().reverse()]) {
    const got = computeRecordValues(c.rec, c.ctx);
    const want = referenceRecordMetrics(c.rec, c.ctx);
    assert.equal(got.length, RECORD_DEFS.length, c.name);
    RECORD_DEFS.forEach((def, i) =>
      assert.deepEqual(got[i], want[def.tag], `${c.name}: ${def.tag}`)
    );
    // Every value the plain loop gave is there: no tag outside the record metrics.
    assert.equal(got.filter((v) => v !== undefined).length, Object.keys(want).length, c.name);
  }
});
