/**
 * The seam between a transport and whoever reads its answers. A transport moves bytes: it sends a
 * request's bytes, then hands the answer to the request's {@link ResponseSink} as it arrives
 * (the head, then the body's content a read at a time, each read with the time it arrived, then
 * the end or a failure). It knows no endpoint and no event format; reading is the sink's.
 */

/** What to send: the transport's part of a request. */
export interface WireRequest {
  /** Full URL (base + endpoint path). */
  url: string;
  /**
   * Complete request headers, read when the request is sent: the caller may change the object
   * once the request started.
   */
  headers: Record<string, string>;
  /** Sent as is, byte for byte. Bytes may be a view on shared memory: only read. */
  body: string | Uint8Array;
  /** Whole-request timeout, from the start to the last byte; `Infinity` or 0 for none. */
  timeoutMs: number;
  /** External cancellation (Ctrl+C, request cancellation). */
  signal?: AbortSignal;
  /**
   * The conversation the request belongs to, for a transport that keeps one connection per
   * conversation (`ConnectionReuse` sticky): any object, the same for all its turns.
   */
  session?: object;
}

/**
 * How a transport reuses connections: `pooled`, kept alive and shared by all requests; `never`,
 * a new connection per request, closed after it; `sticky`, one per conversation (`session`),
 * closed when the conversation ends (`WireTransport.endSession`).
 */
export type ConnectionReuse = "pooled" | "never" | "sticky";

/** The response head as a reader needs it; a transport may hand the same object to many. */
export interface ResponseHead {
  readonly status: number;
  readonly statusText: string;
  /** Content-Type says `text/event-stream`. */
  readonly eventStream: boolean;
  /** Content-Type says `application/json` (or the answer has no body at all). */
  readonly json: boolean;
}

/**
 * Why a request failed, as the transport saw it, the same on every transport (docs/errors.md):
 * no connection could be made (`connect`); the client itself ran out of file descriptors, buffers
 * or local ports (`exhausted`); the connection was closed or reset once made, before the answer
 * was whole (`reset`); the request's timeout passed; the server's bytes were not valid HTTP
 * (`protocol`); or the caller's signal aborted it.
 */
export type WireFailure = "connect" | "exhausted" | "reset" | "timeout" | "protocol" | "aborted";

/** Where a body's content goes, a read at a time. */
export interface BodySink {
  /**
   * Stamps a read's arrival at `at` (`performance.now()` ms); true when the read should wait a
   * turn before `data`, so that the reads of other answers that arrived together are all
   * stamped before any is parsed.
   */
  stamp(at: number): boolean;
  /** Takes the content `buf[from, to)`, valid only during the call; false to stop reading. */
  data(buf: Uint8Array, from: number, to: number): boolean;
}

/**
 * One request's reader, as its transport sees it: `begin`, then `head` once the answer's head
 * arrived, the body's content through the sink `head` returned, then exactly one of `end` or
 * `fail` (`fail` may come at any point after `begin`).
 */
export interface ResponseSink {
  /** The request starts at `at` (`performance.now()` ms). */
  begin(at: number): void;
  /**
   * The connection the request goes on, told once before it is written (by a transport that
   * keeps its own): how long this request spent opening it (ms; 0 when it took one already open,
   * kept alive or opened ahead of the phase), and whether it had carried an earlier request.
   */
  connection?(connectMs: number, reused: boolean): void;
  /** The answer's head arrived at `at`; returns where its body's content goes. */
  head(head: ResponseHead, at: number): BodySink;
  /**
   * The body ended at `at`: read to its end (`finished`), or stopped because `data` returned
   * false. Returns true when the answer was taken whole (the connection may serve another).
   */
  end(at: number, finished: boolean): boolean;
  /** The request failed at `at`; `message` says why. */
  fail(why: WireFailure, message: string, at: number): void;
}

/** One request at a time on a transport, reusable once its sink got `end` or `fail`. */
export interface WireExchange {
  /** Sends `req` and hands its answer to `sink`. Never throws: failures go to `sink.fail`. */
  start(req: WireRequest, sink: ResponseSink): void;
}

