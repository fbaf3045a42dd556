/**
 * What a run prints where, for people and for scripts: stdout carries the result (the table, or
 * the summary JSON with `--output-format json`) and nothing else; notes and progress go to stderr,
 * as many as the log level shows (`log.ts`); `--quiet` keeps only errors and warnings.
 */

import type { Io } from "./io.ts";
import { type LogSettings, shows } from "./log.ts";

/** The settings that shape output. */
export interface OutputSettings extends LogSettings {
  outputFormat: "table" | "json";
  quiet: boolean;
  ui: "dashboard" | "simple" | "none";
}

/** The live display to use: none when quiet or when the log level hides notes. */
export function progressMode(s: OutputSettings): OutputSettings["ui"] {
  return s.quiet || !shows(s, "INFO") ? "none" : s.ui;
}

/** What goes to stdout at the end of a run. */
export function resultText(s: OutputSettings, summary: { table: string; json: string }): string {
  if (s.outputFormat === "json") {
    return summary.json.endsWith("\n") ? summary.json : `${summary.json}\n`;
  }
  return s.quiet ? "" : summary.table;
}

/** The level of a stderr text: ERROR, WARNING, or INFO for anything else. */
function levelOfText(text: string): "ERROR" | "WARNING" | "INFO" {
  if (/^\s*error\b/i.test(text)) return "ERROR";
  if (/^\s*warning\b/i.test(text)) return "WARNING";
  return "INFO";
}

/**
 * `io` with `--quiet` and the log level applied to stderr: quiet passes errors only, as AIPerf's
 * does; WARNING passes errors and warnings; ERROR and CRITICAL pass errors only.
 */
export function outputIo(io: Io, s: Pick<OutputSettings, "quiet"> & LogSettings): Io {
  if (!s.quiet && shows(s, "INFO")) return io;
  return {
    ...io,
    stderr: (text) => {
      const level = levelOfText(text);
      if (level === "INFO" || (s.quiet && level !== "ERROR")) return;
      if (shows(s, level)) io.stderr(text);
    },
  };
}
