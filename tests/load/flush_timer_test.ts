/** When a Worker's batch of records leaves, short of filling. */
import assert from "node:assert/strict";
import { FlushTimer } from "../../src/load/flush_timer.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A timer whose flushes are counted and timed; it reads `waiting` (how many wait) and `since`
 * (since when) each time, or learns nothing of the wait with `known: false`.
 */
function counted(opts: { flushMs: number; holdMs: number; known?: boolean }) {
  const state = { waiting: 0, since: performance.now(), flushes: [] as number[] };
  const timer: FlushTimer = new FlushTimer(
    () => {
      timer.cancel();
      state.flushes.push(performance.now());
    },
    () => opts.known === false ? undefined : { count: state.waiting, since: state.since },
    opts,
  );
  return { timer, state };
}

/** Waits until `done` or `limitMs`; returns the time waited. */
async function until(done: () => boolean, limitMs: number): Promise<number> {
  const t0 = performance.now();
  while (!done() && performance.now() - t0 < limitMs) await sleep(5);
  return performance.now() - t0;
}

Deno.test("FlushTimer: with no request waiting, a batch leaves once, flushMs after its first record", async () => {
  const { timer, state } = counted({ flushMs: 20, holdMs: 1000 });
  const first = performance.now();
  timer.added();
  timer.added();
  await sleep(5);
  timer.added();
  await until(() => state.flushes.length > 0, 2000);
  await sleep(60);
  assert.equal(state.flushes.length, 1);
  assert.ok(state.flushes[0] - first >= 19, `left ${state.flushes[0] - first} ms after`);
});

Deno.test("FlushTimer: while requests wait for first bytes the batch stays, and leaves once none does", async () => {
  const { timer, state } = counted({ flushMs: 10, holdMs: 5000 });
  state.waiting = 3;
  state.since = performance.now();
  timer.added();
  await sleep(80);
  assert.equal(state.flushes.length, 0);
  state.waiting = 0;
  const t0 = performance.now();
  await until(() => state.flushes.length > 0, 2000);
  assert.equal(state.flushes.length, 1);
  // Seen at the next look, every flushMs: well before holdMs.
  assert.ok(state.flushes[0] - t0 < 1000, `left ${state.flushes[0] - t0} ms after`);
});

Deno.test("FlushTimer: requests waiting all along hold a batch holdMs at the most", async () => {
  const { timer, state } = counted({ flushMs: 10, holdMs: 60 });
  state.waiting = 1;
  const first = state.since = performance.now();
  timer.added();
  await until(() => state.flushes.length > 0, 3000);
  assert.equal(state.flushes.length, 1);
  const held = state.flushes[0] - first;
  assert.ok(held >= 45 && held < 3000, `held ${held} ms`);
});

Deno.test("FlushTimer: requests that have waited holdMs already hold no batch", async () => {
  const { timer, state } = counted({ flushMs: 20, holdMs: 5000 });
  state.waiting = 5;
  // Some request has waited all along, for longer than a batch may be held: no quiet moment to
  // wait for. (Held, it would leave 5 s after its first record.)
  state.since = performance.now() - 6000;
  const first = performance.now();
  timer.added();
  await until(() => state.flushes.length > 0, 6000);
  assert.equal(state.flushes.length, 1);
  const held = state.flushes[0] - first;
  // At a look, every flushMs; far before the 5 s it would be held.
  assert.ok(held >= 19 && held < 2500, `held ${held} ms`);
});

Deno.test("FlushTimer: an unknown wait holds no batch", async () => {
  const { timer, state } = counted({ flushMs: 10, holdMs: 5000, known: false });
  // Were it known, these would hold the batch 5 s.
  state.waiting = 3;
  state.since = performance.now();
  timer.added();
  await until(() => state.flushes.length > 0, 3000);
  assert.equal(state.flushes.length, 1);
});

Deno.test("FlushTimer: a cancelled timer sends nothing; the next record starts it again", async () => {
  const { timer, state } = counted({ flushMs: 10, holdMs: 1000 });
  timer.added();
  timer.cancel();
  await sleep(50);
  assert.equal(state.flushes.length, 0);
  timer.added();
  await until(() => state.flushes.length > 0, 2000);
  assert.equal(state.flushes.length, 1);
});