/** A way of sending requests: fetch, or the HTTP/1.1 client. */
export interface WireTransport {
  /** A new exchange; a caller keeps it for its requests, one at a time. */
  exchange(): WireExchange;
  /** Closes every idle connection; requests in flight finish on theirs, which are then closed. */
  close(): void;
  /** A conversation ended: the connection kept for it (sticky reuse) is closed. */
  endSession?(session: object): void;
  /**
   * Its requests waiting for the first bytes of their answer's body (a streamed answer's first
   * event): sent or being sent, and nothing of the body read yet. Absent where the transport does
   * not tell.
   */
  waiting?(): Waiting;
  /**
   * Opens up to `count` connections to the origin of `url` before any request is sent, so that
   * the first requests of a phase find one open (and handshaken) instead of connecting inside
   * their measured time. No request is written on them. Resolves with how many opened within
   * `timeoutMs` (a failure to connect is left to the requests, which record it). Absent where
   * the transport keeps no connections of its own.
   */
  preconnect?(url: string, count: number, timeoutMs: number): Promise<number>;
}

/** A transport's requests waiting for the first bytes of their answers (`waiting`). */
export interface Waiting {
  /** How many wait now. */
  readonly count: number;
  /**
   * Since when some have waited without a break (`performance.now()` ms): when the last request
   * to start while none waited started. Meaningless while none waits.
   */
  readonly since: number;
}

/** The most telling message of an exception (its cause's, for fetch's wrapped errors). */
export function errorText(e: unknown): string {
  if (e instanceof Error) {
    const cause = e.cause;
    if (cause instanceof Error && cause.message) return cause.message;
    return e.message || e.name;
  }
  return String(e);
}

/** System errors that mean the client, not the server, ran out of something; checked in order. */
const EXHAUSTION: readonly [RegExp, string][] = [
  [
    /\bENFILE\b|too many open files in (the )?system|os error 23\b/i,
    "too many open files in the system (ENFILE)",
  ],
  [/\bEMFILE\b|too many open files|os error 24\b/i, "too many open files (EMFILE)"],
  [/\bENOBUFS\b|no buffer space|os error 105\b/i, "no buffer space available (ENOBUFS)"],
  [
    /\bEADDRNOTAVAIL\b|cannot assign requested address|address not available|os error 99\b/i,
    "no local address or port left (EADDRNOTAVAIL)",
  ],
];

/**
 * The client-side exhaustion an error's text names (EMFILE, ENFILE, ENOBUFS, EADDRNOTAVAIL), said
 * the same way whatever the transport; null for any other error.
 */
export function exhaustionOf(text: string): string | null {
  for (const [re, said] of EXHAUSTION) if (re.test(text)) return said;
  return null;
}

/**
 * An error's text without what differs from one connection to the next (the client's addresses
 * and ports, fetch's request preamble), so that identical failures read the same and are counted
 * as one group in `error_summary`.
 */
export function plainText(text: string): string {
  // fetch chains its causes as `...(Kind): cause`: the last cause says what happened.
  const last = text.lastIndexOf("): ");
  let t = last >= 0 ? text.slice(last + 3) : text;
  t = t.replace(/\s*\bfrom \S+/g, "")
    .replace(/\[[0-9a-f:.%]+\](:\d+)?/gi, "<address>")
    .replace(/\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b/g, "<address>")
    .trim();
  return t || "connection failed";
}

/** A failure's kind and the message its record carries. */
export interface Classified {
  why: WireFailure;
  message: string;
}

/**
 * A failure as both clients classify it: the request's own state first (aborted, timed out);
 * for a lost connection, the client's own exhaustion (EMFILE and the like) next; and only then
 * `lost`, the transport's reading of its error (`why` is `connect` or `reset` there).
 */
export function classifyFailure(
  e: unknown,
  timeout: { readonly timedOut: boolean },
  signal: AbortSignal | undefined,
  otherwise: WireFailure,
  lost: (e: unknown, text: string, why: WireFailure) => Classified,
): Classified {
  const text = errorText(e);
  const why = failureOf(timeout, signal, otherwise);
  if (why !== "connect" && why !== "reset") return { why, message: text };
  const exhausted = exhaustionOf(text);
  if (exhausted !== null) return { why: "exhausted", message: exhausted };
  return lost(e, text, why);
}

/**
 * What a failure was, from the request's own state: the caller's signal aborted it, its timeout
 * passed, or else `otherwise` (what the transport was doing).
 */
export function failureOf(
  timeout: { readonly timedOut: boolean },
  signal: AbortSignal | undefined,
  otherwise: WireFailure,
): WireFailure {
  if (signal?.aborted) return "aborted";
  if (timeout.timedOut) return "timeout";
  return otherwise;
}
