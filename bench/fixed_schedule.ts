/**
 * Fixed-schedule replay precision: a trace of N single-turn conversations timestamped 1000/rate
 * ms apart (default 100 req/s) is replayed through the real Worker pool against the built-in mock
 * (zero delay), and the send lag (actual − recorded send time) is reported: p50, p90, p99, max.
 *
 *   deno run -A bench/fixed_schedule.ts [--rate 100] [--count 1000] [--workers 2]
 *
 * Not run by the tests (it measures speed).
 */

import { parseArgs } from "node:util";
import { startMockServer } from "../src/mock/server.ts";
import { PhaseRunner } from "../src/load/phase_runner.ts";
import { type LoadConfig, planPhases } from "../src/plan/phases.ts";
import type { PlannedConversation } from "../src/plan/types.ts";
import { WorkerPool } from "../src/load/pool.ts";
import type { RequestRecord } from "../src/record/record.ts";

const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "100" },
    count: { type: "string", default: "1000" },
    workers: { type: "string", default: "2" },
  },
});
const rate = Number(values.rate);
const count = Number(values.count);
const workers = Number(values.workers);

const body = JSON.stringify({
  model: "m",
  messages: [{ role: "user", content: "hi" }],
  stream: true,
});
// Recorded times as a trace has them: arbitrary origin, auto-offset to the first.
const conversations: PlannedConversation[] = Array.from({ length: count }, (_, i) => ({
  sessionId: `s${i}`,
  bodies: [body],
  timestampsMs: [1_700_000 + (i * 1000) / rate],
}));

const server = await startMockServer({ outputTokens: 8 });
const pool = await WorkerPool.start(workers, conversations);
const [spec] = planPhases({
  config: {
    concurrency: 1,
    fixedSchedule: true,
    fixedScheduleAutoOffset: true,
    arrivalPattern: "poisson",
    arrivalSmoothness: 1,
    benchmarkGracePeriod: 30,
    requestCancellationRate: 0,
    requestCancellationDelay: 0,
    sessionDelayRatio: 1,
  } as LoadConfig,
  given: new Set(["fixedSchedule"]),
  conversations,
  base: {
    url: `${server.url}/v1/chat/completions`,
    headers: { "Content-Type": "application/json" },
    endpointType: "chat",
    streaming: true,
    timeoutMs: 30_000,
    sampling: "sequential",
    seed: 1,
  },
  workers,
});
const records: RequestRecord[] = [];
await new PhaseRunner(pool, spec).run((rs) => records.push(...rs));
pool.close();
await server.close();

const lagMs = records.map((r) => Number(r.startNs - r.intendedStartNs!) / 1e6).sort((a, b) =>
  a - b
);
const q = (p: number) => lagMs[Math.min(lagMs.length - 1, Math.ceil((p / 100) * lagMs.length) - 1)];
const errors = records.filter((r) => r.error).length;
console.log(
  `fixed schedule, ${records.length} requests at ${rate} req/s on ${workers} Workers, ${errors} errors\n` +
    `send lag ms: p50 ${q(50).toFixed(3)}  p90 ${q(90).toFixed(3)}  p99 ${q(99).toFixed(3)}  ` +
    `max ${lagMs[lagMs.length - 1].toFixed(3)}`,
);
