/**
 * The HTTP/1.1 client's open connections and their read buffers: a small one of its own each,
 * and large ones lent by the transport's pool to connections whose reads fill their buffer.
 */

/**
 * Read buffers: every open connection holds a small one, waiting mostly for a few hundred bytes;
 * a connection whose read filled its buffer (more is waiting) borrows a large one from its
 * transport's pool, and gives it back once a read leaves it part empty. Most reads block on a
 * buffer for a while before any byte comes, so a large buffer for each connection would mostly
 * sit in such waits; lent ones are in reads that return at once. Sizes come from the number of
 * connections: at most 4 MiB of own buffers and 8 MiB of large ones, within these bounds. 4 MiB
 * gives a Worker's 512 connections 8 KiB each, room for the mock's 16-token chat answer (a 5 KB
 * body) in one read: with 4 KiB, such answers came in two reads, cut mid-event, and one thread of
 * 512 streams used 2-4 us more CPU per request.
 *
 * A large buffer is at least 64 KiB, as the baseline reader's reads: a fast stream's waiting bytes
 * then come in one read, where 16 KiB ones took four for the mock's 65 KB answer of 256 tokens
 * (each read is a system call and an async step). 8 MiB of them is 128 per transport; at 2,048
 * connections per Worker, up to 128 were lent at once and none was refused (bench/notes/cpu.md,
 * "Lent buffers of 64 KiB").
 */
const MIN_OWN_BUFFER = 1024;
const MAX_OWN_BUFFER = 8 * 1024;
const MIN_LENT_BUFFER = 64 * 1024;
const MAX_LENT_BUFFER = 128 * 1024;
const OWN_BUDGET = 4 * 1024 * 1024;
const LENT_BUDGET = 8 * 1024 * 1024;
/** Large buffers lent at once, at the least: a few fast streams always find one. */
const MIN_LENT = 16;

/** A power of two in [lo, hi], at most `budget / connections`. */
function bufferSize(budget: number, connections: number, lo: number, hi: number): number {
  let size = hi;
  while (size > lo && size * connections > budget) size /= 2;
  return size;
}

/**
 * The pool of large buffers for a transport of `connections` connections, each connection's own
 * buffer of `ownBytes` (default: from `connections`), the large ones of `lentBytes` (default:
 * from `connections`, and never smaller than the own ones). Returns the pool and the own size.
 */
export function readBuffers(
  connections: number,
  ownBytes?: number,
  lentBytes?: number,
): { lent: LentBuffers; ownBytes: number } {
  const own = ownBytes ?? bufferSize(OWN_BUDGET, connections, MIN_OWN_BUFFER, MAX_OWN_BUFFER);
  const large = Math.max(
    own,
    lentBytes ?? bufferSize(LENT_BUDGET, connections, MIN_LENT_BUFFER, MAX_LENT_BUFFER),
  );
  const lent = new LentBuffers(large, Math.max(MIN_LENT, Math.floor(LENT_BUDGET / large)));
  return { lent, ownBytes: own };
}

/**
 * The large read buffers a transport lends to its connections, made as they are first needed,
 * at most `max` of them.
 */
export class LentBuffers {
  readonly size: number;
  #max: number;
  #spare: Uint8Array[] = [];
  /** Buffers made and not lost with a closed connection. */
  #made = 0;

  constructor(size: number, max: number) {
    this.size = size;
    this.#max = max;
  }

  /** A large buffer, or null when all are lent. */
  take(): Uint8Array | null {
    const spare = this.#spare.pop();
    if (spare !== undefined) return spare;
    if (this.#made >= this.#max) return null;
    this.#made++;
    return new Uint8Array(this.size);
  }

  give(buf: Uint8Array): void {
    this.#spare.push(buf);
  }

  /** A lent buffer is not coming back (its connection closed, maybe in a read into it). */
  lost(): void {
    this.#made--;
  }
}

/** One open connection and its read buffer. */
export class Connection {
  conn: Deno.Conn;
  /** The buffer reads go to: the connection's own, or one lent by `#lent`. */
  buf: Uint8Array;
  /** Unread bytes are `buf[start, end)`. */
  start = 0;
  end = 0;
  closed = false;
  /** Requests answered on this connection (0 = fresh). */
  uses = 0;
  /**
   * The read started when the connection went idle (`watch`): it tells at once when the server
   * closes or resets an idle connection, and it is the next request's first read of its answer.
   */
  pending: Promise<number | null> | null = null;
  /** Idle in its transport's pool: a read that ends now ends the connection (`watch`). */
  pooled = false;
  #own: Uint8Array;
  #pool: LentBuffers;
  /** `buf` is lent by the pool. */
  #lent = false;
  /** The last read filled the free space: more is likely waiting. */
  #full = false;

