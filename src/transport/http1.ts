/**
 * An HTTP/1.1 client over `Deno.connect` / `Deno.connectTls`, a transport as fetch.ts is (never
 * throws; one timestamp per network read, taken before the read is handed on).
 *
 * Why it exists: Deno's `fetch` hands JavaScript one promise per streamed HTTP chunk, which caps
 * a thread at about 16k SSE events/s and inflates inter-token latency long before that. Here one
 * read fills a large buffer with many chunks, the chunked framing is removed in place, and all
 * the content a read completed is handed to the reader at once.
 *
 * Connections are kept alive per origin; each request has one connection to itself and gives it
 * back only after its answer was read to the end (so a connection is never shared mid-answer).
 * An idle connection has a read pending (`Connection.watch`): a server closing it removes it from
 * the pool before any request is written on it. A request is written once: a connection lost
 * after any of it was written is that request's failure, never a second send.
 */

import { writeAll } from "../util/bytes.ts";
import { type Cancelable, type SignalWatch, watchSignal } from "./signal_watch.ts";
import {
  type BodySink,
  type Classified,
  classifyFailure,
  type ConnectionReuse,
  plainText,
  type ResponseSink,
  type Waiting,
  type WireExchange,
  type WireFailure,
  type WireRequest,
  type WireTransport,
} from "./wire.ts";
import { Connection, type LentBuffers, readBuffers } from "./http1_connection.ts";
import { type Head, HeadCache, headOf, ProtocolError } from "./http1_head.ts";
import { BodyReader } from "./http1_body.ts";
import { Deadlines } from "./deadlines.ts";
import { LastMessage, requestMessage } from "./request_message.ts";
import { type Origin, type Target, Targets } from "./http1_target.ts";
import { openTunnel, type ProxySettings } from "./proxy.ts";

/** Options of {@link createHttp1Wire}. */
export interface Http1Options {
  /** Extra PEM root certificates trusted for `https://` (self-signed test servers). */
  caCerts?: string[];
  /**
   * Size of each connection's own read buffer; one read takes at most this many bytes, unless
   * the connection holds a large buffer lent from the transport's pool (see `Connection`).
   * Default: from `connections`.
   */
  readBufferBytes?: number;
  /** Size of the large buffers the pool lends. Default: from `connections`. */
  lentBufferBytes?: number;
  /**
   * How many connections this transport may hold open at once (its slots): the read buffers
   * are sized so that all of them together stay within a few MiB.
   */
  connections?: number;
  /** How connections are reused; default pooled. */
  reuse?: ConnectionReuse;
  /** The proxies of the run (`proxySettings`); none: every request goes straight to its server. */
  proxies?: ProxySettings;
  /**
   * Makes each connection in place of the network (the load's warm-up runs the client's code on
   * connections in memory); none: TCP, TLS and proxies as the URL and `proxies` say.
   */
  connector?: (hostname: string, port: number) => Promise<Deno.Conn>;
}

/** Longest request message whose memory an exchange keeps for the next one. */
const MAX_KEPT_MESSAGE = 16 * 1024;
/**
 * A body of bytes from this size on is written after the head from where it lies (shared memory
 * for a packed body) rather than copied with the head into new memory at each request.
 */
export const BODY_APART = 256 * 1024;

/** What the transport's requests share: its connections, targets, deadlines and heads. */
interface Client {
  lent: LentBuffers;
  bufferBytes: number;
  caCerts: string[] | undefined;
  connector: Http1Options["connector"];
  deadlines: Deadlines<Exchange>;
  heads: HeadCache;
  targetOf(raw: string): Target;
  takeIdle(o: Origin, session: object | undefined): Connection | undefined;
  giveBack(o: Origin, c: Connection, session: object | undefined): void;
  /** Requests whose answer's body has not begun (`WireTransport.waiting`). */
  waiting: { count: number; since: number };
}

async function connect(o: Origin, client: Client): Promise<Connection> {
  let conn: Deno.Conn;
  if (client.connector !== undefined) conn = await client.connector(o.hostname, o.port);
  else if (o.proxy !== null) conn = await connectThroughProxy(o, client);
  else if (o.tls) {
    const tls = await Deno.connectTls({
      hostname: o.hostname,
      port: o.port,
      caCerts: client.caCerts,
    });
    // The handshake is part of connecting: a refused certificate is a failure to connect.
    try {
      await tls.handshake();
    } catch (e) {
      tls.close();
      throw e;
    }
    conn = tls;
  } else {
    conn = await Deno.connect({ hostname: o.hostname, port: o.port });
    (conn as Deno.TcpConn).setNoDelay(true);
  }
  return new Connection(conn, client.bufferBytes, client.lent);
}

