import assert from "node:assert/strict";
import { type Cancelable, watchSignal } from "../../src/transport/signal_watch.ts";

/** A request that records whether it was cancelled. */
function request(name: string, cancelled: string[]): Cancelable {
  return { watchedAt: -1, cancel: () => cancelled.push(name) };
}

Deno.test("SignalWatch: requests removed in any order are not cancelled; the others are, once", () => {
  const ac = new AbortController();
  const cancelled: string[] = [];
  const rs = ["a", "b", "c", "d", "e"].map((n) => request(n, cancelled));
  const watch = watchSignal(ac.signal, rs[0]);
  for (const r of rs.slice(1)) assert.equal(watchSignal(ac.signal, r), watch);
  assert.equal(watch.size, 5);
  // The first, a middle one and the last: each removal moves the last one into its place.
  watch.remove(rs[0]);
  watch.remove(rs[2]);
  watch.remove(rs[4]);
  // Removing one twice, or one never added, changes nothing.
  watch.remove(rs[2]);
  watch.remove(request("x", cancelled));
  assert.equal(watch.size, 2);
  assert.deepEqual(rs.map((r) => r.watchedAt === -1), [true, false, true, false, true]);
  ac.abort();
  assert.deepEqual(cancelled.sort(), ["b", "d"]);
  assert.equal(watch.size, 0);
  assert.ok(rs.every((r) => r.watchedAt === -1));
});

Deno.test("SignalWatch: a request added again after removal is watched again", () => {
  const ac = new AbortController();
  const cancelled: string[] = [];
  const a = request("a", cancelled);
  const b = request("b", cancelled);
  const watch = watchSignal(ac.signal, a);
  watchSignal(ac.signal, b);
  watch.remove(a);
  watchSignal(ac.signal, a);
  // Added twice while watched: still once.
  watchSignal(ac.signal, a);
  assert.equal(watch.size, 2);
  ac.abort();
  assert.deepEqual(cancelled.sort(), ["a", "b"]);
});
