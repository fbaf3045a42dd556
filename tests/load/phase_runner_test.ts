import assert from "node:assert/strict";
import { PhaseRunner } from "../../src/load/phase_runner.ts";
import type { WorkerPool } from "../../src/load/pool.ts";
import type { PhaseSpec } from "../../src/plan/phases.ts";

/** A pool that runs a phase until told to end it, and counts the stops and cancels. */
function fakePool() {
  let endPhase = () => {};
  const calls = { stops: 0, aborts: 0 };
  const pool = {
    stopIssuing: () => void calls.stops++,
    abortInFlight: () => void calls.aborts++,
    setConcurrencyCap: () => {},
    runPhase: () => new Promise<void>((resolve) => endPhase = resolve),
  };
  return { pool: pool as unknown as WorkerPool, calls, end: () => endPhase() };
}

const spec = (graceMs: number): PhaseSpec => ({
  plan: { phase: "profiling" } as PhaseSpec["plan"],
  slots: 1,
  graceMs,
  armAfter: 0,
});

Deno.test("a stop gives requests in flight the grace period, then cancels them", async () => {
  const { pool, calls, end } = fakePool();
  const runner = new PhaseRunner(pool, spec(30));
  const running = runner.run(() => {});
  runner.stop();
  runner.stop();
  assert.equal(calls.stops, 2);
  await new Promise((r) => setTimeout(r, 300));
  // One grace timer, however many stops.
  assert.equal(calls.aborts, 1);
  end();
  assert.equal(await running, "done");
});

Deno.test("a stop after the phase ended (a signal between phases) arms no grace timer", async () => {
  const { pool, calls, end } = fakePool();
  const runner = new PhaseRunner(pool, spec(20));
  const running = runner.run(() => {});
  end();
  await running;
  runner.stop();
  assert.equal(calls.stops, 1);
  // 10x the grace period: a timer left behind would have cancelled (and kept an in-process run
  // alive for the whole grace period).
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(calls.aborts, 0);
});
