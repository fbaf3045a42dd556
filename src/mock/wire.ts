/**
 * The mock's own HTTP/1.1 server (`mock-server --http direct`): requests read from `Deno.listen`
 * sockets, answers written to them straight from the handler's `Response`.
 *
 * Why it exists: `Deno.serve` hands a body chunk to the socket only once the JavaScript turn that
 * enqueued it has ended, so a busy mock (many timers firing together) sends a token later than it
 * noted sending it, and that lag counts against the client in the timing log. Here a chunk is
 * written by a socket write called right after it is enqueued (a socket write starts at the call),
 * so the log's times are when the bytes went to the kernel.
 *
 * What it speaks: HTTP/1.1 and 1.0, keep-alive and pipelined requests, request bodies by
 * `Content-Length` or chunked. Event streams (`text/event-stream`) and bodies that fail are
 * written chunked as they come; other bodies are read whole and sent with `Content-Length`. A body
 * that fails closes the connection after what was sent (the head and any bytes read before the
 * failure, without the last chunk), as the mock's dropped answers need. No TLS, no
 * `Expect: 100-continue`, no upgrades.
 *
 * Wire faults: a handler may set `info.fault` to have its answer framed wrongly or its connection
 * closed at a chosen point (see {@link WireFault} and docs/mock-server.md). Deno offers no way to
 * reset a TCP connection (no `SO_LINGER` 0), so every "reset" here is a close (FIN) at that point.
 */

import { concat, writeAll as writeAllBytes } from "../util/bytes.ts";
import type { WireFaultKind } from "./faults.ts";

/**
 * How the server may mis-send an answer: a wire fault kind (`faults.ts`), or `flush-head` (send
 * the head at once and the body chunked as it comes, even when it is not an event stream: a
 * stalled answer's head must leave before its body).
 */
export type WireFault = WireFaultKind | "flush-head";

/** What the server hands the handler with each request, and what the handler hands back. */
export interface WireInfo {
  /** When the request's last byte was read (`performance.now()` ms). */
  arrival: number;
  /** Set by the handler: the wire fault to make of its answer. */
  fault?: WireFault;
}

/** Where and how the server listens, and the timing of its wire faults. */
export interface WireOptions {
  hostname: string;
  port: number;
  /** Time over which a `slow-head` answer's head is written, a byte at a time (ms). */
  headMs?: number;
  /** Idle time after an `idle-close` answer before the connection is closed (ms). */
  idleMs?: number;
}

/** Answers one request. */
export type WireHandler = (req: Request, info: WireInfo) => Response | Promise<Response>;

/** A running server. */
export interface WireServer {
  addr: Deno.NetAddr;
  /**
   * Stops accepting, closes idle connections, lets answers in progress end (the caller ends
   * long streams), closes their connections, and resolves when every connection is closed.
   */
  shutdown(): Promise<void>;
}

/** Longest request head accepted: a longer one is answered 431. */
export const MAX_HEAD = 64 * 1024;

const enc = new TextEncoder();
const dec = new TextDecoder();
const LAST_CHUNK = enc.encode("0\r\n\r\n");
/** Headers the server writes itself; a handler's own are dropped. */
const FRAMING = new Set(["content-length", "transfer-encoding", "connection", "keep-alive"]);

/** A request's head, parsed. */
interface Head {
  method: string;
  target: string;
  /** HTTP/1.1 (true) or 1.0. */
  http11: boolean;
  headers: [string, string][];
}