  constructor(conn: Deno.Conn, bufferBytes: number, pool: LentBuffers) {
    this.conn = conn;
    this.buf = this.#own = new Uint8Array(bufferBytes);
    this.#pool = pool;
  }

  /** Reads into `space()`: resolves with the bytes read, 0 or null at the end of the stream. */
  read(): Promise<number | null> {
    return this.conn.read(this.space());
  }

  /**
   * Where the next read goes: after the unread bytes, moved to the front or into a bigger
   * buffer when needed. A read is `filled(await read())`: `read` returns the read's own promise,
   * with no async step of its own.
   */
  space(): Uint8Array {
    if (this.#full) {
      this.#full = false;
      if (!this.#lent && !this.closed) {
        const big = this.#pool.take();
        if (big !== null) this.#move(big, true);
      }
    } else if (this.#lent && this.end - this.start <= this.#own.length) {
      // The last read left room: the stream caught up, and its own buffer serves again.
      this.#giveBack();
    }
    if (this.start === this.end) {
      this.start = 0;
      this.end = 0;
    } else if (this.end === this.buf.length) {
      if (this.start === 0) {
        // Unread bytes fill the buffer (a huge header or chunk-size line): a bigger own one.
        const bigger = new Uint8Array(this.buf.length * 2);
        const lent = this.#lent;
        const old = this.#move(bigger, false);
        if (lent) this.#pool.give(old);
        this.#own = bigger;
      } else {
        this.buf.copyWithin(0, this.start, this.end);
        this.end -= this.start;
        this.start = 0;
      }
    }
    // Usually everything was consumed: the whole buffer, without making a view of it.
    return this.end === 0 ? this.buf : this.buf.subarray(this.end);
  }

  /** Makes `to` the buffer, its unread bytes moved to its front; returns the one it replaces. */
  #move(to: Uint8Array, lent: boolean): Uint8Array {
    const from = this.buf;
    const n = this.end - this.start;
    if (n > 0) to.set(from.subarray(this.start, this.end));
    this.buf = to;
    this.start = 0;
    this.end = n;
    this.#lent = lent;
    return from;
  }

  /** Takes the result of a read into `space()`; false at end of stream. */
  filled(n: number | null): boolean {
    if (n === null || n === 0) return false;
    if (n === this.buf.length - this.end) this.#full = true;
    this.end += n;
    return true;
  }

  /** Between answers: a lent buffer goes back (nothing is unread on a reusable connection). */
  idle(): void {
    if (this.#lent && this.start === this.end) this.#giveBack();
  }

  /**
   * Puts the connection in its pool: a read starts now, so that a server closing it (FIN or RST,
   * as uvicorn does after 5 s idle) or sending anything while no request is on it closes it at
   * once, before any request is written on it. The next request takes over that read as the first
   * of its answer (`takePending`): no read is added per request.
   */
  watch(): void {
    this.pooled = true;
    const pending = this.read();
    this.pending = pending;
    pending.then(this.#onIdleEnd, this.#onIdleEnd);
  }

  /** A request takes the connection out of its pool. */
  take(): void {
    this.pooled = false;
  }

  /** The read started while idle, for the request that took the connection; null if none. */
  takePending(): Promise<number | null> | null {
    const pending = this.pending;
    this.pending = null;
    return pending;
  }

  /** The idle read ended while the connection was still idle: closed (the pool skips it). */
  #onIdleEnd = (): void => {
    if (this.pooled) {
      this.pending = null;
      this.close();
    }
  };

  /** Back to the own buffer, with the unread bytes (which fit in it); the lent one returns. */
  #giveBack(): void {
    this.#pool.give(this.#move(this.#own, false));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.#lent) {
      // A read may still hold it: it is not lent again. It stays `buf`: a cancellation can close
      // the connection while the bytes of its last read are still being handled.
      this.#pool.lost();
      this.#lent = false;
    }
    try {
      this.conn.close();
    } catch { /* already closed by the peer */ }
  }
}
