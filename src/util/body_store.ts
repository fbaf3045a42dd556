/**
 * Request bodies kept once, as UTF-8 in shared memory, added as they are built. A run heavy with
 * media (a thousand bodies of a megabyte each) would otherwise hold every body twice: as the main
 * thread's string and as the shared bytes the Workers send from. A stored body's bytes are what
 * the Workers send; the main thread decodes its text back when it needs it (inputs.json, the
 * per-entry metrics) and lets it go.
 */

import { utf8Length } from "./utf8.ts";

/** Bytes of shared memory taken at a time; a larger body gets a block of its own size. */
const BLOCK = 64 << 20;
const encoder = new TextEncoder();
// A leading U+FEFF is part of a body: decoding gives back exactly the text stored.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** A body held in a {@link BodyStore}: where it is, not its text. */
export interface StoredBody {
  readonly store: BodyStore;
  readonly index: number;
}

/** A request body: its text, or where a {@link BodyStore} holds it. */
export type Body = string | StoredBody;

/** Blocks of shared memory that bodies are appended to, each body in one block. */
export class BodyStore {
  #blocks: Uint8Array[] = [];
  /** Per body: its block, start and end, in a row. */
  #spans: number[] = [];
  #used = 0;
  #blockBytes: number;

  /** @param blockBytes shared memory taken at a time (a larger body gets a block of its size) */
  constructor(blockBytes = BLOCK) {
    this.#blockBytes = blockBytes;
  }

  /** Encodes `text` into shared memory; the caller keeps the returned place, not the text. */
  add(text: string): StoredBody {
    const n = utf8Length(text);
    let block = this.#blocks.at(-1);
    if (block === undefined || this.#used + n > block.length) {
      block = new Uint8Array(new SharedArrayBuffer(Math.max(this.#blockBytes, n)));
      this.#blocks.push(block);
      this.#used = 0;
    }
    encoder.encodeInto(text, block.subarray(this.#used, this.#used + n));
    const index = this.#spans.length / 3;
    this.#spans.push(this.#blocks.length - 1, this.#used, this.#used + n);
    this.#used += n;
    return { store: this, index };
  }

  /** The shared blocks, in order; a body's {@link span} names one of them. */
  get blocks(): readonly Uint8Array[] {
    return this.#blocks;
  }

  /** Where body `index` is: its block's position in {@link blocks}, its start and its end. */
  span(index: number): [block: number, start: number, end: number] {
    const s = this.#spans;
    return [s[3 * index], s[3 * index + 1], s[3 * index + 2]];
  }

  /** Body `index`'s bytes, a view of the shared memory: read them, never write them. */
  bytes(index: number): Uint8Array {
    const [block, start, end] = this.span(index);
    return this.#blocks[block].subarray(start, end);
  }

  /** Body `index`'s text, decoded anew at each call. */
  text(index: number): string {
    return decoder.decode(this.bytes(index));
  }
}

/** The text of `body`: itself, or decoded from its store. */
export function bodyText(body: Body): string {
  return typeof body === "string" ? body : body.store.text(body.index);
}
