/** The requests' timeouts, all checked by one timer per transport. */

/** The longest time between two checks of the requests' deadlines. */
const MAX_DEADLINE_TICK_MS = 250;

/** A request with a deadline, as `Deadlines` keeps it. */
export interface Timed {
  /** When it times out (`performance.now()` ms). */
  deadline: number;
  /** Its place in the list; -1 when it is in none. Set by `Deadlines` only. */
  deadlineAt: number;
}

/**
 * The requests' timeouts, checked by one timer per transport: a timer per request would cost a
 * timer object, closures and their contexts for as long as each request lasts, with thousands
 * in flight. Deadlines are checked every twentieth of the shortest timeout (at most every 250 ms),
 * so a request times out at most that much late.
 */
export class Deadlines<T extends Timed> {
  /**
   * The requests with a deadline; each knows its place (`deadlineAt`), as in SignalWatch. The
   * two keep their own code rather than share a list keyed by the field's name: a shared one,
   * its field read by name or through accessors, cost 5-7 times as much per add and remove
   * (1,024 of each at 512 members: 3.4 us here, 17-25 us shared), as much as a Set.
   */
  #pending: T[] = [];
  #timer: ReturnType<typeof setInterval> | undefined = undefined;
  #tick = MAX_DEADLINE_TICK_MS;
  #timeUp: (c: T) => void;

  /** @param timeUp called with a request once its deadline has passed (it has left the list). */
  constructor(timeUp: (c: T) => void) {
    this.#timeUp = timeUp;
  }

  /** Requests with a deadline now. */
  get size(): number {
    return this.#pending.length;
  }

  /** `c` times out `timeoutMs` after `now` (`performance.now()`, read by the caller). */
  add(c: T, timeoutMs: number, now = performance.now()): void {
    c.deadline = now + timeoutMs;
    if (c.deadlineAt === -1) {
      c.deadlineAt = this.#pending.length;
      this.#pending.push(c);
    }
    const tick = Math.max(1, Math.min(MAX_DEADLINE_TICK_MS, timeoutMs / 20));
    if (this.#timer !== undefined && tick >= this.#tick) return;
    this.#tick = tick;
    clearInterval(this.#timer);
    this.#timer = setInterval(() => this.#check(), tick);
  }

  /** Takes `c` from the list (its place goes to the last one); the timer stops with the last. */
  delete(c: T): void {
    const list = this.#pending;
    const at = c.deadlineAt;
    if (at === -1 || list[at] !== c) return;
    const last = list.pop()!;
    if (last !== c) {
      list[at] = last;
      last.deadlineAt = at;
    }
    c.deadlineAt = -1;
    if (list.length > 0) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#tick = MAX_DEADLINE_TICK_MS;
  }

  #check(): void {
    const now = performance.now();
    // A copy: a request timed out leaves the list.
    for (const c of this.#pending.slice()) {
      if (c.deadline <= now) {
        this.delete(c);
        this.#timeUp(c);
      }
    }
  }
}
