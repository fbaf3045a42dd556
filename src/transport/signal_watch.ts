/**
 * A caller's signal watched once for all the requests under it. A Worker's requests share one
 * signal: a listener added and removed per request would cost more (and make garbage) than the
 * request's own cancellation, and with thousands in flight each add and remove scans the signal's
 * list of listeners.
 */

/** A request that a caller's signal can cancel. */
export interface Cancelable {
  cancel(reason: unknown): void;
}

/** The requests in flight under one signal, and the signal's one listener. */
export class SignalWatch {
  readonly requests = new Set<Cancelable>();
  #signal: AbortSignal;

  constructor(signal: AbortSignal) {
    this.#signal = signal;
    signal.addEventListener("abort", this, { once: true });
  }

  /** The signal aborted (this object is the listener): every request under it is cancelled. */
  handleEvent(): void {
    for (const c of this.requests) c.cancel(this.#signal.reason);
    this.requests.clear();
  }
}

/** The watch of each caller's signal, made on its first request. */
const watches = new WeakMap<AbortSignal, SignalWatch>();

/**
 * Puts `request` under `signal`, which is not aborted; delete it from the returned watch's
 * `requests` when it ends.
 */
export function watchSignal(signal: AbortSignal, request: Cancelable): SignalWatch {
  let watch = watches.get(signal);
  if (watch === undefined) watches.set(signal, watch = new SignalWatch(signal));
  watch.requests.add(request);
  return watch;
}
