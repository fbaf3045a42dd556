/**
 * The mock's timing log (`reprise mock-server --timing-log FILE`): one JSON line per streamed
 * answer, appended when the answer ends, telling when the server received the request and when it
 * handed the chunks carrying the first and the last token to the response body. A client's
 * measurements can then be checked against what the server really did rather than against its
 * configured delays, which a busy server's timers overshoot.
 *
 *     {"request_id":"…","received_ns":…,"first_token_ns":…,"last_token_ns":…,"tokens":N}
 *
 * `request_id` is the request's `X-Request-ID` header (null without one). Times are epoch
 * nanoseconds written as exact integers, from `performance.timeOrigin + performance.now()`, so
 * they compare with another process's readings of the same clock on this machine.
 * `first_token_ns` and `last_token_ns` are null when no token was sent (an answer of 0 tokens, or
 * one cut off before its first token); `tokens` counts the token events sent. Answers cut off
 * early (truncation faults, a client going away, the server closing) are logged with what they
 * sent. Non-streamed answers are not logged.
 *
 * Lines are buffered and written asynchronously, at most `flushMs` (100 ms) after they are
 * recorded, so a response never waits for the disk; `close()` writes what is left.
 */

import { epochNs } from "../record/clock.ts";
import { writeAll } from "../util/bytes.ts";

/** What one streamed answer sent, as `performance.now()` milliseconds. */
export interface SentTimes {
  /** When the chunk carrying the first token was handed to the body; null if none was. */
  first: number | null;
  /** When the chunk carrying the last token sent was handed to the body; null if none was. */
  last: number | null;
  /** Token events sent. */
  tokens: number;
}

/** Options of a timing log. */
export interface TimingLogOptions {
  /** Longest time a line waits in memory, in ms. Default 100. */
  flushMs?: number;
  /** Buffered lines that trigger a write at once. Default 4096. */
  maxLines?: number;
}

interface Entry {
  requestId: string | null;
  received: number;
  sent: SentTimes;
}

const ns = (perfMs: number | null) => perfMs === null ? "null" : epochNs(perfMs).toString();

/** The log line of one answer, without its newline. */
export function timingLine(requestId: string | null, received: number, sent: SentTimes): string {
  return `{"request_id":${JSON.stringify(requestId)},"received_ns":${ns(received)},` +
    `"first_token_ns":${ns(sent.first)},"last_token_ns":${ns(sent.last)},"tokens":${sent.tokens}}`;
}

/** Appends timing lines to a file, buffered, without blocking the caller. */
export class TimingLog {
  #file: Deno.FsFile;
  #enc = new TextEncoder();
  #buf: Entry[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();
  #failure: unknown = null;
  #closed = false;
  #flushMs: number;
  #maxLines: number;

  private constructor(file: Deno.FsFile, opts: TimingLogOptions) {
    this.#file = file;
    this.#flushMs = opts.flushMs ?? 100;
    this.#maxLines = opts.maxLines ?? 4096;
  }

  /** Opens `path` for appending, creating it when missing. */
  static async open(path: string, opts: TimingLogOptions = {}): Promise<TimingLog> {
    const file = await Deno.open(path, { append: true, create: true });
    return new TimingLog(file, opts);
  }

  /** Queues the line of one answer: received at `received` (`performance.now()` ms). */
  record(requestId: string | null, received: number, sent: SentTimes): void {
    if (this.#closed || this.#failure !== null) return;
    this.#buf.push({ requestId, received, sent });
    if (this.#buf.length >= this.#maxLines) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.#flushMs);
  }

  /** Starts writing every queued line; resolves when they are all on disk. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#buf.length > 0) {
      let text = "";
      for (const e of this.#buf) text += timingLine(e.requestId, e.received, e.sent) + "\n";
      this.#buf = [];
      const bytes = this.#enc.encode(text);
      this.#writing = this.#writing.then(() => this.#writeAll(bytes));
    }
    return this.#writing;
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    if (this.#failure !== null) return;
    try {
      await writeAll(this.#file, bytes);
    } catch (e) {
      this.#failure = e;
    }
  }

  /** Writes what is queued and closes the file; rejects if any write failed. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.flush();
    this.#file.close();
    if (this.#failure !== null) throw this.#failure;
  }
}
