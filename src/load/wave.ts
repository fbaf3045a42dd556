/**
 * A phase's first wave, started in groups a turn of the event loop apart.
 *
 * Deno's runtime completes a bounded number of socket operations in one turn of a thread's event
 * loop: about 128 (tokio's cooperative budget; reads and writes that complete both count). A
 * request written beyond that waits, already stamped as started, until the turn's remaining work
 * is done and the next turn begins. A Worker starting 256 slots at once had its last 128 requests
 * reach the server 3-4 ms after their stamps, in every run (bench/fidelity.ts, 256 streams): that
 * wait was inside their TTFT, and it was most of reprise's TTFT p99 at that scale. In groups of
 * {@link WAVE_GROUP}, each group a turn after the one before, every request is written when it is
 * stamped; the wave takes a few ms longer to start.
 */

/** Slots started in one turn: half the runtime's budget, leaving room for the reads the turn completes. */
export const WAVE_GROUP = 64;

/** The next turn of the event loop, which begins with a fresh budget (a timer's turn). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Calls `start` `count` times, at most `group` calls a turn (Infinity: all at once), and resolves
 * once every started promise has, or rejects with the first rejection.
 */
export async function startGrouped<T>(
  count: number,
  start: () => Promise<T>,
  group: number,
): Promise<T[]> {
  const started: Promise<T>[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0 && i % group === 0) await nextTurn();
    const p = start();
    // Handled now: a slot failing while later groups wait is reported by the Promise.all below.
    p.catch(() => {});
    started.push(p);
  }
  return await Promise.all(started);
}
