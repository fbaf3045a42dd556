/** Conversions between a metric's base unit (how it is computed) and its display unit. */

import type { MetricDef } from "./metric_def.ts";

// Divisors, not factors: dividing by an exact power of ten rounds once, as AIPerf does.
const DIVISOR: Record<string, Record<string, number>> = {
  ns: { ns: 1, us: 1e3, ms: 1e6, sec: 1e9 },
};

/** What a value in a metric's base unit is divided by to give its display unit (1: the same). */
export function displayDivisor(def: MetricDef): number {
  if (def.unit === def.displayUnit) return 1;
  const d = DIVISOR[def.unit]?.[def.displayUnit];
  if (d === undefined) throw new Error(`No conversion from ${def.unit} to ${def.displayUnit}`);
  return d;
}

/** Converts a value from a metric's base unit to its display unit. */
export function toDisplay(def: MetricDef, value: number): number {
  if (def.unit === def.displayUnit) return value;
  const d = DIVISOR[def.unit]?.[def.displayUnit];
  if (d === undefined) throw new Error(`No conversion from ${def.unit} to ${def.displayUnit}`);
  return value / d;
}

/** Converts a value from a metric's display unit back to its base unit. */
export function fromDisplay(def: MetricDef, value: number): number {
  if (def.unit === def.displayUnit) return value;
  const d = DIVISOR[def.unit]?.[def.displayUnit];
  if (d === undefined) throw new Error(`No conversion from ${def.displayUnit} to ${def.unit}`);
  return value * d;
}
