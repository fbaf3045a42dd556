/** What every route of the mock reads: the options, the tokenizer, the seeded generator. */

import type { ResolvedMockOptions } from "./options.ts";
import { tokenTimes } from "./schedule.ts";
import { type StreamScript, timedStream } from "./stream.ts";
import type { SentTimes, TimingLog } from "./timing_log.ts";
import type { Tokenizer } from "./tokens.ts";
import { seededRandom } from "./rng.ts";
import { type FaultShare, faultShares } from "./faults.ts";
import type { PromptCounter } from "./prompt_count.ts";
import { MockMetrics } from "./metrics.ts";
import type { MediaStats } from "./media_check.ts";
import { Engine, engineStream } from "./engine.ts";
import { sleepUntil } from "./schedule.ts";

/** What the mock counted: requests received, by path and by fault injected. */
export interface MockStats {
  /** Requests received (all but `GET /mock/stats`). */
  requests: number;
  /** Requests by URL path as received (with any `/fault/<kind>` prefix). */
  byPath: Record<string, number>;
  /** Requests that got each fault kind; kinds never injected are absent. */
  faults: Record<string, number>;
  /** What the media the requests carried decoded to (media_check.ts); absent until some came. */
  media?: MediaStats;
}

/** Server-wide state handed to each route. */
export interface MockContext {
  opts: ResolvedMockOptions;
  tokenizer: Tokenizer;
  /** Seeded uniform [0, 1): fault decisions and jitter. */
  random: () => number;
  /** Aborted when the server closes: ends answers still streaming. */
  signal: AbortSignal;
  /** The model named by the latest request, served by `GET /v1/models`. */
  model: string;
  /** A fresh id suffix (hex), unique within this server. */
  nextId(): string;
  /** Where streamed answers log their send times (`--timing-log`); null when not logging. */
  timingLog: TimingLog | null;
  /** The configured fault shares, in draw order. */
  faults: FaultShare[];
  /** Counters of requests and injected faults. */
  stats: MockStats;
  /** Counts chat `prompt_tokens` as a real server does (`--tokenizer`, `--chat-template`). */
  countPrompt?: PromptCounter | null;
  /** What `GET /metrics` reports: answers in flight, tokens sent, TTFT. */
  metrics: MockMetrics;
  /** The slot model (`--slots`) pacing every answer; null: fixed timing. */
  engine: Engine | null;
}

/**
 * A fresh server-wide state: the generator seeded by `opts.seed`, ids counted from 1, the default
 * model name until a request names one.
 */
export function newMockContext(
  opts: ResolvedMockOptions,
  tokenizer: Tokenizer,
  signal: AbortSignal,
  timingLog: TimingLog | null,
): MockContext {
  let ids = 0;
  const ctx: MockContext = {
    opts,
    tokenizer,
    random: seededRandom(opts.seed),
    signal,
    model: "mock-model",
    nextId: () => (++ids).toString(16).padStart(24, "0"),
    timingLog,
    faults: faultShares(opts),
    stats: { requests: 0, byPath: {}, faults: {} },
    metrics: new MockMetrics(),
    engine: null,
  };
  if (opts.slots !== undefined) {
    ctx.engine = new Engine({ ...opts, slots: opts.slots }, signal);
    ctx.metrics.engine = ctx.engine;
  }
  return ctx;
}

/** One request as a route sees it. */
export interface Exchange {
  /** The parsed JSON body (an object). */
  body: Record<string, unknown>;
  /** When the request arrived (`performance.now()` ms): the origin of the token schedule. */
  arrival: number;
  /** Stop the streamed answer half-way, without its final events. */
  truncate: boolean;
  /** The request's `X-Request-ID` header, null when absent. */
  requestId: string | null;
}

/** The answer length and whether the request's own limit set it (finish reason "length"). */
export interface AnswerLength {
  count: number;
  limited: boolean;
}

/** The first limit that is a non-negative integer among `limits`, else the configured length. */
export function answerLength(ctx: MockContext, ...limits: unknown[]): AnswerLength {
  for (const v of limits) {
    if (typeof v === "number" && Number.isInteger(v) && v >= 0) return { count: v, limited: true };
  }
  return { count: ctx.opts.outputTokens, limited: false };
}

/** Records the request's model for `/v1/models` and returns it ("mock-model" when absent). */
export function useModel(ctx: MockContext, body: Record<string, unknown>): string {
  if (typeof body.model === "string" && body.model !== "") ctx.model = body.model;
  return typeof body.model === "string" && body.model !== "" ? body.model : ctx.model;
}

/** Due times of the `count` tokens of an answer to `ex`, with the server's timing. */
export function scheduleFor(ctx: MockContext, ex: Exchange, count: number): Float64Array {
  return tokenTimes(ex.arrival, count, ctx.opts, ctx.random);
}

/**
 * The body of a streamed answer to `ex` sending `script`'s `count` tokens on the server's
 * schedule, logged to the timing log when there is one and counted for `/metrics` (in flight
 * until it ends; its tokens sent and TTFT when it does). `promptTokens`: the prompt's count.
 */
export function streamBody(
  ctx: MockContext,
  ex: Exchange,
  script: StreamScript,
  promptTokens = 0,
): ReadableStream<Uint8Array> {
  const log = ctx.timingLog;
  const metrics = ctx.metrics;
  metrics.running++;
  metrics.promptTokens += promptTokens;
  const ended = (sent: SentTimes) => {
    metrics.running--;
    metrics.generationTokens += sent.tokens;
    if (sent.first !== null) metrics.observeTtft((sent.first - ex.arrival) / 1000);
    log?.record(ex.requestId, ex.arrival, sent);
  };
  if (ctx.engine) return engineStream(ctx.engine, script, promptTokens, ex.truncate, ended);
  return timedStream(
    script,
    scheduleFor(ctx, ex, script.count),
    ex.truncate,
    ctx.signal,
    ended,
  );
}

/**
 * Waits until a non-streamed answer of `count` tokens is complete: its last token's due time, or,
 * with the slot model, once the engine generated it (`prompt` tokens of prefill first).
 */
export async function answerReady(
  ctx: MockContext,
  ex: Exchange,
  count: number,
  prompt = 0,
): Promise<void> {
  if (ctx.engine === null) return await sleepUntil(completionTime(ctx, ex, count), ctx.signal);
  ctx.metrics.promptTokens += prompt;
  await ctx.engine.submit(prompt, count, () => ctx.metrics.generationTokens++).done;
}

/** When a non-streaming answer is complete: the last token's due time, or the first's if none. */
export function completionTime(ctx: MockContext, ex: Exchange, count: number): number {
  const times = scheduleFor(ctx, ex, Math.max(1, count));
  return times[times.length - 1];
}

/** Unix seconds, as the `created` fields carry. */
export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * The text of a message `content`: a string, or the `text` of its parts (`text`, `input_text`,
 * `output_text` …), joined. Non-text parts count as nothing.
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let s = "";
  for (const part of content) {
    if (typeof part === "string") s += part;
    else if (part && typeof part === "object") {
      const p = part as Record<string, unknown>;
      if (typeof p.text === "string") s += p.text;
      else if (typeof p.content === "string" || Array.isArray(p.content)) {
        s += contentText(p.content);
      }
    }
  }
  return s;
}

/** The o200k_base token count of a list of messages: each one's `content` text, summed. */
export function countMessages(ctx: MockContext, messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  let n = 0;
  for (const m of messages) {
    if (m && typeof m === "object") {
      n += ctx.tokenizer.count(contentText((m as Record<string, unknown>).content));
    }
  }
  return n;
}
