/**
 * A streamed answer body: pre-built event text released on a token schedule. Events due at the
 * same moment leave as one chunk (all at once when the inter-token latency is 0), and the stream
 * is pull-driven, so a slow reader holds back the writer instead of filling memory.
 */

import { sleepUntil } from "./schedule.ts";

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
 * closing) ends the body early.
 */
export function timedStream(
  script: StreamScript,
  times: Float64Array,
  truncate: boolean,
  signal?: AbortSignal,
): ReadableStream<Uint8Array> {
  const limit = truncate ? Math.min(script.count, Math.max(1, script.count >> 1)) : script.count;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  const finish = () => signal?.removeEventListener("abort", onAbort);
  let k = 0;
  let headSent = false;

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
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
        controller.enqueue(encoder.encode(text));
        return;
      }
      if (!truncate) text += script.tail;
      if (text !== "") controller.enqueue(encoder.encode(text));
      finish();
      controller.close();
    },
    cancel() {
      stop.abort();
      finish();
    },
  });
}

/** A body that fails before its first byte, so the server closes the connection mid-answer. */
export function failingBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.error(new Error("mock server dropped the connection"));
    },
  });
}
