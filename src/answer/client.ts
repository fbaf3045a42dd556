/**
 * A transport and the reading of its answers put together: `send` a request, get its
 * `SendResult`. The transport moves the bytes (transport/); each request's {@link Answer} is its
 * sink, turning the head and body into the result as they arrive.
 *
 * `send` never throws: every way a request can go wrong (refused connection, timeout, HTTP
 * error, invalid or truncated answer, an error event) comes back as `SendResult.error`, with
 * whatever was read before it.
 */

import type { Endpoint } from "../endpoints/types.ts";
import { concat } from "../util/bytes.ts";
import { createFetchTransport } from "../transport/fetch.ts";
import { createHttp1Wire, type Http1Options } from "../transport/http1.ts";
import type { ProxySettings } from "../transport/proxy.ts";
import type { TransportKind } from "../transport/select.ts";
import {
  type BodySink,
  type ConnectionReuse,
  errorText,
  type ResponseHead,
  type ResponseSink,
  type Waiting,
  type WireExchange,
  type WireFailure,
  type WireTransport,
} from "../transport/wire.ts";
import { SseParser } from "./sse.ts";
import { EventReader } from "./event_reader.ts";
import { applyBody, finishAnswer, type ReadState, streamEnded } from "./apply.ts";
import { httpError, type ReadPhase, wireError } from "./failure.ts";
import {
  emptyResult,
  type OpenResult,
  resetResult,
  type ResultOwner,
  sealResult,
  type SendOptions,
  type SendResult,
} from "./result.ts";

/** Sends requests and reads their answers, on one transport. */
export interface Transport {
  /** Sends one request and reads the whole answer. Never throws. */
  send(opts: SendOptions): Promise<SendResult>;
  /** Closes every idle connection; requests in flight finish on theirs, which are then closed. */
  close(): void;
  /** The transport's requests waiting for the first bytes of their answers, where it tells. */
  waiting?(): Waiting;
  /** A conversation ended: the connection kept for it (sticky reuse) is closed. */
  endSession?(session: object): void;
  /** Opens connections ahead of the requests (`WireTransport.preconnect`), where it can. */
  preconnect?(url: string, count: number, timeoutMs: number): Promise<number>;
}

const utf8 = new TextDecoder();

/** An SSE body: every event a read completes is stamped with the read's arrival. */
class SseBody implements BodySink {
  events: EventReader;
  parser: SseParser;
  constructor(events: EventReader) {
    this.events = events;
    this.parser = new SseParser(events);
  }
  stamp(at: number): boolean {
    return this.events.stamp(at);
  }
  data(buf: Uint8Array, from: number, to: number): boolean {
    this.parser.pushRange(buf, from, to);
    return !this.events.stop;
  }
}

/** A whole body, copied out of the read buffer piece by piece. */
class WholeBody implements BodySink {
  parts: Uint8Array[] = [];
  stamp(_at: number): boolean {
    return false;
  }
  data(buf: Uint8Array, from: number, to: number): boolean {
    this.parts.push(buf.slice(from, to));
    return true;
  }
}

/** An SSE body that calls `fire` once the first content of the answer was read. */
class FirstTokenBody implements BodySink {
  inner: BodySink;
  r: OpenResult;
  fire: (() => void) | null = null;
  constructor(inner: BodySink, r: OpenResult) {
    this.inner = inner;
    this.r = r;
  }
  stamp(at: number): boolean {
    return this.inner.stamp(at);
  }
  data(buf: Uint8Array, from: number, to: number): boolean {
    const more = this.inner.data(buf, from, to);
    const fire = this.fire;
    if (fire !== null && this.r.times.length > 0) {
      this.fire = null;
      fire();
    }
    return more;
  }
}

/**
 * One request's reading, and, once its result is given back (`recycleResult`), the next one's:
 * the result, the SSE parser, the event reader and the transport's exchange are the same objects
 * from one request to the next (a request's objects outlive several young collections when
 * thousands are in flight, and would be moved to the old generation to be collected there).
 */
class Answer implements ResponseSink, ResultOwner {
  readonly r: OpenResult = emptyResult();
  #wire: WireExchange;
  /** Where this answer goes once its result is given back; null: it is not reused. */
  #spares: Answer[] | null;
  #maxSpares: number;
  #resolve: ((r: SendResult) => void) | null = null;

  // The request.
  #endpoint: Endpoint | null = null;
  #streaming = false;
  #timeoutMs = 0;
  #firstToken: (() => void) | null = null;
  #firstBody: FirstTokenBody | null = null;

  // The answer.
  #head: ResponseHead | null = null;
  #phase: ReadPhase = null;
  #ok = false;
  #state: ReadState = { done: false, answered: false };
  #events: EventReader | null = null;
  #sse: SseBody | null = null;
  #whole = new WholeBody();
  /** Where the body's content goes: `#sse` or `#whole`. */
  #sink: BodySink = this.#whole;

  constructor(wire: WireExchange, spares: Answer[] | null, maxSpares: number) {
    this.#wire = wire;
    this.#spares = spares;
    this.#maxSpares = maxSpares;
    if (spares !== null) this.r.owner = this;
  }

