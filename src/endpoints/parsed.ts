/**
 * What reading an answer yields: an SSE event, a stream's scratch state and what one response
 * contributes to a record. Apart from the Endpoint interface so that the chunk templates can
 * name it without importing the interface that names them.
 */

import type { MediaAnswer, Usage } from "../record/record.ts";

/** One Server-Sent Event, fields as the SSE spec defines them. */
export interface SseEvent {
  /** The `event:` field, or "" when absent (the spec's default type is "message"). */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
  id?: string;
  /** Comment lines (`: …`) seen inside this event, joined with "\n"; servers put error details there. */
  comment?: string;
}

/** Per-request scratch space for stateful stream readers; the transport makes one per request. */
export type StreamState = Record<string, unknown>;

/** What one response (a JSON body, or one SSE event) contributes to a record. */
export interface Parsed {
  text?: string;
  reasoning?: string;
  usage?: Usage;
  /** The server reported a failure inside a 200 answer (an error event, `response.failed`). */
  error?: { code?: number; message: string };
  /** The stream is complete (`[DONE]`, `response.completed`, `message_stop`). */
  done?: boolean;
  /** A readable answer that is not tokens (embeddings, rankings): it counts as a response. */
  answered?: boolean;
  /** Images generated, a video job's state: merged into the request's `MediaAnswer`. */
  media?: MediaAnswer;
}
