/**
 * `--ui dashboard` on a terminal: a full-screen view of the run — live TTFT, ITL and throughput,
 * progress, errors and the Workers — redrawn on a fixed cadence from the run's snapshot
 * (`RunState`), which is rebuilt off the measurement path; drawing never waits on a request.
 */

import type { LiveSnapshot } from "../api/types.ts";

const ENTER = "\x1b[?1049h\x1b[?25l";
const LEAVE = "\x1b[?25h\x1b[?1049l";
const HOME = "\x1b[H\x1b[2J";

function fmt(n: number | undefined | null, digits = 1): string {
  return typeof n === "number" && Number.isFinite(n) ? n.toFixed(digits) : "-";
}

/** The dashboard's text for one snapshot (plain lines; the caller clears the screen). */
export function dashboardText(s: LiveSnapshot, phase: string, elapsedS: number): string {
  const p = s.progress[phase as keyof LiveSnapshot["progress"]] ?? s.progress.profiling;
  const m = s.metrics as Record<string, Record<string, number | undefined> | undefined>;
  const row = (label: string, tag: string, unit: string) => {
    const x = m[tag];
    return `  ${label.padEnd(26)} avg ${fmt(x?.avg).padStart(9)}  p50 ${
      fmt(x?.p50).padStart(9)
    }  p99 ${fmt(x?.p99).padStart(9)}  ${unit}`;
  };
  const lines = [
    `reprise | ${s.info.model} | ${s.info.endpoint_type}${
      s.info.streaming ? " (streaming)" : ""
    } | ${phase} | ${elapsedS.toFixed(1)} s`,
    "",
    "Progress",
    `  sent ${p.sent}  completed ${p.completed}  errors ${p.errors}  cancelled ${p.cancelled}  in flight ${p.in_flight}`,
    "",
    "Live metrics",
    row("Time to first token", "time_to_first_token", "ms"),
    row("Inter-token latency", "inter_token_latency", "ms"),
    row("Request latency", "request_latency", "ms"),
    `  ${"Output token throughput".padEnd(26)} ${
      fmt(m.output_token_throughput?.avg)
    } tokens/s   Request throughput ${fmt(m.request_throughput?.avg, 2)} req/s`,
    "",
    "Workers",
  ];
  for (const [name, w] of Object.entries(s.workers)) {
    lines.push(
      `  ${name.padEnd(10)} ${
        w.state.padEnd(9)
      } requests ${w.requests}  errors ${w.errors}  in flight ${w.in_flight}`,
    );
  }
  lines.push("", `updated ${s.updatedAt}   Ctrl+C stops the run`);
  return lines.join("\n") + "\n";
}

/**
 * Starts the full-screen view on the terminal's alternate screen; the returned function stops it
 * and gives the terminal back as it was.
 */
export function startDashboard(
  write: (text: string) => void,
  source: () => { snapshot: LiveSnapshot; phase: string } | null,
  intervalMs = 500,
): () => void {
  const started = performance.now();
  write(ENTER);
  const draw = () => {
    const s = source();
    if (s) write(HOME + dashboardText(s.snapshot, s.phase, (performance.now() - started) / 1000));
  };
  draw();
  const timer = setInterval(draw, intervalMs);
  return () => {
    clearInterval(timer);
    write(LEAVE);
  };
}
