/**
 * A caller's signal watched once for all the requests under it. A Worker's requests share one
 * signal: a listener added and removed per request would cost more (and make garbage) than the
 * request's own cancellation, and with thousands in flight each add and remove scans the signal's
 * list of listeners.
 */

/** A request that a caller's signal can cancel. */
export interface Cancelable {
  cancel(reason: unknown): void;
  /** Its place in its watch's list; -1 when it is under none. Set by the watch only. */
  watchedAt: number;
}

/**
 * The requests in flight under one signal, and the signal's one listener. Each request knows its
 * place in the list: it is added and removed without hashing (a Set's add and delete, per
 * request and with thousands in flight, cost more than the rest of the bookkeeping).
 */
export class SignalWatch {
  #requests: Cancelable[] = [];
  #signal: AbortSignal;

  constructor(signal: AbortSignal) {
    this.#signal = signal;
    signal.addEventListener("abort", this, { once: true });
  }

  /** Requests under the signal now. */
  get size(): number {
    return this.#requests.length;
  }

  add(request: Cancelable): void {
    if (request.watchedAt !== -1) return;
    request.watchedAt = this.#requests.length;
    this.#requests.push(request);
  }

  /** Takes `request` from under the signal (its place goes to the last one). */
  remove(request: Cancelable): void {
    const list = this.#requests;
    const at = request.watchedAt;
    if (at === -1 || list[at] !== request) return;
    const last = list.pop()!;
    if (last !== request) {
      list[at] = last;
      last.watchedAt = at;
    }
    request.watchedAt = -1;
  }

  /** The signal aborted (this object is the listener): every request under it is cancelled. */
  handleEvent(): void {
    const list = this.#requests;
    this.#requests = [];
    for (const c of list) c.watchedAt = -1;
    for (const c of list) c.cancel(this.#signal.reason);
  }
}

/** The watch of each caller's signal, made on its first request. */
const watches = new WeakMap<AbortSignal, SignalWatch>();

/**
 * Puts `request` under `signal`, which is not aborted; `remove` it from the returned watch when
 * it ends.
 */
export function watchSignal(signal: AbortSignal, request: Cancelable): SignalWatch {
  let watch = watches.get(signal);
  if (watch === undefined) watches.set(signal, watch = new SignalWatch(signal));
  watch.add(request);
  return watch;
}
