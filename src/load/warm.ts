/**
 * Runs the request loop's code before a phase's clock starts: V8 compiles a function the first
 * time it runs, and the first streamed answer a Worker reads (the HTTP/1.1 client's head and chunk
 * parsing, the SSE framing, the event reader, the endpoint's reading of an event) otherwise pays
 * that compiling inside the first wave's TTFT, a few ms on this project's machine, for every
 * stream of the wave at once. The answers come from a server of the warm-up's own on loopback
 * (load/warm_server.ts), so that the code runs on Deno's TCP connections as the run's will, or,
 * where the sandbox does not allow listening, from connections in memory. The run's server sees
 * no request that is not a record's.
 */

import { createHttp1Transport, type Transport } from "../answer/client.ts";
import { recycleResult } from "../answer/result.ts";
import { forgetKnownEvents } from "../answer/known_events.ts";
import { startWarmServer, type WarmServer } from "./warm_server.ts";
import type { Endpoint } from "../endpoints/types.ts";

const enc = new TextEncoder();

/** Answers read per Worker and phase: enough for the baseline compiler. */
export const WARM_EXCHANGES = 24;

/**
 * Idle time after a Worker's first warm-up, for V8's compiler threads to finish the compiles it
 * queued. Without it they ran into the first waves: at 256 pinned streams reprise's TTFT error
 * p99 was 2.8-4.6 ms (median 4.3) against 2.7-4.0 (median 3.2) with it (bench/LEDGER.md,
 * `warm-code`).
 */
export const WARM_SETTLE_MS = 100;

/** A Worker waits {@link WARM_SETTLE_MS} after its first warm-up only. */
let settled = false;

/** Events of each streamed answer, each written on its own (in memory: each a read of its own). */
const WARM_EVENTS = 8;

/**
 * A connection in memory, as far as the HTTP/1.1 client uses one: each write (a whole request)
 * queues `answer`'s parts, which reads then take one at a time; a read with nothing queued waits
 * for the next request, or the close.
 */
class MemoryConn {
  #queue: Uint8Array[] = [];
  #waiting: ((n: number | null) => void) | null = null;
  #into: Uint8Array | null = null;
  #closed = false;
  #answer: Uint8Array[];

  constructor(answer: Uint8Array[]) {
    this.#answer = answer;
  }

  write(p: Uint8Array): Promise<number> {
    this.#queue.push(...this.#answer);
    this.#wake();
    return Promise.resolve(p.length);
  }

  read(p: Uint8Array): Promise<number | null> {
    if (this.#closed) return Promise.resolve(null);
    if (this.#queue.length > 0) return Promise.resolve(this.#take(p));
    return new Promise((resolve) => {
      this.#waiting = resolve;
      this.#into = p;
    });
  }

  #take(p: Uint8Array): number {
    const part = this.#queue[0];
    const n = Math.min(part.length, p.length);
    p.set(part.subarray(0, n));
    if (n === part.length) this.#queue.shift();
    else this.#queue[0] = part.subarray(n);
    return n;
  }

  #wake(): void {
    const w = this.#waiting;
    if (w === null) return;
    this.#waiting = null;
    const into = this.#into!;
    this.#into = null;
    // As the network would: the read completes on a later turn.
    setTimeout(() => w(this.#closed ? null : this.#take(into)), 0);
  }

  close(): void {
    this.#closed = true;
    const w = this.#waiting;
    this.#waiting = null;
    w?.(null);
  }

  closeWrite(): Promise<void> {
    return Promise.resolve();
  }
}

/** A streamed chat answer in chunked SSE, as parts each read alone: the head, then each event. */
function streamedAnswer(): Uint8Array[] {
  const parts = [
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
  ];
  const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
  for (let i = 0; i < WARM_EVENTS; i++) {
    const event = JSON.stringify({
      id: "warm",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: { content: `w${i} ` }, finish_reason: null }],
    });
    parts.push(chunk(`data: ${event}\n\n`));
  }
  parts.push(chunk("data: [DONE]\n\n") + "0\r\n\r\n");
  return parts.map((p) => enc.encode(p));
}

/** A whole chat answer with its length. */
function wholeAnswer(): Uint8Array[] {
  const body = JSON.stringify({
    id: "warm",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content: "warm" } }],
  });
  return [
    enc.encode(
      `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    ),
    enc.encode(body),
  ];
}

/**
 * Sends `exchanges` requests with `headers` and `body` through an HTTP/1.1 client whose
 * connections are in memory, reading answers in the form a chat endpoint gives (the code that
 * frames and reads them is the same for every endpoint). Returns how many were read without
 * error; never throws.
 */
export async function warmRequestPath(opts: {
  endpoint: Endpoint;
  streaming: boolean;
  headers: Record<string, string>;
  body: Uint8Array | string;
  exchanges?: number;
  /** Connections in memory even where a loopback server could listen. */
  memory?: boolean;
}): Promise<number> {
  const answer = opts.streaming ? streamedAnswer() : wholeAnswer();
  let t: Transport | null = null;
  let server: WarmServer | null = null;
  let ok = 0;
  try {
    // Deno's own connections to a server of the warm-up's, where the sandbox lets it listen.
    server = opts.memory ? null : startWarmServer(answer);
    t = createHttp1Transport(
      server !== null ? { connections: 1 } : {
        connections: 1,
        connector: () => Promise.resolve(new MemoryConn(answer) as unknown as Deno.Conn),
      },
    );
    const url = `${server?.origin ?? "http://warm.invalid"}/v1/chat/completions`;
    for (let i = 0; i < (opts.exchanges ?? WARM_EXCHANGES); i++) {
      const r = await t.send({
        url,
        headers: opts.headers,
        body: opts.body,
        streaming: opts.streaming,
        endpoint: opts.endpoint,
        timeoutMs: 10_000,
      });
      if (r.error === null) ok++;
      recycleResult(r);
    }
  } catch {
    // Warming is an optimization: whatever fails here fails, if it must, in the real requests.
  } finally {
    t?.close();
    await server?.close();
    // The warm-up's events are not the server's: none is kept to be recognized in its answers.
    forgetKnownEvents();
  }
  if (!settled) {
    // What the warm-up queued for V8's compiler threads is compiled before the clock starts.
    settled = true;
    await new Promise((resolve) => setTimeout(resolve, WARM_SETTLE_MS));
  }
  return ok;
}
