/**
 * A streamed answer body: pre-built event text released on a token schedule. Events due at the
 * same moment leave as one chunk (all at once when the inter-token latency is 0), and the stream
 * is pull-driven, so a slow reader holds back the writer instead of filling memory.
 */

import { sleepUntil } from "./schedule.ts";
import type { SentTimes } from "./timing_log.ts";

/** The events of one streamed answer, as wire text. */
export interface StreamScript {
  /** Sent as soon as the body starts, before the first token is due (may be ""). */
  head: string;
  /** Number of token events. */
  count: number;
  /** Wire text of the k-th token event (may open or close blocks around it). */
  event(k: number): string;
  /** Sent right after the last token: finish, usage and end-of-stream events. */
  tail: string;
}

const encoder = new TextEncoder();

/**
 * The body of a streamed answer. `times[k]` is when token k is due (`performance.now()` ms).
 * `truncate` ends the body after half of the tokens, without the tail. `signal` (the server
 * closing) ends the body early. `onEnd`, when given, learns once, as the body ends for whatever
 * reason, when the chunks carrying its first and last tokens were handed to the body.
 */
export function timedStream(
  script: StreamScript,
  times: Float64Array,
  truncate: boolean,
  signal?: AbortSignal,
  onEnd?: (sent: SentTimes) => void,
): ReadableStream<Uint8Array> {
  const limit = truncate ? Math.min(script.count, Math.max(1, script.count >> 1)) : script.count;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  let k = 0;
  let headSent = false;
  // When the chunks carrying tokens left (`performance.now()` ms; -1: none yet), and how many.
  let first = -1;
  let last = -1;
  let sent = 0;
  let ended = false;
  const finish = () => {
    signal?.removeEventListener("abort", onAbort);
    if (ended) return;
    ended = true;
    onEnd?.({ first: first < 0 ? null : first, last: last < 0 ? null : last, tokens: sent });
  };
  /** Stamps a chunk about to be enqueued if it carries tokens (`k` moved past `from`). */
  const stamp = (from: number) => {
    if (onEnd === undefined || k === from) return;
    const now = performance.now();
    if (first < 0) first = now;
    last = now;
    sent = k;
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const from = k;
      let text = "";
      if (!headSent) {
        headSent = true;
        text = script.head;
        // The head leaves at once; tokens due later follow in their own chunks.
        if (text !== "" && k < limit && times[k] > performance.now()) {
          controller.enqueue(encoder.encode(text));
          return;
        }
      }
      while (k < limit) {
        await sleepUntil(times[k], stop.signal);
        if (stop.signal.aborted) {
          finish();
          try {
            controller.close();
          } catch { /* the reader went away first */ }
          return;
        }
        const now = performance.now();
        while (k < limit && times[k] <= now) text += script.event(k++);
        if (text !== "") break;
      }
      if (k < limit) {
        const chunk = encoder.encode(text);
        stamp(from);
        controller.enqueue(chunk);
        return;
      }
      if (!truncate) text += script.tail;
      if (text !== "") {
        const chunk = encoder.encode(text);
        stamp(from);
        controller.enqueue(chunk);
      }
      finish();
      controller.close();
    },
    cancel() {
      stop.abort();
      finish();
    },
    // Nothing is made ahead of a read: a chunk is stamped when the server asks for it, just before
    // it writes it, not while an earlier write is still under way.
  }, { highWaterMark: 0 });
}

/** A body that fails before its first byte, so the server closes the connection mid-answer. */
export function failingBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.error(new Error("mock server dropped the connection"));
    },
  });
}
