/**
 * The error texts of an answer that went wrong: the transport's failure kinds, HTTP errors, error
 * events and unreadable answers, each as the record's error.
 */

import type { SseEvent } from "../endpoints/types.ts";
import type { RecordError } from "../record/record.ts";
import { serverMessage, truncate } from "../endpoints/server_message.ts";
import type { WireFailure } from "../transport/wire.ts";
import type { OpenResult } from "./result.ts";

/** Longest excerpt of an unreadable answer quoted in an error message. */
const EXCERPT = 120;

/** Pseudo-status for a bad answer inside a 2xx (error event, invalid or truncated stream). */
export const BAD_ANSWER = 502;

/** What was being read when a request failed: a stream, a whole body, or nothing yet. */
export type ReadPhase = "stream" | "body" | null;

/**
 * The record's error for a transport's failure `why` (said in `message`), while `phase` was
 * being read; an aborted request is marked cancelled in `r`.
 */
export function wireError(
  why: WireFailure,
  message: string,
  timeoutMs: number,
  r: OpenResult,
  phase: ReadPhase,
): RecordError {
  if (why === "aborted") {
    r.cancelled = true;
    return { code: 499, type: "Cancelled", message: "request cancelled" };
  }
  if (why === "timeout") {
    return { code: 408, type: "Timeout", message: `no complete answer within ${timeoutMs} ms` };
  }
  if (why === "protocol") return { code: BAD_ANSWER, type: "InvalidResponse", message };
  if (phase === "stream") {
    // What was read is kept; the answer just stops short.
    return {
      code: BAD_ANSWER,
      type: "StreamTruncated",
      message: `connection lost mid-stream: ${message}`,
    };
  }
  if (phase === "body") {
    return {
      code: 0,
      type: "ConnectionError",
      message: `connection lost while reading the body: ${message}`,
    };
  }
  return { code: 0, type: "ConnectionError", message };
}

/** Records an HTTP error status with the server's message. */
export function httpError(r: OpenResult, status: number, statusText: string, body: string): void {
  const msg = serverMessage(body) || statusText || `HTTP ${status}`;
  r.error = { code: status, type: "HTTPError", message: msg };
}

/** A short quote of an unreadable answer, for its error message. */
export function excerpt(text: string): string {
  return JSON.stringify(truncate(text, EXCERPT));
}

/** The message of an `event: error`: the data's JSON message, the data text, or the comment. */
export function sseErrorMessage(event: SseEvent): string {
  if (event.data) return serverMessage(event.data);
  if (event.comment) return truncate(event.comment);
  return "the server sent an error event";
}