/**
 * A connection to `o` through its proxy: to the proxy itself for a plain origin (requests then
 * name their absolute URL), a `CONNECT` tunnel with TLS inside it for a TLS one. A proxy that
 * refuses the tunnel is a failure to connect, with its status.
 */
async function connectThroughProxy(o: Origin, client: Client): Promise<Deno.Conn> {
  const proxy = o.proxy!;
  const tcp = await Deno.connect({ hostname: proxy.hostname, port: proxy.port });
  tcp.setNoDelay(true);
  if (!o.tls) return tcp;
  try {
    const host = o.hostname.includes(":") ? `[${o.hostname}]` : o.hostname;
    await openTunnel(tcp, proxy, `${host}:${o.port}`);
  } catch (e) {
    tcp.close();
    throw e;
  }
  const tls = await Deno.startTls(tcp, { hostname: o.hostname, caCerts: client.caCerts });
  try {
    await tls.handshake();
  } catch (e) {
    tls.close();
    throw e;
  }
  return tls;
}

/**
 * One request and its answer, and then the next one's (its reader keeps it): the body's framing
 * and the request message's memory are the same objects from one request to the next.
 *
 * A request is a chain of callbacks on the connection's pending operation (connect, write, read),
 * not an async function: such a function's suspended frame and its locals, and the objects each
 * request made, lived as long as the request, and with thousands in flight a request outlives
 * several young collections, so all of it was moved to the old generation, to be marked and
 * collected there (bench/notes/cpu.md). The callbacks are made once per exchange.
 *
 * It is also the request's cancellation, by its timeout or the caller's signal: closing the
 * request's connection is how a pending operation is interrupted; a connect under way fails the
 * request at once (the connection, once open, is closed). Built without an AbortController or
 * closures (the caller's signal is watched once for all the requests under it, the deadline is
 * checked with all others).
 */
class Exchange implements Cancelable, WireExchange {
  #client: Client;
  /** The request's reader, until the request ends. */
  #sink: ResponseSink | null = null;

  // The request.
  #signal: AbortSignal | undefined = undefined;
  /** The request's conversation (sticky reuse). */
  #session: object | undefined = undefined;
  timeoutMs = 0;
  #origin: Origin | null = null;
  /** Kept only until the answer's head arrived. */
  #message: Uint8Array | null = null;
  /** A large body written after `#message` from its own memory; null when in the message. */
  #bodyApart: Uint8Array | null = null;
  /** The memory messages are written in, kept from one request to the next. */
  #messageBytes: Uint8Array | null = null;
  /** The last message written in that memory, which the next one is written over. */
  #last = new LastMessage();
  /** The connection is open (made or kept alive): a failure is no longer a failure to connect. */
  #connected = false;
  /** Counted in the client's `waiting`: started, and no byte of the answer's body read yet. */
  #waiting = false;

  // Its cancellation.
  timedOut = false;
  cancelled = false;
  reason: unknown = undefined;
  /** When the request times out (`performance.now()` ms); Infinity for never. */
  deadline = Infinity;
  /** Its place in the transport's `Deadlines`; -1 when it has none. */
  deadlineAt = -1;
  /** Its place under the caller's signal (`SignalWatch`); -1 when it is under none. */
  watchedAt = -1;
  #watch: SignalWatch | null = null;
  /** The connect under way, until it settles or the request ends. */
  #connecting: Promise<Connection> | null = null;
  /** The connection the request is using. */
  conn: Connection | null = null;

  // The answer.
  #head: Head | null = null;
  /** When the head arrived: bytes that came with it take its time. */
  #headAt = 0;
  #first = true;
  #body: BodyReader | null = null;
  /** Where the body's content goes, as the reader said when the head arrived. */
  #bodySink: BodySink | null = null;

  // The callbacks, made once.
  #onWritten = (n: number): void => this.#written(n);
  #onWrittenAll = (): void => this.#messageWritten();
  #onHeadRead = (n: number | null): void => this.#headRead(n);
  #onSendError = (e: unknown): void => this.#sendFailed(e);
  #onBodyRead = (n: number | null): void => this.#bodyRead(n);
  #onBodyError = (e: unknown): void => this.#fail(e);
  #onParse = (): void => this.#parse();

  constructor(client: Client) {
    this.#client = client;
  }