/** A request the client got wrong: answered with `status` and the connection closed. */
class BadRequest extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** The connection ended (the peer closed or reset it). */
class Closed extends Error {}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Parses a request head (without its final blank line). */
function parseHead(text: string): Head {
  const lines = text.split("\r\n");
  const m = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) (\S+) HTTP\/1\.([01])$/.exec(lines[0]);
  if (m === null) throw new BadRequest(400, `malformed request line: ${lines[0].slice(0, 100)}`);
  const headers: [string, string][] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!TOKEN.test(name)) throw new BadRequest(400, `malformed header line ${i}`);
    headers.push([name.toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return { method: m[1], target: m[2], http11: m[3] === "1", headers };
}

/** The value of header `name` (lower case), joined with ", " when repeated; null when absent. */
function headerValue(head: Head, name: string): string | null {
  let out: string | null = null;
  for (const [n, v] of head.headers) if (n === name) out = out === null ? v : `${out}, ${v}`;
  return out;
}

/** Bytes read from a connection, with room to grow. */
class Input {
  buf: Uint8Array<ArrayBuffer> = new Uint8Array(4 * 1024);
  start = 0;
  end = 0;

  constructor(private conn: Deno.Conn) {}

  /** Reads more bytes; returns false at the end of the stream. */
  async more(): Promise<boolean> {
    if (this.end === this.buf.length) {
      const live = this.end - this.start;
      if (live * 2 > this.buf.length) {
        const next = new Uint8Array(this.buf.length * 2);
        next.set(this.buf.subarray(this.start, this.end));
        this.buf = next;
      } else this.buf.copyWithin(0, this.start, this.end);
      this.start = 0;
      this.end = live;
    }
    let n: number | null;
    try {
      n = await this.conn.read(this.buf.subarray(this.end));
    } catch {
      return false;
    }
    if (n === null) return false;
    this.end += n;
    return true;
  }

  /** Index of the first `\r\n\r\n` at or after `from`, or -1. */
  headEnd(from: number): number {
    const b = this.buf;
    for (let i = b.indexOf(13, from); i !== -1 && i + 3 < this.end; i = b.indexOf(13, i + 1)) {
      if (b[i + 1] === 10 && b[i + 2] === 13 && b[i + 3] === 10) return i;
    }
    return -1;
  }

  /** Index of the first `\r\n` at or after `from`, or -1. */
  lineEnd(from: number): number {
    const b = this.buf;
    for (let i = b.indexOf(13, from); i !== -1 && i + 1 < this.end; i = b.indexOf(13, i + 1)) {
      if (b[i + 1] === 10) return i;
    }
    return -1;
  }

  /** Takes `n` bytes (a copy), reading as needed. */
  async take(n: number): Promise<Uint8Array<ArrayBuffer>> {
    while (this.end - this.start < n) if (!(await this.more())) throw new Closed();
    const out = this.buf.slice(this.start, this.start + n);
    this.start += n;
    return out;
  }

  /** Takes one line (without its CRLF) of at most `max` bytes, reading as needed. */
  async line(max: number): Promise<string> {
    for (;;) {
      const e = this.lineEnd(this.start);
      if (e >= 0) {
        const text = dec.decode(this.buf.subarray(this.start, e));
        this.start = e + 2;
        return text;
      }
      if (this.end - this.start > max) throw new BadRequest(400, "chunk line too long");
      if (!(await this.more())) throw new Closed();
    }
  }
}

/** Reads a request head; null when the connection ends cleanly between requests. */
async function readHead(input: Input): Promise<Head | null> {
  if (input.start === input.end) input.start = input.end = 0;
  let scanned = input.start;
  for (;;) {
    const e = input.headEnd(Math.max(input.start, scanned - 3));
    if (e > input.start + MAX_HEAD || (e < 0 && input.end - input.start > MAX_HEAD + 3)) {
      throw new BadRequest(431, `request head over ${MAX_HEAD} bytes`);
    }
    if (e >= 0) {
      const text = dec.decode(input.buf.subarray(input.start, e));
      input.start = e + 4;
      return parseHead(text);
    }
    scanned = input.end;
    if (!(await input.more())) {
      if (input.end === input.start) return null;
      throw new Closed();
    }
  }
}

/** Reads a chunked request body. */
async function readChunked(input: Input): Promise<Uint8Array<ArrayBuffer>> {
  const parts: Uint8Array<ArrayBuffer>[] = [];
  for (;;) {
    const line = await input.line(1024);
    const size = parseInt(line.split(";")[0].trim(), 16);
    if (!Number.isFinite(size) || size < 0 || !/^[0-9a-fA-F]+/.test(line.trim())) {
      throw new BadRequest(400, `malformed chunk size: ${line.slice(0, 40)}`);
    }
    if (size === 0) {
      // Trailers, up to the blank line.
      while ((await input.line(MAX_HEAD)) !== "");
      break;
    }
    parts.push(await input.take(size));
    if ((await input.line(2)) !== "") throw new BadRequest(400, "chunk not followed by CRLF");
  }
  return concat(parts);
}

/** Writes all of `bytes`; throws `Closed` when the peer has gone. */
async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  try {
    await writeAllBytes(conn, bytes);
  } catch {
    throw new Closed();
  }
}

