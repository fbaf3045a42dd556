/**
 * Log levels, as AIPerf names them: what stderr shows. CRITICAL and ERROR: errors only; WARNING:
 * also warnings; INFO (the default): also notes and the progress display; DEBUG (`-v`): also the
 * plan, the Workers' clocks and the flags that have no effect; TRACE (`-vv`): also one line per
 * finished request. stdout (the result) is not a log and is never filtered by the level.
 */

import type { RequestRecord } from "../record/record.ts";

/** AIPerf's log levels, most detailed first. */
export type LogLevel = "TRACE" | "DEBUG" | "INFO" | "WARNING" | "ERROR" | "CRITICAL";

const RANK: Record<LogLevel, number> = {
  TRACE: 0,
  DEBUG: 1,
  INFO: 2,
  WARNING: 3,
  ERROR: 4,
  CRITICAL: 5,
};

/** The options that set the level. */
export interface LogSettings {
  logLevel?: LogLevel;
  verbose?: boolean;
  extraVerbose?: boolean;
}

/** The run's level: `--log-level`, else TRACE with `-vv`, DEBUG with `-v`, else INFO. */
export function logLevelOf(s: LogSettings): LogLevel {
  if (s.logLevel) return s.logLevel;
  if (s.extraVerbose) return "TRACE";
  if (s.verbose) return "DEBUG";
  return "INFO";
}

/** Whether lines of level `line` are shown at the run's level. */
export function shows(s: LogSettings, line: LogLevel): boolean {
  return RANK[line] >= RANK[logLevelOf(s)];
}

/** The TRACE line of one finished request. */
export function traceLine(r: RequestRecord): string {
  const ms = (r.endNs / 1e6).toFixed(1);
  const ttft = r.responseNs.length > 0
    ? `, first answer ${(r.responseNs[0] / 1e6).toFixed(1)} ms`
    : "";
  const outcome = r.error ? `${r.error.type} ${r.error.code}` : `${r.httpStatus ?? "-"}`;
  return `trace: ${r.phase} request ${r.requestId} (conversation ${r.conversationId} turn ${r.turnIndex}, Worker ${r.workerId}): ${outcome} in ${ms} ms${ttft}\n`;
}
