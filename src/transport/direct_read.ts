/**
 * Reads of a connection straight through Deno's read op, where this runtime exposes it, with
 * `Conn.read` as the fallback. The op is private (`Deno[Deno.internal].core.read`, and the
 * connection's resource id under a symbol): this file alone touches it, and
 * `--plain-paths direct-read` turns it off.
 */

import { fast } from "../util/fast_paths.ts";

/**
 * Deno's own read of a resource, `(rid, buffer) => Promise<bytes read, 0 at its end>`, when this
 * runtime exposes it; null otherwise. `Conn.read` wraps it in an async function that also adds
 * its promise to a Set and deletes it after: per read, a generator, a second promise, more turns
 * of the microtask queue, and a hash table the Set makes anew on each delete. A read waits across
 * young collections, so these were about half of what the Worker's young collections kept and
 * moved to the old generation at 512 streams (a sampling heap profile of surviving objects), and
 * the Worker's full collections fell from 6 to 2 in a 100,000-request run without them. Reading
 * through the op directly skips all of that; `Conn.read` stays the fallback (`directReads`,
 * `--plain-paths direct-read`).
 */
const coreRead: ((rid: number, buf: Uint8Array) => Promise<number>) | null = (() => {
  const internal = (Deno as unknown as Record<symbol, { core?: { read?: unknown } } | undefined>)[
    (Deno as unknown as { internal: symbol }).internal
  ];
  const read = internal?.core?.read;
  return typeof read === "function"
    ? read as (rid: number, buf: Uint8Array) => Promise<number>
    : null;
})();

/** The resource id of `conn`, where Deno keeps it for its own use; null when not found. */
function ridOf(conn: Deno.Conn): number | null {
  for (const sym of Object.getOwnPropertySymbols(conn)) {
    if (sym.description === "Deno.internal.rid") {
      const rid = (conn as unknown as Record<symbol, unknown>)[sym];
      return typeof rid === "number" ? rid : null;
    }
  }
  return null;
}

/**
 * The resource id to read `conn` through the op with, or -1 to read through `conn.read`: when
 * `direct` is false, `--plain-paths direct-read` turned the op off, or this runtime lacks it.
 */
export function directRid(conn: Deno.Conn, direct: boolean): number {
  return !direct || coreRead === null || !fast("direct-read") ? -1 : ridOf(conn) ?? -1;
}

/**
 * Reads `conn` into `into`: through the op with `rid` (from {@link directRid}), or `conn.read`
 * when it is -1. Resolves with the bytes read, 0 or null at the end of the stream.
 */
export function readConn(conn: Deno.Conn, rid: number, into: Uint8Array): Promise<number | null> {
  return rid === -1 ? conn.read(into) : coreRead!(rid, into);
}
