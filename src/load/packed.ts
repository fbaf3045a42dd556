/**
 * The request bodies of a run packed once into shared memory. Every Worker reads the same bytes:
 * a SharedArrayBuffer is shared, not copied, by `postMessage`, where an array of strings would be
 * cloned into each Worker (a 200 MiB dataset cost ~400 MiB more per Worker that way).
 */

import type { PlannedConversation } from "../plan/types.ts";
import type { Body } from "../util/body_store.ts";
import { utf8Length } from "../util/utf8.ts";

/**
 * Bodies as UTF-8 bytes in shared memory; body `i` is
 * `blocks[spans[3i]].subarray(spans[3i + 1], spans[3i + 2])`.
 */
export interface PackedBodies {
  /**
   * Blocks of bytes on SharedArrayBuffers: the bodies given as text, back to back in the first;
   * then the blocks of a `BodyStore` that held bodies already, as they are.
   */
  blocks: Uint8Array[];
  /** Per body its block, start and end (doubles: a block may pass 4 GiB), shared too. */
  spans: Float64Array;
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

/**
 * Packs `bodies` into shared memory, in order: text is encoded into one new block, a body some
 * `BodyStore` holds stays where it is (its block is shared, not copied).
 */
export function packBodies(bodies: readonly Body[]): PackedBodies {
  const spans = new Float64Array(new SharedArrayBuffer(bodies.length * 3 * 8));
  // Exact sizes first, so the text's block is allocated once at its final size.
  let total = 0;
  const blocks: Uint8Array[] = [];
  const blockIndex = new Map<Uint8Array, number>();
  for (let i = 0; i < bodies.length; i++) {
    const b = bodies[i];
    if (typeof b === "string") {
      spans[3 * i + 1] = total;
      total += utf8Length(b);
      spans[3 * i + 2] = total;
    } else {
      const [block, start, end] = b.store.span(b.index);
      const bytes = b.store.blocks[block];
      let at = blockIndex.get(bytes);
      if (at === undefined) {
        // Block 0 is the text's.
        at = blocks.length + 1;
        blockIndex.set(bytes, at);
        blocks.push(bytes);
      }
      spans[3 * i] = at;
      spans[3 * i + 1] = start;
      spans[3 * i + 2] = end;
    }
  }
  const text = new Uint8Array(new SharedArrayBuffer(total));
  for (let i = 0; i < bodies.length; i++) {
    const b = bodies[i];
    if (typeof b === "string") {
      encoder.encodeInto(b, text.subarray(spans[3 * i + 1], spans[3 * i + 2]));
    }
  }
  return { blocks: [text, ...blocks], spans };
}

/** How many bodies are packed. */
export function bodyCount(packed: PackedBodies): number {
  return packed.spans.length / 3;
}

/**
 * Body `index`, a view of the shared bytes: read it, never write it. A transport that needs a
 * private copy makes one (fetch refuses views on shared memory); the HTTP/1.1 transport copies
 * it into the request message it writes anyway.
 */
export function bodyBytes(packed: PackedBodies, index: number): Uint8Array {
  const s = packed.spans;
  return packed.blocks[s[3 * index]].subarray(s[3 * index + 1], s[3 * index + 2]);
}

/** Splits planned conversations into per-conversation metadata and one shared set of bodies. */
export function packConversations(conversations: readonly PlannedConversation[]): WorkerDataset {
  const all: Body[] = [];
  const metas = conversations.map((c): WorkerConversation => {
    const { bodies, ...meta } = c;
    const firstBody = all.length;
    for (const b of bodies) all.push(b);
    return { ...meta, turns: bodies.length, firstBody };
  });
  return { conversations: metas, bodies: packBodies(all) };
}
