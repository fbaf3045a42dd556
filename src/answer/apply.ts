/**
 * What each response read adds to the result: its text and reasoning, stamped with its arrival,
 * its usage and its end marker; and what the answer as a whole must have been.
 */

import type { Endpoint, Parsed } from "../endpoints/types.ts";
import type { MediaAnswer, Usage } from "../record/record.ts";
import { truncate } from "../endpoints/server_message.ts";
import { errorText } from "../transport/wire.ts";
import { BAD_ANSWER, excerpt } from "./failure.ts";
import type { OpenResult } from "./result.ts";
import type { TextCollector } from "./text_collector.ts";

/** Merges a new usage report into the running one; a missing field never erases a known one. */
function mergeUsage(cur: Usage | null, next: Usage): Usage {
  if (cur === null) return { ...next };
  for (const key in next) {
    const k = key as keyof Usage;
    if (next[k] !== undefined) cur[k] = next[k];
  }
  return cur;
}

/** Merges what a response says of the media into the running account: images add up, the rest is the latest. */
export function mergeMedia(cur: MediaAnswer | null, next: MediaAnswer): MediaAnswer {
  if (cur === null) return { ...next };
  const images = (cur.images ?? 0) + (next.images ?? 0);
  Object.assign(cur, next);
  if (images > 0) cur.images = images;
  return cur;
}

/** What the reading saw beyond the result's own fields. */
export interface ReadState {
  /** The endpoint's end marker arrived. */
  done: boolean;
  /** A readable answer that is not tokens arrived. */
  answered: boolean;
}

/**
 * Adds a response's text and reasoning, stamped `at`; a response with neither is no response.
 * With `texts`, output text is collected there instead of grown event by event.
 */
export function addResponse(
  r: OpenResult,
  at: number,
  text: string | undefined,
  reasoning: string | undefined,
  texts: TextCollector | null,
): void {
  const hasText = text !== undefined && text.length > 0;
  const hasReasoning = reasoning !== undefined && reasoning.length > 0;
  if (!hasText && !hasReasoning) return;
  if (hasText) {
    if (texts !== null) texts.add(text);
    else r.outputText += text;
  }
  if (hasReasoning) r.reasoningText += reasoning;
  stampResponse(r, at, !hasText);
}

/** Records that a response arrived at `at`, carrying reasoning only or text. */
export function stampResponse(r: OpenResult, at: number, reasoningOnly: boolean): void {
  if (reasoningOnly && r.responseReasoning === null) {
    // The first reasoning-only response: every earlier one carried text.
    r.responseReasoning = new Array<boolean>(r.times.length).fill(false);
  }
  r.times.push(at);
  r.responseReasoning?.push(reasoningOnly);
}

/**
 * Records one parsed response stamped `at`; returns false when reading must stop. With `texts`,
 * output text is collected there (joined once by the caller) instead of grown event by event.
 */
export function apply(
  r: OpenResult,
  p: Parsed,
  at: number,
  state: ReadState,
  texts: TextCollector | null = null,
): boolean {
  if (p.error) {
    r.error = {
      code: p.error.code ?? BAD_ANSWER,
      type: "SSEError",
      message: truncate(p.error.message),
    };
    return false;
  }
  addResponse(r, at, p.text, p.reasoning, texts);
  if (p.usage) r.usage = mergeUsage(r.usage, p.usage);
  if (p.media) r.media = mergeMedia(r.media, p.media);
  if (p.done) state.done = true;
  if (p.answered) state.answered = true;
  return true;
}

/** After a successful read: an answer without text is a response only for non-token endpoints. */
export function finishAnswer(r: OpenResult, state: ReadState, endpoint: Endpoint): void {
  if (r.error === null && r.times.length === 0) {
    if (state.answered || endpoint.producesTokens === false) {
      // Embeddings and rankings: a readable answer is the response.
      r.times.push(r.endPerf);
    } else {
      r.error = {
        code: BAD_ANSWER,
        type: "EmptyResponse",
        message: "the answer carried no text and no reasoning",
      };
    }
  }
}

/** A stream that ended cleanly but without its end marker was cut short. */
export function streamEnded(r: OpenResult, state: ReadState, endpoint: Endpoint): void {
  if (endpoint.expectsDoneMarker && !state.done) {
    r.error = {
      code: BAD_ANSWER,
      type: "StreamTruncated",
      message: "the stream ended before its end marker",
    };
  }
}

/** Reads a whole (non-SSE) answer body; `r.endPerf` must already be set. */
export function applyBody(r: OpenResult, state: ReadState, endpoint: Endpoint, text: string): void {
  let p: Parsed;
  try {
    p = endpoint.parseBody ? endpoint.parseBody(text) : endpoint.parseResponse(JSON.parse(text));
  } catch (e) {
    r.error = {
      code: BAD_ANSWER,
      type: "InvalidResponse",
      message: `unreadable answer (${errorText(e)}): ${excerpt(text)}`,
    };
    return;
  }
  if (p.error) {
    r.error = {
      code: p.error.code ?? BAD_ANSWER,
      type: "HTTPError",
      message: truncate(p.error.message),
    };
    return;
  }
  apply(r, p, r.endPerf, state);
}
