/**
 * Stream events read before, recognized in a read's bytes: a server opens and closes every answer
 * with the same few events (the chat role chunk, the finish chunk, the usage chunk), which differ
 * from one answer to the next only in the answer's id and creation time. Such an event is
 * compared byte by byte with one read as text earlier, those values aside, and what that one
 * meant is applied again: no decoding, no line splitting, no JSON reading.
 *
 * The same holds for an answer's first text chunk, which differs from an earlier answer's first one
 * in those values and in its text: the text template that reading the earlier one set
 * (`EndpointFastPath.textTemplate`) is kept with its event's bytes, and a later answer's first text chunk
 * that is an instance of it (plain ASCII text between the same two ends) gets the template without
 * being read as text.
 *
 * An endpoint opts in by naming the keys whose values may differ (`EndpointFastPath.volatileKeys`): only
 * top-level keys that come before the first object or array value of the event's JSON, whose
 * value is a string without escapes or a number, and that its reading ignores.
 */

import { type ChunkTemplate, plainJsonChar } from "../endpoints/chunk_template.ts";
import type { Parsed } from "../endpoints/types.ts";
import { sameBytes } from "../util/bytes.ts";

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const COMMA = 44;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const LF = 10;
const CR = 13;

/** `data: {` */
const DATA_OBJECT = [100, 97, 116, 97, 58, 32, 123];
/** Bytes of `data: `, what opens an untyped event. */
export const DATA_LEAD = DATA_OBJECT.length - 1;

/** Events kept per endpoint; a new one replaces the oldest. */
const CAPACITY = 16;
/** Longer events are not kept. */
const MAX_EVENT = 2048;

/** Text templates kept per endpoint; a new one replaces the oldest. */
const TEMPLATE_CAPACITY = 4;

/** Bytes with volatile values in them, compared by `same`. */
interface Cut {
  bytes: Uint8Array;
  /** `bytes` read four at a time by `same`. */
  view: DataView;
  /** Start and end (exclusive) of each volatile value in `bytes`, in order. */
  cuts: number[];
  /** Per volatile value: true for a string, false for a number. */
  strings: boolean[];
}

/** One event read before: its bytes, where its volatile values lie, and what it meant. */
interface Known extends Cut {
  parsed: Parsed;
}

/**
 * A stream's text template (`EndpointFastPath.textTemplate`) learned from an event read as text: the
 * event's head up to its text (`data: ` and the template's prefix) with its volatile values cut
 * out, and the template's suffix.
 */
export interface KnownTemplate extends Cut {
  suffix: string;
  suffixBytes: Uint8Array;
}

/** The bytes of `s` when every character is ASCII; null otherwise. */
function asciiBytes(s: string): Uint8Array | null {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128) return null;
    out[i] = c;
  }
  return out;
}

/** The events one endpoint's streams have been seen to repeat. */
export class KnownEvents {
  #keys: Uint8Array[];
  #known: Known[] = [];
  #next = 0;
  #templates: KnownTemplate[] = [];
  #nextTemplate = 0;
  /** Where the text of the event `matchTemplate` last matched ends. */
  textEnd = 0;

  /** @param keys the endpoint's volatile keys */
  constructor(keys: readonly string[]) {
    this.#keys = keys.map((k) => new TextEncoder().encode(k));
  }

  /** Where the event `matchAt` last recognized ends (after its blank line). */
  matchedEnd = 0;

  /**
   * What the event `b[from, end)` (from its `data:` line through its blank line) means, when it
   * is one read before but for its volatile values; null otherwise.
   */
  match(b: Uint8Array, from: number, end: number): Parsed | null {
    const p = this.matchAt(b, from, end);
    return p !== null && this.matchedEnd === end ? p : null;
  }

  /**
   * What the event that starts at `from` in `b[.., to)` means, when it is one read before but
   * for its volatile values (it then ends at `matchedEnd`); null otherwise. Its end is not looked
   * for first: a known event is one line and its blank line, and its volatile values hold no line
   * break (`same`), so bytes equal to one end where it ends. Looking for the end byte by byte
   * cost as much as the comparison (about 100 ns for a chat chunk).
   */
  matchAt(b: Uint8Array, from: number, to: number): Parsed | null {
    const known = this.#known;
    for (let k = 0; k < known.length; k++) {
      const e = known[k];
      const end = from + e.bytes.length;
      if (end <= to && b[end - 1] === LF && b[end - 2] === LF && same(e, b, from)) {
        this.matchedEnd = end;
        return e.parsed;
      }
    }
    return null;
  }

