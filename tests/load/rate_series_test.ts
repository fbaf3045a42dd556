import assert from "node:assert/strict";
import { ArrivalCursor } from "../../src/load/arrivals.ts";
import type { RateSchedule } from "../../src/plan/types.ts";

function series(points: [number, number][]): RateSchedule {
  return {
    rate: points[points.length - 1][1],
    series: points,
    pattern: "constant",
    smoothness: 1,
    rampMs: 0,
    seed: 1,
  };
}

Deno.test("a flat series sends at its rate, and the last rate holds after the last point", () => {
  const c = new ArrivalCursor(series([[0, 10], [1000, 10]]));
  assert.equal(c.timeOf(0), 0);
  assert.ok(Math.abs(c.timeOf(5) - 500) < 1e-9);
  assert.ok(Math.abs(c.timeOf(10) - 1000) < 1e-9);
  assert.ok(Math.abs(c.timeOf(30) - 3000) < 1e-9);
});

Deno.test("a step series: 10/s for a second, then 40/s", () => {
  const c = new ArrivalCursor(series([[0, 10], [1000, 10], [1001, 40]]));
  const times = Array.from({ length: 51 }, (_, i) => c.timeOf(i));
  assert.equal(times.filter((t) => t < 1000).length, 10);
  assert.equal(times.filter((t) => t >= 1000 && t < 2000).length, 40);
});

Deno.test("a linear ramp from 0 to 20/s over 2 s: arrivals follow the integral t^2 * 5", () => {
  const c = new ArrivalCursor(series([[0, 0], [2000, 20]]));
  // 5 t^2 arrivals by t seconds: the 5th at 1 s, the 20th at 2 s, then 20/s.
  assert.ok(Math.abs(c.timeOf(5) - 1000) < 1e-6);
  assert.ok(Math.abs(c.timeOf(20) - 2000) < 1e-6);
  assert.ok(Math.abs(c.timeOf(40) - 3000) < 1e-6);
});
