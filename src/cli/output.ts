/**
 * What a run prints where, for people and for scripts: stdout carries the result (the table, or
 * the summary JSON with `--output-format json`) and nothing else; notes and progress go to stderr;
 * `--quiet` keeps only errors.
 */

import type { Io } from "./io.ts";

/** The settings that shape output. */
export interface OutputSettings {
  outputFormat: "table" | "json";
  quiet: boolean;
  ui: "progress" | "simple" | "none";
}

/** The progress display to use: none when quiet. */
export function progressMode(s: OutputSettings): OutputSettings["ui"] {
  return s.quiet ? "none" : s.ui;
}

/** What goes to stdout at the end of a run. */
export function resultText(s: OutputSettings, summary: { table: string; json: string }): string {
  if (s.outputFormat === "json") {
    return summary.json.endsWith("\n") ? summary.json : `${summary.json}\n`;
  }
  return s.quiet ? "" : summary.table;
}

/** Whether a stderr text is an error, the only thing `--quiet` still shows. */
function isError(text: string): boolean {
  return /^\s*error\b/i.test(text);
}

/** `io` with `--quiet` applied: stderr passes only errors (warnings and notes are dropped). */
export function outputIo(io: Io, s: Pick<OutputSettings, "quiet">): Io {
  if (!s.quiet) return io;
  return { ...io, stderr: (text) => isError(text) ? io.stderr(text) : undefined };
}