/**
 * Writes chunks of a chunked body through one reused buffer: size line, data and CRLF go out in one
 * write, with no array made per chunk. A chunk's write ends before the next one is framed.
 */
class ChunkWriter {
  #buf = new Uint8Array(4 * 1024);

  constructor(private conn: Deno.Conn) {}

  /** Writes one chunk; `ext` (such as ";ext=1") follows its size. */
  write(data: Uint8Array, ext = ""): Promise<void> {
    const hex = data.length.toString(16) + ext;
    const size = hex.length + data.length + 4;
    if (size > this.#buf.length) {
      let n = this.#buf.length;
      while (n < size) n *= 2;
      this.#buf = new Uint8Array(n);
    }
    const b = this.#buf;
    for (let i = 0; i < hex.length; i++) b[i] = hex.charCodeAt(i);
    b[hex.length] = 13;
    b[hex.length + 1] = 10;
    b.set(data, hex.length + 2);
    b[size - 2] = 13;
    b[size - 1] = 10;
    return writeAll(this.conn, b.subarray(0, size));
  }
}

/**
 * The status line and headers of `res`, with the server's own framing headers `framing` (lines
 * without CRLF), `connection: close` unless `keepAlive`, in HTTP `version`.
 */
function headBytes(
  res: Response,
  framing: string | string[],
  keepAlive: boolean,
  version = "1.1",
): Uint8Array {
  let text = `HTTP/${version} ${res.status} ${res.statusText || reason(res.status)}\r\n`;
  for (const [name, value] of res.headers) {
    if (!FRAMING.has(name)) text += `${name}: ${value}\r\n`;
  }
  for (const line of typeof framing === "string" ? [framing] : framing) {
    if (line !== "") text += `${line}\r\n`;
  }
  text += `${keepAlive ? "" : "connection: close\r\n"}\r\n`;
  return enc.encode(text);
}

/** Reason phrases for the status line. */
const PHRASES: Record<number, string> = {
  200: "OK",
  204: "No Content",
  307: "Temporary Redirect",
  400: "Bad Request",
  404: "Not Found",
  413: "Payload Too Large",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
};

/** A reason phrase for the status line. */
function reason(status: number): string {
  return PHRASES[status] ?? "Status";
}

/** A plain-text answer to a request the server could not take, closing the connection. */
function refusal(status: number, message: string): Uint8Array {
  const body = enc.encode(message + "\n");
  return concat([
    enc.encode(
      `HTTP/1.1 ${status} ${reason(status)}\r\ncontent-type: text/plain; charset=utf-8\r\n` +
        `content-length: ${body.length}\r\nconnection: close\r\n\r\n`,
    ),
    body,
  ]);
}

/**
 * Answers a request the server could not take, then stops writing and reads what the client still
 * sends (for at most a second) before the connection closes: closing with unread bytes would reset
 * the connection and could discard the answer before the client reads it.
 */
async function refuse(conn: Deno.Conn, status: number, message: string): Promise<void> {
  await writeAll(conn, refusal(status, message));
  const sink = new Uint8Array(16 * 1024);
  const timer = setTimeout(() => {
    try {
      conn.close();
    } catch { /* closed already */ }
  }, 1000);
  try {
    await conn.closeWrite();
    while ((await conn.read(sink)) !== null) { /* discard */ }
  } catch {
    /* reset or closed: done either way */
  } finally {
    clearTimeout(timer);
  }
}

/** Wire faults that frame a body by a wrong `Content-Length`, so need it whole. */
const LENGTH_FAULTS = new Set<WireFault | undefined>([
  "dup-content-length",
  "content-length-short",
  "content-length-long",
]);

/** Wire faults after whose answer the connection closes. */
const CLOSING_FAULTS = new Set<WireFault | undefined>([
  ...LENGTH_FAULTS,
  "close",
  "close-unannounced",
  "close-delimited",
  "http10",
]);

/** Waits until `due` (`performance.now()` ms). */
function sleepUntil(due: number): Promise<void> {
  const wait = due - performance.now();
  return wait <= 0 ? Promise.resolve() : new Promise((r) => setTimeout(r, wait));
}

