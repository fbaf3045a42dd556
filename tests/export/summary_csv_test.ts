import assert from "node:assert/strict";
import { join } from "node:path";
import { summaryCsv, writeSummaryCsv } from "../../src/export/summary_csv.ts";
import { streamedRun } from "./_summary.ts";
import { REFERENCE } from "../_reference.ts";

const REF = join(REFERENCE, "aiperf", "examples_run1", "profile_export_aiperf.csv");

function tables(text: string): string[][] {
  return text.replace(/\r\n$/, "").split("\r\n\r\n").map((t) => t.split("\r\n"));
}

Deno.test("summaryCsv: AIPerf's two-table layout", async () => {
  const ref = tables(await Deno.readTextFile(REF));
  const ours = tables(summaryCsv(streamedRun(10, 1).agg.summary()));
  assert.equal(ours.length, 2);
  assert.equal(ref.length, 2);

  // Distribution table: the current AIPerf columns, which include the older reference's.
  const header = ours[0][0].split(",");
  assert.deepEqual(header, [
    "Metric",
    "avg",
    "min",
    "max",
    "sum",
    "p1",
    "p5",
    "p10",
    "p25",
    "p50",
    "p75",
    "p90",
    "p95",
    "p99",
    "std",
  ]);
  for (const col of ref[0][0].split(",")) assert.ok(header.includes(col), `column ${col}`);
  for (const row of ours[0].slice(1)) assert.equal(row.split(",").length, header.length, row);

  // Scalar table.
  assert.equal(ours[1][0], "Metric,Value");
  assert.equal(ref[1][0], "Metric,Value");

  // Names as AIPerf writes them, in the same table as in the reference.
  const names = (t: string[]) => t.slice(1).map((r) => r.split(",")[0]);
  for (
    const [i, name] of [
      [0, "Request Latency (ms)"],
      [0, "Time to First Token (ms)"],
      [0, "Inter Token Latency (ms)"],
      [0, "Output Sequence Length (tokens)"],
      [1, "Request Count"],
      [1, "Error Request Count"],
      [1, "Benchmark Duration (sec)"],
      [1, "Request Throughput (requests/sec)"],
      [1, "Total Output Sequence Length (tokens)"],
    ] as const
  ) {
    assert.ok(names(ref[i]).includes(name), `reference has ${name}`);
    assert.ok(names(ours[i]).includes(name), `ours has ${name} in table ${i}`);
  }

  // Rows sorted by tag, values with two decimals.
  const dist = names(ours[0]);
  assert.ok(dist.indexOf("Input Sequence Length (tokens)") < dist.indexOf("Request Latency (ms)"));
  assert.match(ours[1].find((r) => r.startsWith("Request Count,"))!, /^Request Count,10\.00$/);
  assert.match(ours[0].find((r) => r.startsWith("Adjusted Request Latency"))!, /,inf,/);
});

Deno.test("summaryCsv: only scalars, or nothing", () => {
  const csv = summaryCsv({
    metrics: [{
      tag: "request_count",
      header: "Request Count",
      unit: "requests",
      kind: "aggregate",
      flags: [],
      avg: 0,
    }],
  });
  assert.equal(csv, "Metric,Value\r\nRequest Count,0.00\r\n");
  assert.equal(summaryCsv({ metrics: [] }), "");
});

Deno.test("writeSummaryCsv creates the directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "run", "profile_export_aiperf.csv");
    await writeSummaryCsv(path, streamedRun(2).agg.summary());
    assert.ok((await Deno.readTextFile(path)).startsWith("Metric,avg,"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
