/**
 * The mock's engine (slot) model: a fixed number of batch slots with a FIFO queue in front, as
 * vLLM or llama.cpp's server schedule. The batch advances in steps; a step lasts
 * `decodeMs + decodeMsPerSeq × running` plus `prefillUsPerToken × prompt tokens` of the answers
 * joining the batch at that step, and gives every running answer one token (a joining answer's
 * first token ends its prefill step). An answer leaves the batch after its last token, and the
 * queue's head takes its slot at the next step. In a closed loop of `c` users the queue stays
 * empty up to `c = slots`; past it the users beyond the slots wait a whole answer for one:
 * time to first token jumps, so the capacity knee is at `slots`.
 */

import { sleepUntil } from "./schedule.ts";
import type { SentTimes } from "./timing_log.ts";
import type { StreamScript } from "./stream.ts";

/** The slot model's parameters (`reprise mock-server --slots …`). */
export interface EngineParams {
  slots: number;
  prefillUsPerToken: number;
  decodeMs: number;
  decodeMsPerSeq: number;
  kvCacheTokens: number;
}

/** One answer in the engine. */
interface Seq {
  prompt: number;
  count: number;
  produced: number;
  cancelled: boolean;
  onToken: (produced: number) => void;
  finished: () => void;
}

/** A submitted answer: its end, and a way to give its slot back early. */
export interface EngineTicket {
  /** Resolves once the answer's last token was produced, or it was cancelled. */
  done: Promise<void>;
  /** Stops generating the answer (the client left, or the answer is cut short). */
  cancel(): void;
}

/** The batch scheduler shared by every route of one mock server. */
export class Engine {
  #queue: Seq[] = [];
  #running: Seq[] = [];
  #loop: Promise<void> | null = null;

  constructor(readonly params: EngineParams, private readonly signal: AbortSignal) {}

  /** Answers in the batch (vLLM's `num_requests_running`). */
  get running(): number {
    return this.#running.length;
  }

  /** Answers waiting for a slot (vLLM's `num_requests_waiting`). */
  get waiting(): number {
    return this.#queue.length;
  }

  /** The running answers' prompt and generated tokens as a share of the KV cache (0..1). */
  get kvUsage(): number {
    let tokens = 0;
    for (const s of this.#running) tokens += s.prompt + s.produced;
    return Math.min(1, tokens / this.params.kvCacheTokens);
  }

  /**
   * Queues an answer of `count` tokens to a `prompt`-token prompt; `onToken(n)` is called as its
   * n-th token (from 1) is produced.
   */
  submit(prompt: number, count: number, onToken: (produced: number) => void): EngineTicket {
    const { promise, resolve } = Promise.withResolvers<void>();
    const seq: Seq = { prompt, count, produced: 0, cancelled: false, onToken, finished: resolve };
    if (this.signal.aborted) {
      resolve();
      return { done: promise, cancel() {} };
    }
    this.#queue.push(seq);
    this.#loop ??= this.#run().finally(() => this.#loop = null);
    return {
      done: promise,
      cancel: () => {
        if (seq.cancelled) return;
        seq.cancelled = true;
        const q = this.#queue.indexOf(seq);
        if (q >= 0) this.#queue.splice(q, 1);
        const r = this.#running.indexOf(seq);
        if (r >= 0) this.#running.splice(r, 1);
        resolve();
      },
    };
  }

  /** Runs steps while anything is queued or running. */
  async #run(): Promise<void> {
    const p = this.params;
    while (this.#queue.length > 0 || this.#running.length > 0) {
      if (this.signal.aborted) {
        for (const s of [...this.#queue, ...this.#running]) s.finished();
        this.#queue = [];
        this.#running = [];
        return;
      }
      let prefill = 0;
      while (this.#running.length < p.slots && this.#queue.length > 0) {
        const s = this.#queue.shift()!;
        this.#running.push(s);
        prefill += s.prompt;
      }
      const ms = p.decodeMs + p.decodeMsPerSeq * this.#running.length +
        prefill * p.prefillUsPerToken / 1000;
      await sleepUntil(performance.now() + ms, this.signal);
      const still: Seq[] = [];
      for (const s of this.#running) {
        if (s.cancelled) continue;
        if (s.produced < s.count) {
          s.produced++;
          s.onToken(s.produced);
        }
        if (s.produced >= s.count) s.finished();
        else still.push(s);
      }
      // Answers cancelled during the callbacks are gone from the batch already.
      this.#running = still.filter((s) => !s.cancelled);
    }
  }
}

const encoder = new TextEncoder();

/**
 * The body of a streamed answer paced by the engine: `script`'s token events leave as the
 * engine produces them. `truncate` ends the body after half of the tokens, without the tail (the
 * slot is freed); a reader that goes away frees it too. `onEnd` learns, once, when the chunks
 * carrying the first and last tokens were handed over.
 */
export function engineStream(
  engine: Engine,
  script: StreamScript,
  prompt: number,
  truncate: boolean,
  onEnd: (sent: SentTimes) => void,
): ReadableStream<Uint8Array> {
  const limit = truncate ? Math.min(script.count, Math.max(1, script.count >> 1)) : script.count;
  let ticket: EngineTicket | null = null;
  let first = -1;
  let last = -1;
  let sent = 0;
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    onEnd({ first: first < 0 ? null : first, last: last < 0 ? null : last, tokens: sent });
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (script.head !== "") controller.enqueue(encoder.encode(script.head));
      const close = (tail: boolean) => {
        if (ended) return;
        if (tail && !truncate && script.tail !== "") {
          controller.enqueue(encoder.encode(script.tail));
        }
        finish();
        try {
          controller.close();
        } catch { /* the reader went away first */ }
      };
      ticket = engine.submit(prompt, limit, (n) => {
        if (ended) return;
        const now = performance.now();
        if (first < 0) first = now;
        last = now;
        sent = n;
        controller.enqueue(encoder.encode(script.event(n - 1)));
      });
      ticket.done.then(() => close(sent >= limit));
    },
    cancel() {
      ticket?.cancel();
      finish();
    },
  });
}
