import assert from "node:assert/strict";
import { deliverGivingWay, type GiveWay, sleepThread } from "../../src/load/give_way.ts";

/** A clock that each slice of work moves on by `workMs`; `sleeps` records each pause asked for. */
function fakeWay(slice: number, budgetMs: number, workMs: number) {
  let t = 0;
  const sleeps: number[] = [];
  const way: GiveWay = {
    slice,
    budgetMs,
    pauseMs: 0.02,
    now: () => t,
    sleep: (ms) => sleeps.push(ms),
  };
  return { way, sleeps, work: () => (t += workMs) };
}

Deno.test("deliverGivingWay: every item once, in order, a slice at a time", () => {
  const items = Array.from({ length: 21 }, (_, i) => i);
  const { way, work } = fakeWay(4, 100, 0.01);
  const got: number[][] = [];
  deliverGivingWay(items, (part) => {
    got.push(part);
    work();
  }, way);
  assert.deepEqual(got.map((p) => p.length), [4, 4, 4, 4, 4, 1]);
  assert.deepEqual(got.flat(), items);
});

Deno.test("deliverGivingWay: sleeps once each budget of work has passed, not after the last slice", () => {
  // 0.1 ms a slice, a 0.25 ms budget: the work passes it after the third slice, then after the
  // sixth; the eighth slice is the last and no sleep follows it.
  const { way, sleeps, work } = fakeWay(2, 0.25, 0.1);
  const got: number[] = [];
  const n = deliverGivingWay(Array.from({ length: 16 }, (_, i) => i), (part) => {
    got.push(...part);
    work();
  }, way);
  assert.deepEqual(n, 2);
  assert.deepEqual(sleeps, [0.02, 0.02]);
  assert.deepEqual(got.length, 16);
});

Deno.test("deliverGivingWay: a batch no larger than a slice goes whole, without reading the clock", () => {
  const items = ["a", "b", "c"];
  let reads = 0;
  const way: GiveWay = {
    slice: 8,
    budgetMs: 0,
    pauseMs: 1,
    now: () => ++reads,
    sleep: () => {
      throw new Error("slept");
    },
  };
  const got: string[][] = [];
  assert.deepEqual(deliverGivingWay(items, (part) => got.push(part), way), 0);
  assert.deepEqual(got, [items]);
  assert.deepEqual(reads, 0);
});

Deno.test("sleepThread: the thread sleeps at least about as long as asked", () => {
  const t = performance.now();
  sleepThread(5);
  const slept = performance.now() - t;
  assert.ok(slept >= 4.5, `slept ${slept} ms`);
});
