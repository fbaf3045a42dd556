/**
 * Runs of a stream's commonest events read from a read's bytes in WebAssembly
 * (`sse_scan.wat`), for `EventReader.readRunBytes`: no string is made of the bulk of a stream.
 *
 * Why: read as text, a streamed answer is first decoded into a string as long as the read (a
 * 256-token chat answer is 65 KB of events), which the garbage collector then has to clear; and
 * the ~200 bytes between two chunks' texts are compared by slicing that string. The module
 * compares them 16 bytes at a time and copies the texts out, about 27 ns per chunk against 55 for
 * decoding and comparing strings (measured on the mock's chat chunks, bench/notes/first-matrices.md), and the
 * read's string is never made.
 *
 * The module's memory holds, from address 64: one slot per stream in flight with the stream's
 * joint (what lies between two texts, `sse_scan.wat` says how it is read), then room for the
 * read being scanned (copied in once) and the texts it yields. Memory grows as streams or reads
 * need; each Worker has its own instance.
 */

import { SSE_SCAN_WASM } from "./sse_scan_wasm.ts";

type ScanFunction = (
  input: number,
  length: number,
  pos: number,
  joint: number,
  jointLength: number,
  lastLength: number,
  out: number,
) => number;

const instance = new WebAssembly.Instance(
  new WebAssembly.Module(Uint8Array.fromBase64(SSE_SCAN_WASM)),
);
const memory = instance.exports.memory as WebAssembly.Memory;
const scanExport = instance.exports.scan as ScanFunction;

const PAGE = 65536;
/** Where the joint slots start (the scan's results are at 0, 4 and 8). */
const SLOTS = 64;
/** Bytes of a joint slot: a longer joint is not read here. */
export const SLOT_BYTES = 512;
/** Slots added at a time. */
const SLOT_GROWTH = 128;
/** The longest read scanned here (a longer one is read as text). */
const MAX_INPUT = 4 << 20;

let bytes = new Uint8Array(memory.buffer);
let results = new Int32Array(memory.buffer, 0, 3);
let slotCount = 0;
const freeSlots: number[] = [];
/** Changes whenever the read's copy may have moved or been overwritten. */
let generation = 0;
let copied: Uint8Array | null = null;
let copiedFrom = 0;
let copiedTo = 0;
let copiedGeneration = -1;
/**
 * Reads up to this long are copied into the module's memory by a loop; longer ones by a view and
 * `set`, which cost less past about 32 bytes.
 */
const SHORT_COPY = 32;
/** Where the texts of the last scan start. */
let textAt = 0;

const encoder = new TextEncoder();

/** Where reads are copied: after the slots. */
function scratch(): number {
  return SLOTS + slotCount * SLOT_BYTES;
}

/** Grows the memory to at least `size` bytes. */
function reserve(size: number): void {
  const have = memory.buffer.byteLength;
  if (size <= have) return;
  memory.grow(Math.ceil((size - have) / PAGE));
  bytes = new Uint8Array(memory.buffer);
  results = new Int32Array(memory.buffer, 0, 3);
  generation++;
}

/** A joint slot for a stream (its address); give it back with `releaseSlot`. */
export function takeSlot(): number {
  if (freeSlots.length === 0) {
    for (let i = SLOT_GROWTH - 1; i >= 0; i--) freeSlots.push(SLOTS + (slotCount + i) * SLOT_BYTES);
    slotCount += SLOT_GROWTH;
    reserve(scratch());
    // The reads' room moved past the new slots.
    generation++;
  }
  return freeSlots.pop()!;
}

/** Gives back a slot from `takeSlot`. */
export function releaseSlot(slot: number): void {
  freeSlots.push(slot);
}

/**
 * Writes `joint` (as UTF-8) into `slot`; its length in bytes, or -1 when it does not fit.
 * `encodeInto` copies a joint of a few hundred characters in about a third of the time a loop
 * over its characters took (with the join of its parts it flattens).
 */
export function writeJoint(slot: number, joint: string): number {
  const { read, written } = encoder.encodeInto(joint, bytes.subarray(slot, slot + SLOT_BYTES));
  return read === joint.length ? written : -1;
}

/**
 * Writes into `slot` the joint of a template known as bytes: its suffix, the blank line, and the
 * head of an event of it, `event[from, to)` (`data: ` and the prefix); the joint's length in
 * bytes, or -1 when it does not fit.
 */
export function writeJointBytes(
  slot: number,
  suffix: Uint8Array,
  event: Uint8Array,
  from: number,
  to: number,
): number {
  const length = suffix.length + 2 + to - from;
  if (length > SLOT_BYTES) return -1;
  const b = bytes;
  let at = slot;
  for (let i = 0; i < suffix.length; i++) b[at++] = suffix[i];
  b[at++] = 10;
  b[at++] = 10;
  // The event's head (a chat chunk's is about 200 bytes) by a view and `set` (see SHORT_COPY).
  if (to - from > SHORT_COPY) b.set(event.subarray(from, to), at);
  else for (let i = from; i < to; i++) b[at++] = event[i];
  return length;
}

/**
 * Reads a run of events from the chunk `buf[from, to)` at `pos` (an index of `buf`, at least
 * `from`) with the joint in `slot` (`sse_scan.wat`); returns where it stopped (an index of `buf`),
 * or -1 for a read too long to scan. `fresh` says the chunk is not the one the last call copied
 * in. After a call that read events, `scanned()` tells what it found.
 */
export function scanRun(
  buf: Uint8Array,
  from: number,
  to: number,
  fresh: boolean,
  pos: number,
  slot: number,
  jointLength: number,
  lastLength: number,
): number {
  const n = to - from;
  if (n > MAX_INPUT) return -1;
  const input = scratch();
  if (
    fresh || copied !== buf || copiedFrom !== from || copiedTo !== to ||
    copiedGeneration !== generation
  ) {
    reserve(input + 2 * n);
    // A few bytes by a loop: a view would be one more object a read.
    if (n <= SHORT_COPY) {
      const b = bytes;
      for (let i = 0; i < n; i++) b[input + i] = buf[from + i];
    } else bytes.set(from === 0 && to === buf.length ? buf : buf.subarray(from, to), input);
    copied = buf;
    copiedFrom = from;
    copiedTo = to;
    copiedGeneration = generation;
  }
  textAt = input + n;
  const end = scanExport(input, n, pos - from, slot, jointLength, lastLength, textAt);
  return end < 0 ? end : end + from;
}

/** What a scan read: events, those with text, and where their texts lie (`bytes[from, +length)`). */
export interface Scanned {
  events: number;
  texts: number;
  bytes: Uint8Array;
  from: number;
  length: number;
}

/** The one answer `scanned()` fills in. */
const found: Scanned = { events: 0, texts: 0, bytes, from: 0, length: 0 };

/** What the last `scanRun` read; the object is reused by the next call. */
export function scanned(): Scanned {
  found.events = results[0];
  found.texts = results[1];
  found.bytes = bytes;
  found.from = textAt;
  found.length = results[2];
  return found;
}
