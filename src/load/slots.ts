/**
 * The concurrency slots a Worker runs: each slot is an async loop that takes the next
 * conversation, sends its turns in order (each after the previous answer was read), and turns
 * every answer into a {@link RequestRecord}.
 */

import { getEndpoint } from "../endpoints/mod.ts";
import type { Endpoint } from "../endpoints/types.ts";
import { sampler } from "../dataset/sampling.ts";
import { createTransport, type Transport } from "../answer/client.ts";
import { endpointTransport } from "../answer/media_exchange.ts";
import { recycleResult, type SendResult } from "../answer/result.ts";
import { hash32 } from "../util/rng.ts";
import { liveBody } from "../dataset/build.ts";
import { ArrivalCursor } from "./arrivals.ts";
import { startGrouped, WAVE_GROUP } from "./wave.ts";
import { epochNs } from "../record/clock.ts";
import { claimRequestNumber, Ctl, workerInFlight } from "./control.ts";
import {
  acquirePlace,
  acquireSlot,
  releasePrefill,
  releaseSlot,
  tryAcquirePrefill,
  tryAcquireSlot,
  waitUntil,
} from "./wait.ts";
import type { PhasePlan } from "../plan/types.ts";
import { globalSession } from "../plan/shard.ts";
import { bodyBytes, bodyCount, type WorkerDataset } from "./packed.ts";
import type { RecordError, RequestRecord } from "../record/record.ts";
import { redactText } from "../config/redact.ts";
import { fast } from "../util/fast_paths.ts";

/** Bodies whose views a Worker keeps, from the first: 4,096 views are about 350 KiB. */
const MAX_BODY_VIEWS = 4096;

/**
 * Whole nanoseconds from `start` to `perf` (both `performance.now()` ms), as the epoch times are:
 * the clock reads no finer, and whole numbers are kept in half the memory by the metric columns.
 */
function toNs(perf: number, start: number): number {
  return Math.round((perf - start) * 1e6);
}

/** A conversation to start: its number in the phase, its index, when its first turn is meant. */
interface Start {
  sessionNum: number;
  conversationIndex: number;
  /** `performance.now()` ms; null: now. */
  firstPerf: number | null;
  /** User-centric rate: when the user's next turn is meant, set as each turn is sent. */
  nextPerf: number;
}

/** Receives finished records; the Worker batches them to the main thread. */
export type RecordSink = (record: RequestRecord) => void;

/**
 * Cancels every in-flight request of a Worker at once (second Ctrl+C, grace period over). Requests
 * share one signal; only a request to be cancelled on purpose has a controller of its own,
 * registered here until it ends. Thousands of slots each holding a controller, its signal and the
 * transport's watch of it would cost memory for as long as the run lasts.
 */
export class InFlight {
  #all = new AbortController();
  #own = new Set<AbortController>();

  /** The signal of requests that are not cancelled on purpose. */
  get signal(): AbortSignal {
    return this.#all.signal;
  }

  /** A controller of a request's own, registered until `release`. */
  acquire(): AbortController {
    const c = new AbortController();
    this.#own.add(c);
    return c;
  }

  release(c: AbortController): void {
    this.#own.delete(c);
  }

