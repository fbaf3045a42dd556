import assert from "node:assert/strict";
import { PhaseRunner } from "../../src/load/phase_runner.ts";
import type { WorkerPool } from "../../src/load/pool.ts";
import type { PhaseSpec } from "../../src/plan/phases.ts";

/** A pool that runs a phase until told to end it, and counts the stops and cancels. */
function fakePool() {
  let ended = false;
  let endPhase = () => {};
  const calls = { stops: 0, aborts: 0 };
  const pool = {
    stopIssuing: () => void calls.stops++,
    abortInFlight: () => void calls.aborts++,
    setConcurrencyCap: () => {},
    preparePhase: () => Promise.resolve(0),
    runPhase: () => new Promise<void>((resolve) => ended ? resolve() : endPhase = resolve),
  };
  const end = () => {
    ended = true;
    endPhase();
  };
  return { pool: pool as unknown as WorkerPool, calls, end };
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
  // The phase is running (its connections opened).
  await new Promise((r) => setTimeout(r, 0));
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

Deno.test("a stop while the phase's connections are opened still stops the phase", async () => {
  const { pool, calls, end } = fakePool();
  let prepared = () => {};
  (pool as unknown as { preparePhase: () => Promise<number> }).preparePhase = () =>
    new Promise<number>((resolve) => prepared = () => resolve(0));
  const runner = new PhaseRunner(pool, spec(10_000));
  const running = runner.run(() => {});
  runner.stop();
  assert.equal(calls.stops, 1);
  prepared();
  await new Promise((r) => setTimeout(r, 20));
  // Raised again once the phase's counters were reset.
  assert.equal(calls.stops, 2);
  end();
  assert.equal(await running, "done");
});
