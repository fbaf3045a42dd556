/**
 * The progress display on stderr. It reads the shared counters on a fixed cadence and never
 * waits on measurement: a slow terminal cannot slow the run.
 */

import type { LiveSnapshot } from "../api/types.ts";
import { Ctl } from "../load/control.ts";
import { startDashboard } from "./dashboard.ts";

/** What the display shows, read from the shared counters. */
export interface ProgressSource {
  control: Int32Array;
  /** Requests the phase will send, when known. */
  total: number | null;
  phase: string;
}

/**
 * Starts the display; the returned function stops it and clears the live line. `simple`: a live
 * line on a terminal, else a plain line every 5 s when something changed; `dashboard`: the
 * full-screen view (`dashboard.ts`, from `dashboard`) on a terminal, else as `simple`.
 */
export function startProgress(
  mode: "dashboard" | "simple" | "none",
  isTerminal: boolean,
  write: (text: string) => void,
  source: () => ProgressSource | null,
  dashboard?: () => { snapshot: LiveSnapshot; phase: string } | null,
): () => void {
  if (mode === "none") return () => {};
  if (mode === "dashboard" && isTerminal && dashboard) return startDashboard(write, dashboard);
  const live = isTerminal;
  const started = performance.now();
  let last = -1;
  const render = () => {
    const s = source();
    if (!s) return "";
    const done = Atomics.load(s.control, Ctl.COMPLETED);
    const errors = Atomics.load(s.control, Ctl.ERRORS);
    const inFlight = Atomics.load(s.control, Ctl.IN_FLIGHT);
    const secs = (performance.now() - started) / 1000;
    const rate = secs > 0 ? done / secs : 0;
    const of = s.total !== null ? `/${s.total}` : "";
    const pct = s.total ? ` ${Math.floor((100 * done) / s.total)}%` : "";
    return `${s.phase}: ${done}${of} requests${pct}, ${errors} errors, ${inFlight} in flight, ${
      rate.toFixed(1)
    } req/s, ${secs.toFixed(1)} s`;
  };
  const timer = setInterval(() => {
    const line = render();
    if (!line) return;
    if (live) write(`\r\x1b[2K${line}`);
    else {
      const s = source();
      const done = s ? Atomics.load(s.control, Ctl.COMPLETED) : 0;
      if (done !== last) write(`${line}\n`);
      last = done;
    }
  }, live ? 250 : 5000);
  return () => {
    clearInterval(timer);
    if (live) write("\r\x1b[2K");
  };
}
