import assert from "node:assert/strict";
import { renderConsoleTable } from "../../src/export/console_table.ts";
import type { Summary } from "../../src/metrics/summary.ts";
import { streamedRun } from "./_summary.ts";

const SUMMARY: Summary = {
  metrics: [
    {
      tag: "request_latency",
      header: "Request Latency",
      unit: "ms",
      kind: "record",
      flags: [],
      avg: 1234.5678,
      min: 1000,
      max: 2000.125,
      p50: 1200,
      p90: 1900,
      p99: 1990.004,
      std: 12.3456,
      count: 10,
      sum: 12345.678,
    },
    {
      tag: "output_token_throughput_per_user",
      header: "Output Token Throughput Per User",
      unit: "tokens/sec/user",
      kind: "record",
      flags: [],
      avg: 55,
      min: 50,
      max: 60,
      p50: 55,
      p90: 59,
      p99: 60,
      std: 1,
    },
    {
      tag: "request_count",
      header: "Request Count",
      unit: "requests",
      kind: "aggregate",
      flags: [],
      avg: 64,
    },
    {
      tag: "min_request_timestamp",
      header: "Minimum Request Timestamp",
      unit: "ns",
      kind: "aggregate",
      flags: ["internal"],
      avg: 1,
    },
    {
      tag: "total_isl",
      header: "Total Input Sequence Length",
      unit: "tokens",
      kind: "derived",
      flags: ["no_console"],
      avg: 1,
    },
  ],
};

Deno.test("renderConsoleTable: plain text", () => {
  const text = renderConsoleTable(SUMMARY, "reprise | LLM Metrics", { color: false });
  const lines = text.split("\n");
  assert.ok(!text.includes("\x1b["), "no escape codes without color");
  assert.ok(text.endsWith("\n"));
  assert.equal(lines[0].trim(), "reprise | LLM Metrics");
  const header = lines.find((l) => l.startsWith("┃"))!;
  assert.deepEqual(header.split("┃").map((c) => c.trim()).filter(Boolean), [
    "Metric",
    "avg",
    "min",
    "max",
    "p99",
    "p90",
    "p50",
    "std",
  ]);
  const cells = (needle: string) =>
    lines.find((l) => l.includes(needle))!.split("│").map((c) => c.trim()).filter(Boolean);
  assert.deepEqual(cells("Request Latency (ms)"), [
    "Request Latency (ms)",
    "1,234.57",
    "1,000.00",
    "2,000.13",
    "1,990.00",
    "1,900.00",
    "1,200.00",
    "12.35",
  ]);
  // Scalars fill avg only.
  assert.deepEqual(cells("Request Count"), [
    "Request Count (requests)",
    "64.00",
    "N/A",
    "N/A",
    "N/A",
    "N/A",
    "N/A",
    "N/A",
  ]);
  // A long header puts its unit on the next line.
  const i = lines.findIndex((l) => l.includes("Output Token Throughput Per User"));
  assert.ok(!lines[i].includes("(tokens/sec/user)"));
  assert.ok(lines[i + 1].includes("(tokens/sec/user)"));
  // Internal and file-only metrics stay out of the console.
  assert.ok(!text.includes("Minimum Request Timestamp"));
  assert.ok(!text.includes("Total Input Sequence Length"));
  // Every table line has the same width.
  const widths = new Set(lines.slice(1).filter(Boolean).map((l) => l.length));
  assert.equal(widths.size, 1);
});

Deno.test("renderConsoleTable: color when asked", () => {
  const text = renderConsoleTable(SUMMARY, "t", { color: true });
  assert.ok(text.includes("\x1b[36m"), "metric names in cyan");
  assert.ok(text.includes("\x1b[32m"), "values in green");
});

Deno.test("renderConsoleTable: a real run's rows in display order", () => {
  const text = renderConsoleTable(streamedRun().agg.summary(), "t");
  const order = [
    "Time to First Token",
    "Request Latency",
    "Inter Token Latency",
    "Request Throughput",
    "Request Count",
  ];
  const at = order.map((h) => text.indexOf(h));
  assert.ok(at.every((x) => x >= 0), `missing rows: ${at}`);
  assert.deepEqual([...at].sort((a, b) => a - b), at);
});