  /** Aborts every request in flight; later requests get a fresh signal. */
  abortAll(): void {
    const all = this.#all;
    this.#all = new AbortController();
    all.abort();
    for (const c of this.#own) c.abort();
  }
}

/** The endpoint a phase's requests are built and read by, with the plan's endpoint options. */
export function phaseEndpoint(plan: PhasePlan): Endpoint {
  return getEndpoint(plan.endpointType, {
    responseField: plan.responseField,
    ...plan.endpointOptions,
  });
}

/** Runs `slots` slot loops until the phase's limits are reached; resolves when all are done. */
export async function runSlots(opts: {
  workerId: number;
  plan: PhasePlan;
  slots: number;
  dataset: WorkerDataset;
  control: Int32Array;
  inFlight: InFlight;
  sink: RecordSink;
  /**
   * The sink copies what it keeps of a record before returning: the memory of the record's
   * response times then serves the next requests.
   */
  sinkCopies?: boolean;
  /** Learns the transport the slots send on, once it is made. */
  onTransport?: (transport: Transport) => void;
  /** The transport made before the phase began (`prepareTransport`); none: one is made here. */
  transport?: Transport;
}): Promise<void> {
  const { plan, control, inFlight } = opts;
  // This Worker's own in-flight counter, for the live API's per-Worker view.
  const own = workerInFlight(opts.workerId);
  const secrets = plan.secrets ?? [];
  /** A server may quote the key or a header back: no error leaves the Worker with a secret. */
  const scrub = (e: RecordError | null): RecordError | null =>
    e === null || secrets.length === 0 ? e : { ...e, message: redactText(e.message, secrets) };
  const { conversations, bodies } = opts.dataset;
  // A view of each body sent, made once (for the first MAX_BODY_VIEWS bodies): a slot sends the
  // same bodies again and again, and a view per request would be an object per request.
  const views: (Uint8Array | undefined)[] = new Array(Math.min(bodyCount(bodies), MAX_BODY_VIEWS));
  const body = (i: number): Uint8Array =>
    i < views.length ? (views[i] ??= bodyBytes(bodies, i)) : bodyBytes(bodies, i);
  const endpoint = phaseEndpoint(plan);
  const pick = sampler(plan.sampling, conversations.length, plan.seed);
  const timing = plan.timing ?? { mode: "concurrency" };
  // The phase's time zero on this thread's clock (each thread has its own timeOrigin).
  const origin = plan.startEpochMs === undefined
    ? performance.now()
    : plan.startEpochMs - performance.timeOrigin;
  const stopped = () => Atomics.load(control, Ctl.STOP) !== 0;
  const delayRatio = plan.delayRatio ?? 1;
  const cancelPercent = plan.cancelPercent ?? 0;
  // One transport per Worker and phase: its connections are reused by this Worker's slots.
  const transport = opts.transport ??
    createTransport(plan.transport, opts.slots, plan.reuse, plan.proxies);
  opts.onTransport?.(transport);
  // Image edits and video jobs are more than one request per record (answer/media_exchange.ts);
  // every other endpoint sends on the transport itself.
  const exchange = endpointTransport(transport, endpoint);
  // Decided once for the phase: what each request does for the URLs, reuse and prefill flags.
  const urls = plan.urls;
  // Sticky connections keep a conversation on one URL; otherwise each request takes the next.
  const urlPerConversation = urls !== undefined && plan.reuse === "sticky";
  const sticky = plan.reuse === "sticky" && transport.endSession !== undefined;
  const sessionHeader = plan.sessionHeader ?? "X-Correlation-ID";
  const prefill = plan.prefillConcurrency !== undefined;
  const userGapMs = timing.mode === "users" ? timing.gapMs : 0;
  // A shard takes its own of the global session numbers (plan/shard.ts); unsharded: all of them.
  const shard = plan.shard;
  const nextSession = (): number =>
    globalSession(Atomics.add(control, Ctl.NEXT_CONVERSATION, 1), shard);
  // Each record carries its connection's trace (--export-http-trace).
  const httpTrace = plan.httpTrace === true;

  /**
   * Sends conversations, one after another, each one's turns in order: `next` gives the next one
   * to start (it may first wait for a concurrency place), or null when there is none; `ended` is
   * called as each one ends, however it ended. A conversation's first turn is meant for
   * `Start.firstPerf` (null: now); later ones after their delay, or at their recorded time in a
   * fixed schedule. Returns false when the request limit or a stop cut a conversation short.
   *
   * One call, and so one suspended async frame, serves all of a slot's conversations: a frame per
   * conversation lived as long as its requests, which at thousands of streams outlive several
   * young collections, so each was moved to the old generation and collected there.
   */
  async function converse(
    next: () => Start | null | Promise<Start | null>,
    ended: () => void,
  ): Promise<boolean> {
    // One headers object for all of the slot's requests: the transport reads it as it sends.
    const headers: Record<string, string> = {
      ...plan.headers,
      "X-Request-ID": "",
      [sessionHeader]: "",
    };
    // A prefill place held by the request in flight, given back at its first token or its end.
    let holding = false;
    const giveBackPrefill = (): void => {
      if (holding) {
        holding = false;
        releasePrefill(control);
      }
    };
    const firstToken = prefill ? giveBackPrefill : undefined;
    for (;;) {
      const taken = next();
      const start = taken instanceof Promise ? await taken : taken;
      if (start === null) return true;
      const { sessionNum, conversationIndex } = start;
      let completed = true;
      // Sticky reuse: the conversation's connection is kept under this key.
      const session = sticky ? {} : undefined;
      const convUrl = urlPerConversation
        ? Atomics.add(control, Ctl.NEXT_URL, 1) % urls!.length
        : -1;
      try {
        const conv = conversations[conversationIndex];
        let intendedPerf = start.firstPerf;
        // Built multi-turn conversations send each turn with the live answers of the earlier ones.
        const answers: string[] | null = conv.live ? [] : null;
        for (let turnIndex = 0; turnIndex < conv.turns; turnIndex++) {
          if (turnIndex > 0) {
            const ts = timing.mode === "fixed" ? conv.timestampsMs?.[turnIndex] : undefined;
            const delay = (conv.delaysMs?.[turnIndex] ?? 0) * delayRatio;
            // A turn is never meant before the answer it follows: only the client's delay counts.
            if (ts !== undefined && timing.mode === "fixed") {
              intendedPerf = Math.max(origin + ts - timing.shiftMs, performance.now());
            } else if (userGapMs > 0) {
              // A user's turns are a gap apart from the last one's meant time (never before the
              // answer it follows: a late one is sent at once and shows as lag).
              intendedPerf = start.nextPerf;
            } else intendedPerf = delay > 0 ? performance.now() + delay : null;
            if (intendedPerf !== null && !(await waitUntil(intendedPerf, stopped))) {
              completed = false;
              break;
            }
          }
          if (prefill) {
            if (
              !tryAcquirePrefill(control) &&
              !(await acquirePlace(control, Ctl.PREFILL_ACTIVE, Ctl.PREFILL_CAP))
            ) {
              completed = false;
              break;
            }
            holding = true;
          }
          const requestNum = claimRequestNumber(control, plan.requestLimit);
          if (requestNum < 0) {
            giveBackPrefill();
            completed = false;
            break;
          }
          const urlIndex = urls === undefined
            ? -1
            : urlPerConversation
            ? convUrl
            : requestNum % urls.length;
          if (userGapMs > 0) {
            start.nextPerf = (intendedPerf ?? performance.now()) + userGapMs;
          }
          const requestId = crypto.randomUUID();
          // A seeded share of requests is cancelled on purpose, the same ones for the same seed.
          const cancelling = cancelPercent > 0 &&
              hash32(plan.seed, sessionNum, 7000 + turnIndex) / 2 ** 32 < cancelPercent / 100
            ? inFlight.acquire()
            : null;
          const cancelTimer = cancelling === null
            ? undefined
            : setTimeout(() => cancelling.abort(), plan.cancelDelayMs ?? 0);
          Atomics.add(control, Ctl.IN_FLIGHT, 1);
          Atomics.add(control, own, 1);
          headers["X-Request-ID"] = requestId;
          headers[sessionHeader] = conv.sessionId;
          const result = await exchange.send({
            url: urlIndex < 0 ? plan.url : urls![urlIndex],
            session,
            firstToken,
            headers,
            body: answers && turnIndex > 0
              ? liveBody(endpoint, conv.live!, turnIndex, answers)
              : body(conv.firstBody + turnIndex),
            streaming: plan.streaming,
            endpoint,
            timeoutMs: plan.timeoutMs,
            signal: cancelling === null ? inFlight.signal : cancelling.signal,
          });
          giveBackPrefill();
          if (cancelling !== null) {
            clearTimeout(cancelTimer);
            inFlight.release(cancelling);
          }
          // Read before `finished`, which may give the result back to the transport for reuse.
          answers?.push(result.outputText);
          const failed = result.error !== null;
          finished(
            result,
            sessionNum,
            conversationIndex,
            conv.sessionId,
            turnIndex,
            requestId,
            intendedPerf,
            urlIndex,
          );
          // A failed turn ends its conversation: later turns would build on an answer that never
          // came.
          if (failed) break;
        }
        if (completed) Atomics.add(control, Ctl.SESSIONS_DONE, 1);
      } finally {
        if (session !== undefined) transport.endSession!(session);
        ended();
      }
      if (!completed) return false;
    }
  }

  /**
   * Counts a request that ended and hands its record to the sink. (Kept out of `conversation`:
   * the loop over the answer's times would make that whole async function hot enough for the
   * optimizing compiler, in every Worker.)
   */
  function finished(
    result: SendResult,
    sessionNum: number,
    conversationIndex: number,
    conversationId: string,
    turnIndex: number,
    requestId: string,
    intendedPerf: number | null,
    urlIndex: number,
  ): void {
    Atomics.sub(control, Ctl.IN_FLIGHT, 1);
    Atomics.sub(control, own, 1);
    Atomics.add(control, Ctl.COMPLETED, 1);
    if (result.error) {
      const errors = Atomics.add(control, Ctl.ERRORS, 1) + 1;
      const threshold = plan.failedThreshold;
      if (threshold !== undefined) {
        const done = Atomics.load(control, Ctl.COMPLETED);
        if (done >= (plan.armAfter ?? 0) && errors / done > threshold) {
          Atomics.store(control, Ctl.STOP, 1);
        }
      }
    }
    if (result.cancelled) Atomics.add(control, Ctl.CANCELLED, 1);
    const start = result.startPerf;
    // The arrival times become offsets in place: the result is not read again.
    const responseNs = result.responsePerf;
    for (let i = 0; i < responseNs.length; i++) responseNs[i] = toNs(responseNs[i], start);
    const startNs = epochNs(start);
    const record: RequestRecord = {
      phase: plan.phase,
      workerId: opts.workerId,
      sessionNum,
      conversationIndex,
      conversationId,
      turnIndex,
      requestId,
      correlationId: conversationId,
      // A request meant for now was meant when it started: one conversion for both.
      intendedStartNs: intendedPerf === null ? startNs : epochNs(intendedPerf),
      startNs,
      ackNs: result.ackPerf === null ? null : toNs(result.ackPerf, start),
      endNs: toNs(result.endPerf, start),
      responseNs,
      responseReasoning: result.responseReasoning === null
        ? null
        : Uint8Array.from(result.responseReasoning, (b) => b ? 1 : 0),
      outputText: result.outputText,
      reasoningText: result.reasoningText,
      usage: result.usage,
      httpStatus: result.httpStatus,
      error: scrub(result.error),
      cancelled: result.cancelled,
    };
    if (result.media !== null) record.media = result.media;
    if (urlIndex >= 0) record.urlIndex = urlIndex;
    if (httpTrace && result.connectMs !== undefined) {
      record.connectNs = Math.round(result.connectMs * 1e6);
      record.connectionReused = result.connectionReused === true;
    }
    opts.sink(record);
    if (opts.sinkCopies) recycleResult(result);
  }

  /** Closed loop: start the next conversation as soon as this slot (and a place) is free. */
  function slot(): Promise<boolean> {
    // The slot's conversation, refilled for each one it starts.
    const start: Start = { sessionNum: 0, conversationIndex: 0, firstPerf: null, nextPerf: 0 };
    /** After a place was taken: the next conversation, or null (the place given back). */
    const take = (): Start | null => {
      const sessionNum = nextSession();
      if (sessionNum >= plan.conversationLimit) {
        releaseSlot(control);
        return null;
      }
      start.sessionNum = sessionNum;
      start.conversationIndex = pick(sessionNum);
      return start;
    };
    const afterWait = (placed: boolean): Start | null => placed ? take() : null;
    return converse(
      () => {
        if (stopped()) return null;
        // A free place is taken at once; only a full phase is waited on.
        if (tryAcquireSlot(control)) return take();
        return acquireSlot(control).then(afterWait);
      },
      () => releaseSlot(control),
    );
  }

  /**
   * Open loop: take arrival numbers in order, wait for each one's absolute send time, take a
   * concurrency place (the wait for it shows as lag: the intended time stays the schedule's),
   * and start the conversation without waiting for it.
   */
  async function issuer(): Promise<void> {
    const cursor = timing.mode === "rate" ? new ArrivalCursor(timing.schedule) : null;
    const running = new Set<Promise<unknown>>();
    const release = () => releaseSlot(control);
    while (!stopped() && Atomics.load(control, Ctl.ISSUED) < plan.requestLimit) {
      const i = nextSession();
      if (i >= plan.conversationLimit) break;
      const at = cursor ? cursor.timeOf(i) : timing.mode === "fixed" ? timing.offsetsMs[i] : 0;
      if (plan.durationMs !== undefined && at > plan.durationMs) break;
      const intended = origin + at;
      if (!(await waitUntil(intended, stopped))) break;
      if (!(await acquireSlot(control))) break;
      const index = timing.mode === "fixed" ? timing.order[i] : pick(i);
      let start: Start | null = {
        sessionNum: i,
        conversationIndex: index,
        firstPerf: intended,
        nextPerf: 0,
      };
      const once = () => {
        const s = start;
        start = null;
        return s;
      };
      const p: Promise<unknown> = converse(once, release).catch(() => {}).finally(() => {
        running.delete(p);
      });
      running.add(p);
    }
    await Promise.all(running);
  }

  /**
   * User-centric rate: one user, sending one conversation at a time, each turn a gap after the
   * previous one's meant time (and never before its answer). User `u` starts at `u / users` of
   * a gap; when its conversation ends, the next one starts a gap after its last turn.
   */
  async function user(): Promise<void> {
    if (timing.mode !== "users") return;
    const u = globalSession(Atomics.add(control, Ctl.NEXT_USER, 1), shard);
    const capped = plan.maxConcurrency !== undefined;
    const start: Start = {
      sessionNum: 0,
      conversationIndex: 0,
      firstPerf: null,
      nextPerf: origin + (u * timing.gapMs) / timing.users,
    };
    await converse(async () => {
      const at = start.nextPerf;
      if (plan.durationMs !== undefined && at - origin > plan.durationMs) return null;
      if (!(await waitUntil(at, stopped))) return null;
      if (capped && !(await acquireSlot(control))) return null;
      const sessionNum = nextSession();
      if (sessionNum >= plan.conversationLimit) {
        if (capped) releaseSlot(control);
        return null;
      }
      start.sessionNum = sessionNum;
      start.conversationIndex = pick(sessionNum);
      start.firstPerf = at;
      return start;
    }, () => {
      if (capped) releaseSlot(control);
    });
  }

  const loop: () => Promise<unknown> = timing.mode === "concurrency"
    ? slot
    : timing.mode === "users"
    ? user
    : issuer;
  try {
    // Closed-loop slots all start at once; users and issuers each keep their own schedule.
    const grouped = timing.mode === "concurrency" && fast("wave-groups");
    await startGrouped(opts.slots, loop, grouped ? WAVE_GROUP : Infinity);
  } finally {
    transport.close();
  }
}
