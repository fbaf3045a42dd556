/**
 * The fetch transport: one request through `fetch`, its answer handed to the request's sink a
 * chunk at a time, each stamped when it arrived. Fetch honours proxies; the HTTP/1.1 client
 * (http1.ts) costs several times less per streamed event.
 *
 * It behaves as the HTTP/1.1 client does (docs/errors.md): one request on the wire per call, a
 * redirect is not followed (the 3xx is the answer), `Accept-Encoding: identity` is sent and an
 * encoded answer is a protocol error, and failures are classified and worded alike.
 */

import { type Cancelable, type SignalWatch, watchSignal } from "./signal_watch.ts";
import { encodedAnswer } from "./http1_head.ts";
import {
  classifyFailure,
  plainText,
  type ResponseHead,
  type ResponseSink,
  type WireExchange,
  type WireFailure,
  type WireRequest,
  type WireTransport,
} from "./wire.ts";

/** The longest delay a timer can hold. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One request's cancellation: its own timer and the caller's signal, both released when the
 * request ends. (`AbortSignal.timeout` cannot be cleared: at thousands of requests a second its
 * pending timers keep every finished request's signals alive until they fire.)
 */
export interface RequestAbort {
  signal: AbortSignal;
  timedOut: boolean;
  release(): void;
}

/** Starts a request's timer and links the caller's signal; call `release()` when it ends. */
export function requestAbort(timeoutMs: number, external: AbortSignal | undefined): RequestAbort {
  const ac = new AbortController();
  let watch: SignalWatch | null = null;
  const state: RequestAbort & Cancelable = {
    signal: ac.signal,
    timedOut: false,
    watchedAt: -1,
    release() {
      clearTimeout(timer);
      watch?.remove(state);
    },
    cancel(reason: unknown) {
      ac.abort(reason);
    },
  };
  // Timers past 2^31-1 ms would fire at once; no limit at all means no timer.
  const timer = Number.isFinite(timeoutMs) && timeoutMs > 0
    ? setTimeout(() => {
      state.timedOut = true;
      ac.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError"));
    }, Math.min(timeoutMs, MAX_TIMER_MS))
    : undefined;
  if (external) {
    if (external.aborted) ac.abort(external.reason);
    else watch = watchSignal(external, state);
  }
  return state;
}

/** Requests through `fetch`; nothing is kept between them. */
export function createFetchTransport(): WireTransport {
  return { exchange: () => FETCH, close() {} };
}

/** Fetch exchanges keep no state: one serves every request. */
const FETCH: WireExchange = {
  start(req: WireRequest, sink: ResponseSink): void {
    void fetchExchange(req, sink);
  },
};

/** Sends `req` and hands its answer to `sink`. Never rejects. */
async function fetchExchange(req: WireRequest, sink: ResponseSink): Promise<void> {
  const timeout = requestAbort(req.timeoutMs, req.signal);
  try {
    await exchange(req, sink, timeout);
  } catch (e) {
    // Nothing above should throw; if something does, it is still this request's failure.
    fail(sink, e, timeout, req.signal, "reset");
  } finally {
    timeout.release();
  }
}

/** What fetch's message says when it could not connect. */
const CANNOT_CONNECT =
  /\(Connect\)|tcp connect error|dns error|failed to lookup|invalid certificate/i;
/** What fetch's message says when hyper could not parse the answer. */
const MALFORMED =
  /\bparse|invalid (HTTP|content-length|chunk|header|status)|message head is too large/i;

/**
 * Hands `sink` the failure `e`, classified as the HTTP/1.1 client does: the request's own state
 * first (aborted, timed out), then the client's exhaustion, then what fetch's message says (it
 * could not connect; hyper could not parse the answer), else `otherwise`. The message keeps only
 * fetch's last cause, without the client's address and port.
 */
function fail(
  sink: ResponseSink,
  e: unknown,
  timeout: RequestAbort,
  signal: AbortSignal | undefined,
  otherwise: WireFailure,
): void {
  const at = performance.now();
  const { why, message } = classifyFailure(e, timeout, signal, otherwise, (_e, text) => ({
    why: CANNOT_CONNECT.test(text) ? "connect" : MALFORMED.test(text) ? "protocol" : otherwise,
    message: plainText(text),
  }));
  sink.fail(why, message, at);
}

/** A body fetch cannot send twice: bytes in a stream (see `exchange`). */
function onceBody(body: string | Uint8Array): ReadableStream<Uint8Array> {
  const bytes = typeof body === "string" ? encoder.encode(body) : body.slice();
  return new ReadableStream({
    start(c) {
      c.enqueue(bytes);
      c.close();
    },
  });
}

const encoder = new TextEncoder();

/** The request and its answer, handed to `sink`. */
async function exchange(
  req: WireRequest,
  sink: ResponseSink,
  timeout: RequestAbort,
): Promise<void> {
  let res: Response;
  sink.begin(performance.now());
  try {
    const headers = new Headers(req.headers);
    if (!headers.has("accept-encoding")) headers.set("accept-encoding", "identity");
    res = await fetch(req.url, {
      method: "POST",
      headers,
      // Deno's fetch sends a request again, on a new connection, when a kept-alive one fails
      // before the answer, unless its body is a stream (which it cannot replay): the server may
      // have read the first, so the body goes as a stream (sent chunked).
      body: onceBody(req.body),
      redirect: "manual",
      signal: timeout.signal,
    });
  } catch (e) {
    // No answer: fetch says whether it could connect.
    fail(sink, e, timeout, req.signal, "reset");
    return;
  }
  const encoding = res.headers.get("content-encoding");
  if (encoding !== null && encoding !== "" && encoding.toLowerCase() !== "identity") {
    res.body?.cancel().catch(() => {});
    fail(sink, encodedAnswer(encoding), timeout, req.signal, "protocol");
    return;
  }
  const contentType = res.headers.get("content-type") ?? "";
  const stream = res.body;
  const head: ResponseHead = {
    status: res.status,
    statusText: res.statusText,
    eventStream: stream !== null && contentType.includes("text/event-stream"),
    // An answer without a body is read as an empty whole one.
    json: stream === null || contentType.includes("application/json"),
  };
  const body = sink.head(head, performance.now());
  if (stream === null) {
    sink.end(performance.now(), true);
    return;
  }
  const reader = stream.getReader();
  let finished = true;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      // Stamped before it is read: every event the chunk completes arrived now.
      if (body.stamp(performance.now())) await null;
      if (!body.data(value, 0, value.length)) {
        finished = false;
        break;
      }
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    fail(sink, e, timeout, req.signal, "reset");
    return;
  }
  // An answer that ended early (an error event) releases the connection.
  if (!sink.end(performance.now(), finished)) reader.cancel().catch(() => {});
}
