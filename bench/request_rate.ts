/**
 * Delivered request rate: runs the real CLI (a subprocess) at `--request-rate` against the mock
 * server (its own process, zero delay) and measures the rate from the records' send times:
 * (n − 1) / (last send − first send). Also prints the schedule lag p50/p99/max.
 *
 *   deno run -A bench/request_rate.ts [--rate 200] [--count 2000] [--pattern constant]
 *
 * Not run by the tests (it measures speed).
 */

import { parseArgs } from "node:util";
import { join } from "node:path";

const ROOT = join(import.meta.dirname!, "..");
const MAIN = join(ROOT, "main.ts");
const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "200" },
    count: { type: "string", default: "2000" },
    pattern: { type: "string", default: "constant" },
  },
});

const port = 20000 + Math.floor(Math.random() * 20000);
const mock = new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", MAIN, "mock-server", "--port", String(port)],
  stdout: "null",
  stderr: "null",
}).spawn();
try {
  for (let i = 0; i < 100; i++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const dir = await Deno.makeTempDir();
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "profile",
      "--url",
      `127.0.0.1:${port}`,
      "--model",
      "m",
      "--input-file",
      join(ROOT, "examples/payloads.jsonl"),
      "--custom-dataset-type",
      "raw_payload",
      "--streaming",
      "--request-rate",
      values.rate!,
      "--arrival-pattern",
      values.pattern!,
      "--request-count",
      values.count!,
      "--random-seed",
      "1",
      "--artifact-dir",
      dir,
      "--ui",
      "none",
    ],
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (out.code !== 0) throw new Error(`profile exited ${out.code}`);
  const text = await Deno.readTextFile(
    join(dir, "m-openai-chat-concurrency1", "profile_export.jsonl"),
  );
  const meta = text.split("\n").filter((l) => l).map((l) => JSON.parse(l).metadata);
  // Epoch ns exceed 2^53: the digits lost in JSON numbers are far below what is measured here.
  const starts = meta.map((m) => m.request_start_ns as number).sort((a, b) => a - b);
  const rate = (starts.length - 1) / ((starts[starts.length - 1] - starts[0]) / 1e9);
  const lag = meta.map((m) => (m.request_start_ns - m.intended_start_ns) / 1e6).sort((a, b) =>
    a - b
  );
  const q = (p: number) => lag[Math.min(lag.length - 1, Math.ceil((p / 100) * lag.length) - 1)];
  console.log(
    `${starts.length} requests, target ${values.rate} req/s ${values.pattern}: delivered ` +
      `${rate.toFixed(2)} req/s; schedule lag ms p50 ${q(50).toFixed(3)} p99 ${q(99).toFixed(3)} ` +
      `max ${lag[lag.length - 1].toFixed(3)}`,
  );
  await Deno.remove(dir, { recursive: true });
} finally {
  mock.kill();
  await mock.status;
}
