/** A raw HTTP/1.1 client for the mock's fault tests: writes request bytes, reads response bytes. */

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Hang guard of every read: far past any answer the tests ask for. */
export const GUARD_MS = 10_000;

/** The bytes of a JSON POST to `path`, with extra header lines. */
export function postBytes(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Uint8Array {
  const text = JSON.stringify(body);
  let head = `POST ${path} HTTP/1.1\r\nhost: mock\r\ncontent-type: application/json\r\n` +
    `content-length: ${enc.encode(text).length}\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  return enc.encode(head + "\r\n" + text);
}

/** How a read of a connection ended. */
export type Ending = "eof" | "reset" | "guard";

/** A connection to the mock, read into one growing buffer. */
export class RawConn {
  bytes = new Uint8Array(0);
  /** `performance.now()` of each read that returned bytes, and its size. */
  reads: { at: number; n: number }[] = [];
  ended: Ending | null = null;
  #buf = new Uint8Array(64 * 1024);

  private constructor(readonly conn: Deno.TcpConn) {}

  /** Connects to the mock on 127.0.0.1:`port`. */
  static async open(port: number): Promise<RawConn> {
    return new RawConn(await Deno.connect({ hostname: "127.0.0.1", port }));
  }

  /** Writes request bytes. */
  async send(bytes: Uint8Array): Promise<void> {
    let off = 0;
    while (off < bytes.length) off += await this.conn.write(bytes.subarray(off));
  }

  /** Reads once; false when the connection ended (the ending is noted). */
  async #more(): Promise<boolean> {
    if (this.ended !== null) return false;
    let n: number | null;
    try {
      n = await this.conn.read(this.#buf);
    } catch {
      this.ended = "reset";
      return false;
    }
    if (n === null) {
      this.ended = "eof";
      return false;
    }
    const next = new Uint8Array(this.bytes.length + n);
    next.set(this.bytes);
    next.set(this.#buf.subarray(0, n), this.bytes.length);
    this.bytes = next;
    this.reads.push({ at: performance.now(), n });
    return true;
  }

  /** Reads until `done(bytes)` holds or the connection ends; a hang closes it after the guard. */
  async readUntil(done: (bytes: Uint8Array) => boolean, guardMs = GUARD_MS): Promise<void> {
    const timer = setTimeout(() => {
      this.ended = "guard";
      this.close();
    }, guardMs);
    try {
      while (!done(this.bytes) && (await this.#more()));
    } finally {
      clearTimeout(timer);
    }
  }

  /** Reads until the peer ends the connection. */
  readToEnd(guardMs = GUARD_MS): Promise<void> {
    return this.readUntil(() => false, guardMs);
  }

  /** Takes the first `n` bytes read off the buffer. */
  take(n: number): Uint8Array {
    const out = this.bytes.slice(0, n);
    this.bytes = this.bytes.slice(n);
    return out;
  }

  close(): void {
    try {
      this.conn.close();
    } catch { /* closed already */ }
  }
}

/** One exchange on a fresh connection: the request, then everything up to the connection's end. */
export async function exchange(
  port: number,
  request: Uint8Array,
  guardMs = GUARD_MS,
): Promise<{ bytes: Uint8Array; ended: Ending; reads: { at: number; n: number }[] }> {
  const c = await RawConn.open(port);
  try {
    await c.send(request);
    await c.readToEnd(guardMs);
    return { bytes: c.bytes, ended: c.ended!, reads: c.reads };
  } finally {
    c.close();
  }
}

/** A response split into its head and the bytes after it. */
export interface Parsed {
  statusLine: string;
  /** Header lines as read, names in lower case, repeats kept. */
  headers: [string, string][];
  body: Uint8Array;
  /** Bytes of the head with its blank line. */
  headLength: number;
}

/** Index just past the head's blank line, or -1. */
export function headEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i + 4;
    }
  }
  return -1;
}

/** Splits a response; throws when there is no complete head. */
export function parse(bytes: Uint8Array): Parsed {
  const end = headEnd(bytes);
  if (end < 0) throw new Error(`no complete head in ${JSON.stringify(dec.decode(bytes))}`);
  const lines = dec.decode(bytes.subarray(0, end - 4)).split("\r\n");
  const headers = lines.slice(1).map((l): [string, string] => {
    const c = l.indexOf(":");
    return [l.slice(0, c).toLowerCase(), l.slice(c + 1).trim()];
  });
  return { statusLine: lines[0], headers, body: bytes.subarray(end), headLength: end };
}

/** Every value of header `name`. */
export function values(p: Parsed, name: string): string[] {
  return p.headers.filter(([n]) => n === name).map(([, v]) => v);
}

/** A chunked body taken apart: the data, each size line, and whether the last chunk came. */
export function dechunk(
  body: Uint8Array,
): { data: Uint8Array; sizeLines: string[]; complete: boolean } {
  const parts: Uint8Array[] = [];
  const sizeLines: string[] = [];
  let i = 0;
  for (;;) {
    let e = i;
    while (e + 1 < body.length && !(body[e] === 13 && body[e + 1] === 10)) e++;
    if (e + 1 >= body.length) break;
    const line = dec.decode(body.subarray(i, e));
    sizeLines.push(line);
    const size = parseInt(line.split(";")[0], 16);
    if (size === 0) {
      return { data: concatAll(parts), sizeLines, complete: true };
    }
    const start = e + 2;
    parts.push(body.subarray(start, Math.min(start + size, body.length)));
    if (start + size + 2 > body.length) break;
    i = start + size + 2;
  }
  return { data: concatAll(parts), sizeLines, complete: false };
}

/** One array of all `parts`. */
export function concatAll(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** The `data:` payloads of an SSE text, in order, with each event's `event:` name. */
export function sseEvents(text: string): { event: string; data: string }[] {
  return text.split("\n\n").filter((p) => p.trim() !== "").map((packet) => {
    let event = "";
    const data: string[] = [];
    for (const line of packet.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(line[5] === " " ? 6 : 5));
    }
    return { event, data: data.join("\n") };
  });
}

/** Whether the bytes of a response framed by `Content-Length` are all in. */
export function completeByLength(bytes: Uint8Array): boolean {
  const end = headEnd(bytes);
  if (end < 0) return false;
  const length = values(parse(bytes), "content-length")[0];
  return length !== undefined && bytes.length >= end + Number(length);
}

/** Text of bytes (UTF-8, lenient). */
export function text(bytes: Uint8Array): string {
  return dec.decode(bytes);
}
