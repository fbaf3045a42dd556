/**
 * The request bodies of a run packed once into shared memory. Every Worker reads the same bytes:
 * a SharedArrayBuffer is shared, not copied, by `postMessage`, where an array of strings would be
 * cloned into each Worker (a 200 MiB dataset cost ~400 MiB more per Worker that way).
 */

import type { PlannedConversation } from "../plan/types.ts";
import { utf8Length } from "../util/utf8.ts";

/** Bodies as UTF-8 bytes in shared memory; body `i` is `bytes[offsets[i] .. offsets[i + 1])`. */
export interface PackedBodies {
  /** Every body's UTF-8 bytes, back to back, on a SharedArrayBuffer. */
  bytes: Uint8Array;
  /** `count + 1` byte offsets into `bytes` (doubles: a dataset may pass 4 GiB), shared too. */
  offsets: Float64Array;
}

/** A conversation as a Worker holds it: everything but the bodies, which are packed. */
export interface WorkerConversation extends Omit<PlannedConversation, "bodies"> {
  /** Number of turns. */
  turns: number;
  /** Index in the packed bodies of the first turn's body; the others follow it. */
  firstBody: number;
}

/** What every Worker is given: the conversations' metadata and their shared bodies. */
export interface WorkerDataset {
  conversations: WorkerConversation[];
  bodies: PackedBodies;
}

const encoder = new TextEncoder();

/** Packs `bodies` into shared memory, in order. */
export function packBodies(bodies: readonly string[]): PackedBodies {
  const offsets = new Float64Array(new SharedArrayBuffer((bodies.length + 1) * 8));
  // Exact sizes first, so the shared buffer is allocated once at its final size.
  let total = 0;
  for (let i = 0; i < bodies.length; i++) {
    offsets[i] = total;
    total += utf8Length(bodies[i]);
  }
  offsets[bodies.length] = total;
  const bytes = new Uint8Array(new SharedArrayBuffer(total));
  for (let i = 0; i < bodies.length; i++) {
    encoder.encodeInto(bodies[i], bytes.subarray(offsets[i], offsets[i + 1]));
  }
  return { bytes, offsets };
}

/** How many bodies are packed. */
export function bodyCount(packed: PackedBodies): number {
  return packed.offsets.length - 1;
}

/**
 * Body `index`, a view of the shared bytes: read it, never write it. A transport that needs a
 * private copy makes one (fetch refuses views on shared memory); the HTTP/1.1 transport copies
 * it into the request message it writes anyway.
 */
export function bodyBytes(packed: PackedBodies, index: number): Uint8Array {
  return packed.bytes.subarray(packed.offsets[index], packed.offsets[index + 1]);
}

/** Splits planned conversations into per-conversation metadata and one shared set of bodies. */
export function packConversations(conversations: readonly PlannedConversation[]): WorkerDataset {
  const all: string[] = [];
  const metas = conversations.map((c): WorkerConversation => {
    const { bodies, ...meta } = c;
    const firstBody = all.length;
    for (const b of bodies) all.push(b);
    return { ...meta, turns: bodies.length, firstBody };
  });
  return { conversations: metas, bodies: packBodies(all) };
}
