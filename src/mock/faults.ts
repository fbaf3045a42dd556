/** Which injected fault, if any, a request gets. */

/** The faults the mock can inject. */
export type Fault = "error" | "drop" | "truncate" | null;

/** Fault rates, each 0..1. */
export interface FaultRates {
  errorRate: number;
  dropRate: number;
  truncateRate: number;
}

/**
 * Draws one number and maps it onto consecutive ranges [error | drop | truncate | none], so each
 * fault has exactly its rate (when the rates sum to at most 1) and a rate of 1 makes it certain.
 */
export function decideFault(rates: FaultRates, random: () => number): Fault {
  if (rates.errorRate <= 0 && rates.dropRate <= 0 && rates.truncateRate <= 0) return null;
  const u = random();
  if (u < rates.errorRate) return "error";
  if (u < rates.errorRate + rates.dropRate) return "drop";
  if (u < rates.errorRate + rates.dropRate + rates.truncateRate) return "truncate";
  return null;
}