/** Writes a head a byte at a time, spread evenly over `ms`. */
async function writeSlowly(conn: Deno.Conn, bytes: Uint8Array, ms: number): Promise<void> {
  const start = performance.now();
  for (let i = 0; i < bytes.length; i++) {
    await writeAll(conn, bytes.subarray(i, i + 1));
    await sleepUntil(start + (ms * (i + 1)) / bytes.length);
  }
}

/**
 * Writes `res`, mis-sent as `fault` says. Returns false when the connection must close after it
 * (its body failed, the client or the fault asked for it). Throws `Closed` when the peer went
 * away, after cancelling the body.
 */
async function writeResponse(
  conn: Deno.Conn,
  chunks: ChunkWriter,
  res: Response,
  head: Head,
  keepAlive: boolean,
  fault: WireFault | undefined,
  opts: WireOptions,
): Promise<boolean> {
  if (fault === "reset-before-head") {
    await res.body?.cancel();
    return false;
  }
  const version = fault === "http10" ? "1.0" : "1.1";
  // Whether the connection stays open after the answer, and whether the head says it closes.
  const stays = keepAlive && !CLOSING_FAULTS.has(fault);
  const noCloseHeader = !(fault === "close" || fault === "close-delimited" ||
    (!keepAlive && fault !== "http10" && fault !== "close-unannounced"));
  const sendHead = (bytes: Uint8Array) =>
    fault === "slow-head" ? writeSlowly(conn, bytes, opts.headMs ?? 0) : writeAll(conn, bytes);
  const noBody = head.method === "HEAD" || res.status === 204 || res.status === 304 ||
    res.status < 200;
  if (res.body === null || noBody) {
    await res.body?.cancel();
    await sendHead(headBytes(res, noBody ? "" : "content-length: 0", noCloseHeader, version));
    return stays;
  }
  const reader = res.body.getReader();
  const raw = fault === "close-delimited" || fault === "http10";
  const ext = fault === "chunk-ext" ? ";ext=1" : "";
  const streamed = !LENGTH_FAULTS.has(fault) &&
    ((res.headers.get("content-type") ?? "").startsWith("text/event-stream") ||
      fault === "flush-head");
  let headSent = false;
  const parts: Uint8Array[] = [];
  try {
    if (streamed) {
      await sendHead(
        headBytes(res, raw ? "" : "transfer-encoding: chunked", noCloseHeader, version),
      );
      headSent = true;
    }
    for (;;) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch {
        // The body failed: what was sent stays incomplete and the connection closes.
        if (!headSent) {
          await sendHead(headBytes(res, "transfer-encoding: chunked", false, version));
          const sofar = concat(parts);
          if (sofar.length > 0) await chunks.write(sofar);
        }
        return false;
      }
      if (r.done) break;
      if (r.value.length === 0) continue;
      if (!streamed) parts.push(r.value);
      else if (raw) await writeAll(conn, r.value);
      else await chunks.write(r.value, ext);
    }
  } catch (e) {
    await reader.cancel().catch(() => {});
    throw e;
  }
  if (streamed) {
    if (!raw) await writeAll(conn, LAST_CHUNK);
    return stays;
  }
  const body = concat(parts);
  const n = body.length;
  if (fault === "chunk-ext" || (raw && fault !== "http10")) {
    await sendHead(headBytes(res, raw ? "" : "transfer-encoding: chunked", noCloseHeader, version));
    if (raw) await writeAll(conn, body);
    else {
      const half = n >> 1;
      if (half > 0) await chunks.write(body.subarray(0, half), ext);
      await chunks.write(body.subarray(half), ext);
      await writeAll(conn, LAST_CHUNK);
    }
    return stays;
  }
  const lengths = fault === "dup-content-length"
    ? [n, n + 1]
    : fault === "content-length-short"
    ? [n >> 1]
    : fault === "content-length-long"
    ? [n + 100]
    : [n];
  const framing = lengths.map((l) => `content-length: ${l}`);
  const headText = headBytes(res, framing, noCloseHeader, version);
  if (fault === "slow-head") {
    await sendHead(headText);
    await writeAll(conn, body);
  } else await writeAll(conn, concat([headText, body])); // one write, as the answer is whole
  return stays;
}

