/**
 * A start barrier for the shards of one run, served by shard 0's live API (`GET /api/barrier`):
 * each shard asks, once ready, with its index and the shard count, and keeps asking; once every
 * shard of the count has asked, the barrier fixes one instant a little ahead and gives it to all
 * of them, which then start as with `--start-at`. For clusters where writing a start time into
 * the manifest beforehand is awkward.
 */

/** How far ahead of the last shard's arrival the start is fixed: time for all to hear it. */
export const BARRIER_LEAD_MS = 2000;

/** What a shard asking the barrier is told. */
export type BarrierAnswer =
  | { ready: false; seen: number; of: number | null }
  | { ready: true; start_at_ms: number };

/** The shards seen so far and, once all came, the instant they start at. */
export class StartBarrier {
  #seen = new Set<number>();
  #of: number | null = null;
  #startAt: number | null = null;
  #now: () => number;

  /** `now`: epoch ms (the clock the shards' `/api/clock` check compares with). */
  constructor(now: () => number = () => performance.timeOrigin + performance.now()) {
    this.#now = now;
  }

  /** Where the barrier stands, for a look that is no shard's arrival. */
  status(): BarrierAnswer {
    return this.#startAt === null
      ? { ready: false, seen: this.#seen.size, of: this.#of }
      : { ready: true, start_at_ms: this.#startAt };
  }

  /**
   * Shard `shard` of `of` is ready; returns what it is told. Null for a request that does not
   * fit the barrier (an index out of range, or another count than the first shard's).
   */
  arrive(shard: number, of: number): BarrierAnswer | null {
    if (!Number.isInteger(of) || of < 1 || !Number.isInteger(shard) || shard < 0 || shard >= of) {
      return null;
    }
    if (this.#of !== null && this.#of !== of) return null;
    this.#of = of;
    this.#seen.add(shard);
    if (this.#startAt === null && this.#seen.size === of) {
      this.#startAt = this.#now() + BARRIER_LEAD_MS;
    }
    return this.#startAt === null
      ? { ready: false, seen: this.#seen.size, of }
      : { ready: true, start_at_ms: this.#startAt };
  }
}
