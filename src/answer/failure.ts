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
 * The error types of a failed request, one classification for every transport; docs/errors.md
 * says what causes each and the exit code rules (`ConnectionError` alone means no connection
 * could be made: `runExitCode` reads it so).
 */
export const ErrorType = {
  /** No connection could be made (refused, unknown host, TLS handshake). */
  CONNECT: "ConnectionError",
  /** The connection was closed or reset once made, before the answer was whole. */
  RESET: "ConnectionReset",
  /** The request's timeout passed. */
  TIMEOUT: "Timeout",
  /** The server's answer was not valid HTTP, or not of the API's shape. */
  PROTOCOL: "InvalidResponse",
  /** The server answered with a status other than 2xx (a 3xx too: redirects are not followed). */
  HTTP: "HTTPError",
  /** A stream ended early: the connection was lost mid-stream, or the final events never came. */
  STREAM: "StreamTruncated",
  /** The client ran out of file descriptors, buffers or local ports: the client's fault. */
  EXHAUSTED: "ClientResourceExhausted",
  /** The caller cancelled the request (Ctrl+C, a cancelled phase). */
  CANCELLED: "Cancelled",
} as const;

/**
 * The record's error for a transport's failure `why` (said in `message`, which names no
 * connection), while `phase` was being read; an aborted request is marked cancelled in `r`.
 */
export function wireError(
  why: WireFailure,
  message: string,
  timeoutMs: number,
  r: OpenResult,
  phase: ReadPhase,
): RecordError {
  switch (why) {
    case "aborted":
      r.cancelled = true;
      return { code: 499, type: ErrorType.CANCELLED, message: "request cancelled" };
    case "timeout":
      return {
        code: 408,
        type: ErrorType.TIMEOUT,
        message: `no complete answer within ${timeoutMs} ms`,
      };
    case "protocol":
      return { code: BAD_ANSWER, type: ErrorType.PROTOCOL, message };
    case "exhausted":
      return {
        code: 0,
        type: ErrorType.EXHAUSTED,
        message: `the client ran out of resources: ${message}`,
      };
    case "connect":
      return { code: 0, type: ErrorType.CONNECT, message: `cannot connect: ${message}` };
  }
  if (phase === "stream") {
    // What was read is kept; the answer just stops short.
    return {
      code: BAD_ANSWER,
      type: ErrorType.STREAM,
      message: `connection lost mid-stream: ${message}`,
    };
  }
  return {
    code: 0,
    type: ErrorType.RESET,
    message: phase === "body"
      ? `connection lost while reading the body: ${message}`
      : `connection lost before the answer: ${message}`,
  };
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