/**
 * Listens on `hostname:port` (0: any free port) and answers each request with `handler`.
 * Handler errors become 500 answers.
 */
export function serveWire(opts: WireOptions, handler: WireHandler): WireServer {
  const listener = Deno.listen({ hostname: opts.hostname, port: opts.port, transport: "tcp" });
  const addr = listener.addr as Deno.NetAddr;
  const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  let closing = false;
  /** Open connections, and whether each is between requests (safe to close). */
  const idle = new Map<Deno.Conn, boolean>();
  const running = new Set<Promise<void>>();

  const close = (conn: Deno.Conn) => {
    idle.delete(conn);
    try {
      conn.close();
    } catch { /* closed already */ }
  };

  async function serve(conn: Deno.Conn): Promise<void> {
    const input = new Input(conn);
    const chunks = new ChunkWriter(conn);
    // Requests answered on this connection, and the idle limit an `idle-close` answer set.
    let served = 0;
    let idleLimit = 0;
    try {
      for (;;) {
        idle.set(conn, true);
        if (closing) return;
        if (idleLimit > 0 && input.start === input.end) {
          const timer = setTimeout(() => close(conn), idleLimit);
          const more = await input.more();
          clearTimeout(timer);
          if (!more) return;
        }
        let head: Head | null;
        let body: Uint8Array<ArrayBuffer> | null = null;
        try {
          head = await readHead(input);
          if (head === null) return;
          idle.set(conn, false);
          const te = headerValue(head, "transfer-encoding");
          const cl = headerValue(head, "content-length");
          if (te !== null) {
            if (te.toLowerCase() !== "chunked") {
              throw new BadRequest(501, `unsupported transfer-encoding: ${te}`);
            }
            body = await readChunked(input);
          } else if (cl !== null) {
            if (!/^\d+$/.test(cl)) throw new BadRequest(400, `malformed content-length: ${cl}`);
            body = await input.take(Number(cl));
          }
        } catch (e) {
          if (e instanceof BadRequest) await refuse(conn, e.status, e.message);
          return;
        }
        const arrival = performance.now();
        const connection = (headerValue(head, "connection") ?? "").toLowerCase();
        const keepAlive = head.http11
          ? !/\bclose\b/.test(connection)
          : /\bkeep-alive\b/.test(connection);
        let req: Request;
        try {
          const url = head.target.startsWith("/")
            ? `http://${headerValue(head, "host") ?? `${host}:${addr.port}`}${head.target}`
            : head.target;
          const hasBody = head.method !== "GET" && head.method !== "HEAD";
          req = new Request(url, {
            method: head.method,
            headers: head.headers,
            body: hasBody ? body : null,
          });
        } catch (e) {
          await refuse(conn, 400, `bad request: ${(e as Error).message}`);
          return;
        }
        let res: Response;
        const info: WireInfo = { arrival };
        try {
          res = await handler(req, info);
        } catch (e) {
          res = new Response(`internal error: ${(e as Error).message}`, { status: 500 });
        }
        let fault = info.fault;
        // A reused connection is closed before any byte; a fresh one is answered as usual.
        if (fault === "reset-reused") fault = served > 0 ? "reset-before-head" : undefined;
        served++;
        idleLimit = fault === "idle-close" ? Math.max(1, opts.idleMs ?? 5000) : 0;
        const stays = await writeResponse(conn, chunks, res, head, keepAlive, fault, opts);
        if (!stays || !keepAlive) return;
      }
    } catch (e) {
      if (!(e instanceof Closed)) throw e;
    } finally {
      close(conn);
    }
  }

  const accepting = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      if (closing) {
        close(conn);
        continue;
      }
      try {
        (conn as Deno.TcpConn).setNoDelay(true);
      } catch { /* not TCP */ }
      const p = serve(conn).catch(() => {}).finally(() => running.delete(p));
      running.add(p);
    }
  })();

  let done: Promise<void> | null = null;
  return {
    addr,
    shutdown() {
      done ??= (async () => {
        closing = true;
        listener.close();
        await accepting;
        for (const [conn, isIdle] of idle) if (isIdle) close(conn);
        await Promise.all(running);
      })();
      return done;
    },
  };
}
