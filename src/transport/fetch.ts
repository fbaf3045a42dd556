/**
 * The fetch transport: one request through `fetch`, its answer handed to the request's sink a
 * chunk at a time, each stamped when it arrived. Fetch honours proxies; the HTTP/1.1 client
 * (http1.ts) costs several times less per streamed event.
 */

import { type Cancelable, type SignalWatch, watchSignal } from "./signal_watch.ts";
import {
  errorText,
  failureOf,
  type ResponseHead,
  type ResponseSink,
  type WireExchange,
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
    sink.fail(failureOf(timeout, req.signal, "connect"), errorText(e), performance.now());
  } finally {
    timeout.release();
  }
}

/** The request and its answer, handed to `sink`. */
async function exchange(
  req: WireRequest,
  sink: ResponseSink,
  timeout: RequestAbort,
): Promise<void> {
  let res: Response;
  sink.begin(performance.now());
  try {
    res = await fetch(req.url, {
      method: "POST",
      headers: req.headers,
      // fetch refuses a view on shared memory: it gets a copy.
      body: (typeof req.body !== "string" && req.body.buffer instanceof SharedArrayBuffer
        ? req.body.slice()
        : req.body) as BodyInit,
      signal: timeout.signal,
    });
  } catch (e) {
    sink.fail(failureOf(timeout, req.signal, "connect"), errorText(e), performance.now());
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
    sink.fail(failureOf(timeout, req.signal, "reset"), errorText(e), performance.now());
    return;
  }
  // An answer that ended early (an error event) releases the connection.
  if (!sink.end(performance.now(), finished)) reader.cancel().catch(() => {});
}
