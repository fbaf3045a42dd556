/**
 * The concurrency slots a Worker runs: each slot is an async loop that takes the next
 * conversation, sends its turns in order (each after the previous answer was read), and turns
 * every answer into a {@link RequestRecord}.
 */

import { getEndpoint } from "../endpoints/mod.ts";
import { sampler } from "../dataset/sampling.ts";
import { send } from "../transport/send.ts";
import { epochNs } from "./clock.ts";
import { claimRequest, Ctl } from "./control.ts";
import type { PhasePlan, PlannedConversation } from "./plan.ts";
import type { RequestRecord } from "./record.ts";

/** Receives finished records; the Worker batches them to the main thread. */
export type RecordSink = (record: RequestRecord) => void;

/** Cancels every in-flight request of a Worker at once (second Ctrl+C, grace period over). */
export class InFlight {
  #controllers = new Set<AbortController>();
  /** A controller registered until `release`. */
  acquire(): AbortController {
    const c = new AbortController();
    this.#controllers.add(c);
    return c;
  }
  release(c: AbortController): void {
    this.#controllers.delete(c);
  }
  abortAll(): void {
    for (const c of this.#controllers) c.abort();
  }
}

/** Runs `slots` slot loops until the phase's limits are reached; resolves when all are done. */
export async function runSlots(opts: {
  workerId: number;
  plan: PhasePlan;
  slots: number;
  conversations: PlannedConversation[];
  control: Int32Array;
  inFlight: InFlight;
  sink: RecordSink;
}): Promise<void> {
  const { plan, conversations, control } = opts;
  const endpoint = getEndpoint(plan.endpointType);
  const pick = sampler(plan.sampling, conversations.length, plan.seed);

  async function slot(): Promise<void> {
    while (Atomics.load(control, Ctl.STOP) === 0) {
      const sessionNum = Atomics.add(control, Ctl.NEXT_CONVERSATION, 1);
      if (sessionNum >= plan.conversationLimit) return;
      const conversationIndex = pick(sessionNum);
      const conv = conversations[conversationIndex];
      for (let turnIndex = 0; turnIndex < conv.bodies.length; turnIndex++) {
        const delay = conv.delaysMs?.[turnIndex] ?? 0;
        if (turnIndex > 0 && delay > 0) await new Promise((r) => setTimeout(r, delay));
        if (!claimRequest(control, plan.requestLimit)) return;
        const requestId = crypto.randomUUID();
        const controller = opts.inFlight.acquire();
        Atomics.add(control, Ctl.IN_FLIGHT, 1);
        const result = await send({
          url: plan.url,
          headers: {
            ...plan.headers,
            "X-Request-ID": requestId,
            "X-Correlation-ID": conv.sessionId,
          },
          body: conv.bodies[turnIndex],
          streaming: plan.streaming,
          endpoint,
          timeoutMs: plan.timeoutMs,
          signal: controller.signal,
        });
        opts.inFlight.release(controller);
        Atomics.sub(control, Ctl.IN_FLIGHT, 1);
        Atomics.add(control, Ctl.COMPLETED, 1);
        if (result.error) Atomics.add(control, Ctl.ERRORS, 1);
        if (result.cancelled) Atomics.add(control, Ctl.CANCELLED, 1);
        const start = result.startPerf;
        const toNs = (p: number) => (p - start) * 1e6;
        opts.sink({
          phase: plan.phase,
          workerId: opts.workerId,
          sessionNum,
          conversationIndex,
          conversationId: conv.sessionId,
          turnIndex,
          requestId,
          correlationId: conv.sessionId,
          intendedStartNs: null,
          startNs: epochNs(start),
          ackNs: result.ackPerf === null ? null : toNs(result.ackPerf),
          endNs: toNs(result.endPerf),
          responseNs: result.responsePerf.map(toNs),
          responseReasoning: result.responseReasoning,
          outputText: result.outputText,
          reasoningText: result.reasoningText,
          usage: result.usage,
          httpStatus: result.httpStatus,
          error: result.error,
          cancelled: result.cancelled,
        });
        // A failed turn ends its conversation: later turns would build on an answer that never came.
        if (result.error) break;
      }
      Atomics.add(control, Ctl.SESSIONS_DONE, 1);
    }
  }

  await Promise.all(Array.from({ length: opts.slots }, () => slot()));
}