  /** Sends `opts` and reads the answer; resolves with `this.r`. Never rejects. */
  start(opts: SendOptions): Promise<SendResult> {
    resetResult(this.r);
    const done = new Promise<SendResult>((resolve) => this.#resolve = resolve);
    this.#endpoint = opts.endpoint;
    this.#streaming = opts.streaming;
    this.#timeoutMs = opts.timeoutMs;
    this.#firstToken = opts.firstToken ?? null;
    this.#phase = null;
    this.#head = null;
    this.#wire.start(opts, this);
    return done;
  }

  begin(at: number): void {
    this.r.startPerf = at;
  }

  connection(connectMs: number, reused: boolean): void {
    this.r.connectMs = connectMs;
    this.r.connectionReused = reused;
  }

  head(head: ResponseHead, at: number): BodySink {
    const r = this.r;
    r.ackPerf = at;
    r.httpStatus = head.status;
    this.#head = head;
    const state = this.#state;
    state.done = false;
    state.answered = false;
    const ok = head.status >= 200 && head.status < 300;
    this.#ok = ok;
    // The answer's own type wins: a server that ignores `stream: true` and answers with one JSON
    // body is read as such, and a replayed body that asks to stream is read as SSE without
    // --streaming.
    const sse = ok && (head.eventStream || (this.#streaming && !head.json));
    if (sse) {
      if (this.#events === null) {
        this.#events = new EventReader(r, state, this.#endpoint!);
        this.#sse = new SseBody(this.#events);
      } else {
        this.#events.reset(r, state, this.#endpoint!);
        this.#sse!.parser.reset();
      }
      this.#sink = this.#sse!;
      if (this.#firstToken !== null) {
        const first = this.#firstBody ??= new FirstTokenBody(this.#sse!, r);
        first.inner = this.#sse!;
        first.fire = this.#firstToken;
        this.#phase = "stream";
        return first;
      }
    } else {
      this.#whole.parts.length = 0;
      this.#sink = this.#whole;
    }
    this.#phase = sse ? "stream" : "body";
    return this.#sink;
  }

  end(at: number, finished: boolean): boolean {
    const r = this.r;
    const events = this.#sink === this.#sse ? this.#events! : null;
    try {
      if (finished && events !== null) {
        // The last events arrived when reading ended.
        events.at = at;
        this.#sse!.parser.end();
      }
    } catch (e) {
      this.fail("reset", errorText(e), at);
      return false;
    }
    events?.finish();
    r.endPerf = at;
    const endpoint = this.#endpoint!;
    if (events !== null) {
      if (!events.stop) streamEnded(r, this.#state, endpoint);
      finished = finished && !events.stop;
    } else {
      const text = utf8.decode(concat(this.#whole.parts));
      this.#whole.parts.length = 0;
      if (this.#ok) applyBody(r, this.#state, endpoint, text);
      else httpError(r, this.#head!.status, this.#head!.statusText, text);
    }
    if (this.#ok) finishAnswer(r, this.#state, endpoint);
    this.#done();
    return finished;
  }

  fail(why: WireFailure, message: string, at: number): void {
    if (this.#resolve === null) return;
    const r = this.r;
    r.endPerf = at;
    // What was read of a stream is kept.
    if (this.#phase === "stream") this.#events!.finish();
    r.error = wireError(why, message, this.#timeoutMs, r, this.#phase);
    this.#done();
  }

  #done(): void {
    this.#whole.parts.length = 0;
    const resolve = this.#resolve!;
    this.#resolve = null;
    resolve(sealResult(this.r));
  }

  /** The caller is done with the result (`recycleResult`): the next request may reuse both. */
  recycle(): void {
    if (this.#resolve !== null) return;
    resetResult(this.r);
    this.#endpoint = null;
    const spares = this.#spares!;
    if (spares.length < this.#maxSpares) spares.push(this);
  }
}

/** Answers kept for reuse, at the most, beyond the transport's connections. */
const SPARE_ANSWERS = 64;

/**
 * Sends on `wire` and reads the answers. `connections`: how many requests may be in flight at
 * once; that many answers, and a few more, are kept for reuse once their results are given back
 * (`recycleResult`). With `reuse` false, every request has its own, left to the collector.
 */
export function answering(wire: WireTransport, connections = 1, reuse = true): Transport {
  const spares: Answer[] = [];
  const max = connections + SPARE_ANSWERS;
  const transport: Transport = {
    send(opts: SendOptions): Promise<SendResult> {
      const a = spares.pop() ?? new Answer(wire.exchange(), reuse ? spares : null, max);
      return a.start(opts);
    },
    close() {
      wire.close();
    },
  };
  if (wire.waiting !== undefined) transport.waiting = () => wire.waiting!();
  if (wire.endSession !== undefined) transport.endSession = (s) => wire.endSession!(s);
  if (wire.preconnect !== undefined) {
    transport.preconnect = (url, count, timeoutMs) => wire.preconnect!(url, count, timeoutMs);
  }
  return transport;
}

const fetchTransport = answering(createFetchTransport(), 1, false);

/** Sends one request through `fetch` and reads the whole answer. Never throws. */
export function send(opts: SendOptions): Promise<SendResult> {
  return fetchTransport.send(opts);
}

/** The HTTP/1.1 client (transport/http1.ts) with its answers read. */
export function createHttp1Transport(options: Http1Options = {}): Transport {
  return answering(createHttp1Wire(options), Math.max(1, options.connections ?? 1));
}

/**
 * The transport a plan names, with its answers read; fetch needs no state, http1 keeps connection
 * pools. `connections`: how many requests may be in flight on it at once.
 */
export function createTransport(
  kind: TransportKind | undefined,
  connections = 1,
  reuse?: ConnectionReuse,
  proxies?: ProxySettings,
): Transport {
  if (kind === "http1") return createHttp1Transport({ connections, reuse, proxies });
  // Fetch keeps no state: every run shares `send`.
  return { send, close() {} };
}