  /** Sends `req` and hands the answer to `sink`. Never throws. */
  start(req: WireRequest, sink: ResponseSink): void {
    this.#sink = sink;
    this.#signal = req.signal;
    this.#session = req.session;
    this.timeoutMs = req.timeoutMs;
    this.timedOut = false;
    this.cancelled = false;
    this.reason = undefined;
    this.#connected = false;
    this.#head = null;
    const now = performance.now();
    sink.begin(now);
    this.#waiting = true;
    const waiting = this.#client.waiting;
    if (waiting.count++ === 0) waiting.since = now;
    // No limit at all means no deadline.
    const timeoutMs = req.timeoutMs;
    if (Number.isFinite(timeoutMs) && timeoutMs > 0) {
      this.#client.deadlines.add(this, timeoutMs, now);
    }
    const external = req.signal;
    if (external) {
      if (external.aborted) this.cancel(external.reason);
      else this.#watch = watchSignal(external, this);
    }
    try {
      if (this.cancelled) throw this.reason;
      const target = this.#client.targetOf(req.url);
      this.#origin = target.origin;
      const body = req.body;
      const apart = typeof body !== "string" && body.length >= BODY_APART;
      const message = requestMessage(
        target,
        req.headers,
        body,
        this.#messageBytes,
        this.#last,
        apart,
      );
      this.#bodyApart = apart ? body : null;
      // A message made anew (it did not fit the kept memory) is kept in its place.
      if (message.buffer !== this.#messageBytes?.buffer && message.length <= MAX_KEPT_MESSAGE) {
        this.#messageBytes = message;
      }
      this.#message = message;
    } catch (e) {
      this.#fail(e);
      return;
    }
    this.#open();
  }

  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.reason = reason;
    this.conn?.close();
    if (this.#connecting !== null) {
      // Connecting cannot be cancelled: the request fails now, the connection once it opens.
      this.#connecting = null;
      this.#fail(reason);
    }
  }

  /** A connection for the request: a kept-alive one, or a new one. */
  #open(): void {
    const o = this.#origin!;
    const c = this.#client.takeIdle(o, this.#session);
    if (c !== undefined) {
      this.#sink!.connection?.(0, c.uses > 0);
      this.#send(c);
      return;
    }
    const connectStart = performance.now();
    const pending = connect(o, this.#client);
    this.#connecting = pending;
    pending.then((c) => {
      // The request was cancelled (and ended) meanwhile.
      if (this.#connecting !== pending) c.close();
      else {
        this.#connecting = null;
        this.#sink!.connection?.(performance.now() - connectStart, false);
        this.#send(c);
      }
    }, (e) => {
      if (this.#connecting !== pending) return;
      this.#connecting = null;
      this.#fail(e);
    });
  }

  /** Writes the request on `c`. */
  #send(c: Connection): void {
    this.conn = c;
    this.#connected = true;
    if (this.cancelled) {
      this.#sendFailed(this.reason);
      return;
    }
    c.conn.write(this.#message!).then(this.#onWritten, this.#onSendError);
  }

  #written(n: number): void {
    const message = this.#message!;
    // Usually one write takes it all: no extra async step for the rest.
    if (n < message.length) {
      writeAll(this.conn!.conn, message.subarray(n)).then(this.#onWrittenAll, this.#onSendError);
    } else this.#messageWritten();
  }

  /** The message is written: its body written apart follows, then the answer is read. */
  #messageWritten(): void {
    const body = this.#bodyApart;
    if (body === null) this.#readHead();
    else {
      this.#bodyApart = null;
      writeAll(this.conn!.conn, body).then(this.#onWrittenAll, this.#onSendError);
    }
  }

  /** The head, a read at a time. */
  #readHead(): void {
    const c = this.conn!;
    let head: Head | null;
    try {
      head = headOf(c, this.#client.heads);
    } catch (e) {
      this.#sendFailed(e);
      return;
    }
    if (head === null) {
      // A kept-alive connection's first read was started when it went idle.
      (c.takePending() ?? c.read()).then(this.#onHeadRead, this.#onSendError);
    } else this.#answer(c, head);
  }

  #headRead(n: number | null): void {
    const c = this.conn!;
    if (c.filled(n)) this.#readHead();
    else {
      this.#sendFailed(
        new Error(
          c.end === c.start
            ? "the server closed the connection without answering"
            : "the server closed the connection in the middle of the headers",
        ),
      );
    }
  }

  /**
   * Writing the request or reading the head failed: the request's failure. It is never sent
   * again, as the server may have read it (a stale kept-alive connection is found by its idle
   * read, before any request is written on it).
   */
  #sendFailed(e: unknown): void {
    this.#fail(e);
  }

  /** The head arrived: the reader says where the body goes. */
  #answer(c: Connection, head: Head): void {
    this.#message = null;
    this.#bodyApart = null;
    c.uses++;
    this.#head = head;
    if (this.#body === null) this.#body = new BodyReader(c, head);
    else this.#body.reset(c, head);
    const at = this.#headAt = performance.now();
    this.#bodySink = this.#sink!.head(head, at);
    // Bytes that came with the head are handled first, stamped now: they arrived with it.
    this.#first = true;
    this.#readBody();
  }

  /** The body, a read at a time. */
  #readBody(): void {
    const c = this.conn!;
    if (!this.#first || c.start === c.end) {
      // What comes next arrives with a read of its own.
      this.#first = false;
      if (this.#body!.ended) {
        this.#bodyDone(true);
        return;
      }
      c.read().then(this.#onBodyRead, this.#onBodyError);
      return;
    }
    this.#arrived();
  }

  #bodyRead(n: number | null): void {
    if (this.conn!.filled(n)) this.#arrived();
    else if (this.#body!.untilClose) this.#bodyDone(true);
    else this.#fail(new Error("the server closed the connection before the answer ended"));
  }

  /**
   * A read arrived: stamped now, handed on a turn later when the sink asks (`BodySink.stamp`).
   * Bytes that came with the head arrived when it did: they take its time, read once.
   */
  #arrived(): void {
    const at = this.#first ? this.#headAt : performance.now();
    this.#bodyBegun();
    this.#first = false;
    if (this.#bodySink!.stamp(at)) queueMicrotask(this.#onParse);
    else this.#parse();
  }

  #parse(): void {
    const body = this.#body!;
    let more: boolean;
    try {
      more = body.next(this.#bodySink!);
    } catch (e) {
      this.#fail(e);
      return;
    }
    if (!more) this.#bodyDone(false);
    else if (body.ended) this.#bodyDone(true);
    else this.#readBody();
  }

  /**
   * The body was read (`finished`), or its reading stopped (the reader asked to): the reader
   * ends the answer, and the connection is kept or closed.
   */
  #bodyDone(finished: boolean): void {
    // The time reading ended: the last content's arrival and the request's end, read once.
    const taken = this.#sink!.end(performance.now(), finished);
    // The connection is no longer this request's to close.
    const c = this.conn!;
    this.conn = null;
    // Reuse only a connection whose answer was read to its end.
    if (taken && this.#body!.complete && this.#head!.keepAlive && c.start === c.end) {
      this.#client.giveBack(this.#origin!, c, this.#session);
    } else {
      c.close();
    }
    this.#end();
  }

  /** The request failed: its connection, if any, is closed; what was read is the reader's. */
  #fail(e: unknown): void {
    const at = performance.now();
    const c = this.conn;
    if (c !== null) {
      c.close();
      this.conn = null;
    }
    const { why, message } = classifyFailure(
      e,
      this,
      this.#signal,
      this.#connected ? "reset" : "connect",
      lostConnection,
    );
    this.#sink!.fail(why, message, at);
    this.#end();
  }

  /** The answer's body began, or the request ended without one: it no longer waits. */
  #bodyBegun(): void {
    if (this.#waiting) {
      this.#waiting = false;
      this.#client.waiting.count--;
    }
  }

  /** The request ended: its deadline and its place under the caller's signal go. */
  #end(): void {
    this.#bodyBegun();
    this.#client.deadlines.delete(this);
    this.#watch?.remove(this);
    this.#watch = null;
    this.#message = null;
    this.#bodyApart = null;
    this.#signal = undefined;
    this.#session = undefined;
    this.#sink = null;
    this.#bodySink = null;
  }
}

