/**
 * A phase's transport, made before the phase's clock starts, with its connections already open:
 * a request of the first wave that had to connect (and handshake) would carry that time in its
 * TTFT, which later requests, on kept-alive connections, do not. No request is sent here.
 */

import { createTransport, type Transport } from "../answer/client.ts";
import type { PhasePlan } from "../plan/types.ts";
import { phaseEndpoint } from "./slots.ts";
import { bodyBytes, bodyCount, type WorkerDataset } from "./packed.ts";
import { warmRequestPath } from "./warm.ts";
import { fast } from "../util/fast_paths.ts";

/** Longest wait for the connections opened ahead; the phase starts then, whatever opened. */
export const PRECONNECT_TIMEOUT_MS = 10_000;

/**
 * How many connections a Worker opens ahead to each of the phase's URLs: as many as its share of
 * the requests that can be in flight at once (`connections`, split by the pool), no more than the
 * phase may send, and, with several URLs (taken in turn per request), that share divided among
 * them.
 */
export function preconnectCount(plan: PhasePlan, connections: number): number {
  const urls = plan.urls?.length ?? 1;
  const limit = Number.isFinite(plan.requestLimit) && plan.requestLimit >= 0
    ? plan.requestLimit
    : Infinity;
  return Math.max(0, Math.ceil(Math.min(connections, limit) / urls));
}

/**
 * Runs the request loop's code in memory (load/warm.ts) with the phase's endpoint, headers and
 * first body, so that the first measured request does not pay for its compiling. Returns how
 * many warm-up answers were read.
 */
export function warmPhase(plan: PhasePlan, dataset: WorkerDataset | null): Promise<number> {
  let endpoint;
  try {
    endpoint = phaseEndpoint(plan);
  } catch {
    return Promise.resolve(0);
  }
  const sessionHeader = plan.sessionHeader ?? "X-Correlation-ID";
  const body = dataset !== null && bodyCount(dataset.bodies) > 0
    ? bodyBytes(dataset.bodies, 0)
    : "{}";
  return warmRequestPath({
    endpoint,
    streaming: plan.streaming,
    headers: { ...plan.headers, "X-Request-ID": crypto.randomUUID(), [sessionHeader]: "warm" },
    body,
  });
}

/**
 * Makes the transport the Worker's slots will send on and opens `connections` connections ahead
 * (see `preconnectCount`) to each URL of the phase, for the HTTP/1.1 client (fetch keeps its own
 * pool, which cannot be filled without sending). Returns the transport and how many opened.
 */
export async function prepareTransport(
  plan: PhasePlan,
  slots: number,
  connections: number,
  timeoutMs = PRECONNECT_TIMEOUT_MS,
): Promise<{ transport: Transport; opened: number }> {
  const transport = createTransport(plan.transport, slots, plan.reuse, plan.proxies);
  const count = fast("preconnect") ? preconnectCount(plan, connections) : 0;
  if (transport.preconnect === undefined || count === 0) return { transport, opened: 0 };
  const urls = [...new Set(plan.urls ?? [plan.url])];
  const opened = await Promise.all(urls.map((u) => transport.preconnect!(u, count, timeoutMs)));
  return { transport, opened: opened.reduce((a, b) => a + b, 0) };
}
