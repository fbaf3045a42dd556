/** A phase's first wave started in groups, a turn of the event loop apart (load/wave.ts). */
import assert from "node:assert/strict";
import { startGrouped, WAVE_GROUP } from "../../src/load/wave.ts";

Deno.test("first wave: slots start in groups of WAVE_GROUP, each a turn after the one before", async () => {
  let calls = 0;
  let turns = 0;
  // A timer chain counts the turns that pass while the groups start.
  let ticking = true;
  const tick = () => {
    turns++;
    if (ticking) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const count = WAVE_GROUP * 3 + 5;
  const done = startGrouped(count, () => Promise.resolve(++calls), WAVE_GROUP);
  // The first group starts at once, before anything else runs.
  assert.equal(calls, WAVE_GROUP);
  const values = await done;
  ticking = false;
  assert.equal(calls, count);
  assert.deepEqual(values, Array.from({ length: count }, (_, i) => i + 1));
  // Four groups: three waits for a later turn.
  assert.ok(turns >= 3, `${turns} turns passed`);
});

Deno.test("first wave: without groups every slot starts at once", async () => {
  let calls = 0;
  const done = startGrouped(300, () => Promise.resolve(++calls), Infinity);
  assert.equal(calls, 300);
  assert.equal((await done).length, 300);
});

Deno.test("first wave: a slot failing while later groups wait fails the wave, unhandled nowhere", async () => {
  let calls = 0;
  const done = startGrouped(
    WAVE_GROUP * 2,
    () => ++calls === 1 ? Promise.reject(new Error("slot 1 failed")) : Promise.resolve(calls),
    WAVE_GROUP,
  );
  await assert.rejects(done, /slot 1 failed/);
  // The later group was still started.
  assert.equal(calls, WAVE_GROUP * 2);
});