/** A lost connection as the HTTP/1.1 client tells it: a malformed answer (its own words), or not. */
function lostConnection(e: unknown, text: string, why: WireFailure): Classified {
  return e instanceof ProtocolError
    ? { why: "protocol", message: text }
    : { why, message: plainText(text) };
}

function timeUp(x: Exchange): void {
  x.timedOut = true;
  x.cancel(new DOMException(`no answer within ${x.timeoutMs} ms`, "TimeoutError"));
}

/** Creates an HTTP/1.1 transport with its own keep-alive connection pools. */
export function createHttp1Wire(options: Http1Options = {}): WireTransport {
  const connections = Math.max(1, options.connections ?? 1);
  const { lent, ownBytes: bufferBytes } = readBuffers(
    connections,
    options.readBufferBytes,
    options.lentBufferBytes,
  );
  const idle = new Map<string, Connection[]>();
  /** Connections opened ahead of the requests (`preconnect`), by origin: none has been used. */
  const fresh = new Map<string, Connection[]>();
  const reuse = options.reuse ?? "pooled";
  /** Sticky reuse: each conversation's idle connection, and the origin it is open to. */
  const sticky = new Map<object, { key: string; c: Connection }>();
  let closed = false;
  const targets = new Targets(options.proxies);

  const client: Client = {
    lent,
    bufferBytes,
    caCerts: options.caCerts,
    connector: options.connector,
    deadlines: new Deadlines<Exchange>(timeUp),
    heads: new HeadCache(),
    targetOf: (raw) => targets.of(raw),
    takeIdle(o, session) {
      // A connection opened ahead has carried no request: under every strategy it may carry
      // the one that takes it (each request its own, each conversation its own).
      if (reuse === "never") return popOpen(fresh, o.key);
      if (reuse === "sticky" && session !== undefined) {
        const kept = sticky.get(session);
        if (kept === undefined) return popOpen(fresh, o.key);
        sticky.delete(session);
        // A conversation sent elsewhere gets a connection there.
        if (kept.key !== o.key || kept.c.closed) {
          kept.c.close();
          return popOpen(fresh, o.key);
        }
        kept.c.take();
        return kept.c;
      }
      return popOpen(idle, o.key) ?? popOpen(fresh, o.key);
    },
    giveBack(o, c, session) {
      if (closed || c.closed || reuse === "never") {
        c.close();
        return;
      }
      c.idle();
      c.watch();
      if (reuse === "sticky" && session !== undefined) {
        sticky.get(session)?.c.close();
        sticky.set(session, { key: o.key, c });
        return;
      }
      let list = idle.get(o.key);
      if (!list) idle.set(o.key, list = []);
      list.push(c);
    },
    waiting: { count: 0, since: 0 },
  };

  return {
    exchange: () => new Exchange(client),
    close() {
      closed = true;
      for (const list of idle.values()) for (const c of list) c.close();
      idle.clear();
      for (const list of fresh.values()) for (const c of list) c.close();
      fresh.clear();
      for (const kept of sticky.values()) kept.c.close();
      sticky.clear();
    },
    endSession(session) {
      const kept = sticky.get(session);
      if (kept === undefined) return;
      sticky.delete(session);
      kept.c.close();
    },
    waiting: (): Waiting => client.waiting,
    async preconnect(url, count, timeoutMs) {
      let o: Origin;
      try {
        o = targets.of(url).origin;
      } catch {
        // A URL this client cannot send to: each request records its own failure.
        return 0;
      }
      let opened = 0;
      let next = 0;
      let failed = false;
      const until = performance.now() + timeoutMs;
      const one = async (): Promise<void> => {
        while (next < count && !failed && !closed && performance.now() < until) {
          next++;
          let c: Connection;
          try {
            c = await connect(o, client);
          } catch {
            // The server refuses or cannot be reached: the requests will say so, each in its
            // record; trying the rest now would only delay the phase.
            failed = true;
            return;
          }
          if (closed) {
            c.close();
            return;
          }
          // Idle from the start: a server closing it before any request takes it closes it here.
          c.watch();
          let list = fresh.get(o.key);
          if (!list) fresh.set(o.key, list = []);
          list.push(c);
          opened++;
        }
      };
      const all = Promise.all(
        Array.from({ length: Math.min(PRECONNECT_PARALLEL, count) }, one),
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => timer = setTimeout(resolve, timeoutMs));
      try {
        await Promise.race([all, late]);
      } finally {
        clearTimeout(timer);
      }
      return opened;
    },
  };
}

/**
 * Connections opened at once by `preconnect`: thousands of handshakes begun together overflow a
 * server's accept queue (each refused SYN is retried a second later), so they go a few at a time.
 */
const PRECONNECT_PARALLEL = 64;

/** The last open connection of `map`'s list for `key`, taken out of its pool; closed ones go. */
function popOpen(map: Map<string, Connection[]>, key: string): Connection | undefined {
  const list = map.get(key);
  while (list && list.length > 0) {
    const c = list.pop()!;
    if (!c.closed) {
      c.take();
      return c;
    }
  }
  return undefined;
}