  /**
   * Keeps the event `b[from, end)`, which was read as text and meant `parsed`, for the events
   * like it that follow: one untyped `data:` line, a JSON object's with its volatile values cut
   * out, anything else's (the `[DONE]` marker) as it is; events of another shape are not kept.
   */
  learn(b: Uint8Array, from: number, end: number, parsed: Parsed): void {
    const n = end - from;
    if (n > MAX_EVENT || b[end - 1] !== LF || b[end - 2] !== LF) return;
    if (n <= DATA_LEAD + 2) return;
    for (let i = 0; i < DATA_LEAD; i++) if (b[from + i] !== DATA_OBJECT[i]) return;
    // One line: what lies between the object's head and the blank line is compared as it is.
    for (let i = from; i < end - 2; i++) if (b[i] === LF || b[i] === CR) return;
    const cuts: number[] = [];
    const strings: boolean[] = [];
    if (b[from + DATA_LEAD] === OPEN_BRACE && !this.#cutHead(b, from, end, cuts, strings)) return;
    if (this.match(b, from, end) !== null) return;
    const bytes = b.slice(from, end);
    const e: Known = { bytes, view: new DataView(bytes.buffer), cuts, strings, parsed };
    if (this.#known.length < CAPACITY) this.#known.push(e);
    else {
      this.#known[this.#next] = e;
      this.#next = (this.#next + 1) % CAPACITY;
    }
  }

  /**
   * Keeps the template `t` that the event `b[from, end)` set when it was read as text: an untyped
   * `data:` line that is `t`'s prefix, plain text and `t`'s suffix, all ASCII. A later answer's
   * first text event is then recognized in place (`matchTemplate`) rather than read as text.
   */
  learnTemplate(b: Uint8Array, from: number, end: number, t: ChunkTemplate): void {
    if (t.event !== "" || t.counter !== undefined || end - from > MAX_EVENT) return;
    const prefix = asciiBytes(t.prefix);
    const suffixBytes = asciiBytes(t.suffix);
    if (prefix === null || suffixBytes === null) return;
    const head = DATA_LEAD + prefix.length;
    const textEnd = end - 2 - suffixBytes.length;
    if (from + head > textEnd || b[end - 1] !== LF || b[end - 2] !== LF) return;
    for (let i = 0; i < DATA_LEAD; i++) if (b[from + i] !== DATA_OBJECT[i]) return;
    for (let i = 0; i < prefix.length; i++) if (b[from + DATA_LEAD + i] !== prefix[i]) return;
    for (let i = from + head; i < textEnd; i++) if (!plain(b[i])) return;
    for (let i = 0; i < suffixBytes.length; i++) if (b[textEnd + i] !== suffixBytes[i]) return;
    const cuts: number[] = [];
    const strings: boolean[] = [];
    // Volatile values are looked for in the head only: one running into the text is no value.
    if (!this.#cutHead(b, from, from + head, cuts, strings)) return;
    if (this.matchTemplate(b, from, end) !== null) return;
    const bytes = b.slice(from, from + head);
    const k: KnownTemplate = {
      bytes,
      view: new DataView(bytes.buffer),
      cuts,
      strings,
      suffix: t.suffix,
      suffixBytes,
    };
    if (this.#templates.length < TEMPLATE_CAPACITY) this.#templates.push(k);
    else {
      this.#templates[this.#nextTemplate] = k;
      this.#nextTemplate = (this.#nextTemplate + 1) % TEMPLATE_CAPACITY;
    }
  }

  /**
   * The template learned before that the event `b[from, end)` is an instance of, but for its
   * volatile values and its text (plain ASCII JSON text: no quote, backslash or control
   * character); null when none. Its text starts after the template's head (`from +
   * bytes.length`) and ends at `textEnd`.
   */
  matchTemplate(b: Uint8Array, from: number, end: number): KnownTemplate | null {
    const templates = this.#templates;
    if (b[end - 1] !== LF || b[end - 2] !== LF) return null;
    for (let k = 0; k < templates.length; k++) {
      const t = templates[k];
      const suffix = t.suffixBytes;
      const textEnd = end - 2 - suffix.length;
      if (from + t.bytes.length > textEnd || !same(t, b, from)) continue;
      let i = 0;
      while (i < suffix.length && b[textEnd + i] === suffix[i]) i++;
      if (i < suffix.length) continue;
      let j = from + t.bytes.length;
      while (j < textEnd && plain(b[j])) j++;
      if (j < textEnd) continue;
      this.textEnd = textEnd;
      return t;
    }
    return null;
  }

  /**
   * Finds the volatile values among the top-level keys before the first object or array value
   * (none: the event is known as it is); false when the head is not plain enough to say (escapes
   * in a key, a string value with escapes where a volatile value is).
   */
  #cutHead(b: Uint8Array, from: number, end: number, cuts: number[], strings: boolean[]): boolean {
    let i = from + DATA_OBJECT.length;
    while (i < end && b[i] === QUOTE) {
      const keyFrom = i + 1;
      let keyEnd = keyFrom;
      while (keyEnd < end && b[keyEnd] !== QUOTE) {
        if (b[keyEnd] === BACKSLASH) return false;
        keyEnd++;
      }
      if (keyEnd + 1 >= end || b[keyEnd + 1] !== COLON) return false;
      const volatile = this.#isKey(b, keyFrom, keyEnd);
      const at = keyEnd + 2;
      const c = b[at];
      if (c === OPEN_BRACE || c === OPEN_BRACKET) break;
      let stop: number;
      if (c === QUOTE) {
        stop = at + 1;
        let escaped = false;
        while (stop < end && b[stop] !== QUOTE) {
          if (b[stop] === BACKSLASH) {
            escaped = true;
            stop++;
          }
          stop++;
        }
        if (stop >= end) return false;
        stop++;
        if (volatile && escaped) return false;
      } else {
        stop = at;
        while (stop < end && b[stop] !== COMMA && b[stop] !== 125) stop++;
        if (volatile && !numeric(b, at, stop)) return false;
      }
      if (volatile) {
        cuts.push(at - from, stop - from);
        strings.push(c === QUOTE);
      }
      if (b[stop] !== COMMA) break;
      i = stop + 1;
    }
    return true;
  }

  #isKey(b: Uint8Array, from: number, to: number): boolean {
    for (const key of this.#keys) {
      if (key.length !== to - from) continue;
      let i = 0;
      while (i < key.length && key[i] === b[from + i]) i++;
      if (i === key.length) return true;
    }
    return false;
  }
}

/** True for an ASCII character that stands for itself in a JSON string. */
function plain(c: number): boolean {
  return c < 128 && plainJsonChar(c);
}

/** True for a JSON number's characters only: digits, sign, point, exponent. */
function numeric(b: Uint8Array, from: number, to: number): boolean {
  if (from === to) return false;
  for (let i = from; i < to; i++) {
    const c = b[i];
    if (!((c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69)) {
      return false;
    }
  }
  return true;
}

/**
 * True when `b` from `from` holds `e`'s bytes, but for its volatile values, which must be values
 * of the same kind and length: a string without quote, backslash or control character inside,
 * or a number's characters.
 */
function same(e: Cut, b: Uint8Array, from: number): boolean {
  const bytes = e.bytes;
  const cuts = e.cuts;
  let i = 0;
  for (let c = 0; c <= cuts.length; c += 2) {
    const stop = c < cuts.length ? cuts[c] : bytes.length;
    if (!sameBytes(bytes, e.view, b, from, stop, i)) return false;
    i = stop;
    if (c === cuts.length) break;
    const valueEnd = cuts[c + 1];
    if (e.strings[c >> 1]) {
      if (b[from + i] !== QUOTE || b[from + valueEnd - 1] !== QUOTE) return false;
      for (let j = i + 1; j < valueEnd - 1; j++) {
        const ch = b[from + j];
        if (ch === QUOTE || ch === BACKSLASH || ch < 32) return false;
      }
    } else if (!numeric(b, from + i, from + valueEnd)) return false;
    i = valueEnd;
  }
  return true;
}

/** The known events of each endpoint that has volatile keys, per thread. */
const byEndpoint = new Map<readonly string[], KnownEvents>();

/** The known events of an endpoint with these volatile keys. */
export function knownEventsFor(keys: readonly string[]): KnownEvents {
  let k = byEndpoint.get(keys);
  if (k === undefined) byEndpoint.set(keys, k = new KnownEvents(keys));
  return k;
}

/**
 * Forgets every endpoint's known events and templates: what the load's warm-up read in memory
 * (load/warm.ts) is not the server's, and would only be compared with its events in vain.
 */
export function forgetKnownEvents(): void {
  byEndpoint.clear();
}
