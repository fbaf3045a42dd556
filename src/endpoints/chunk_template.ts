/**
 * Streamed chunks that differ only in their text: servers repeat the id, model, timestamp and
 * the rest of the shape in every chunk, so once one chunk is known to be "this JSON with the
 * text string here", a later chunk with the same text before and after that string is read by
 * comparing those two ends and taking what lies between, without parsing it.
 */

import type { Parsed } from "./parsed.ts";

/** A chunk cut around its text string: `prefix` ends at the opening quote, `suffix` starts at the closing one. */
export interface ChunkTemplate {
  prefix: string;
  suffix: string;
  /**
   * Chunks that also carry a counter (the Responses API's `sequence_number`): the part of the
   * prefix or suffix up to the counter's digits is `prefix` or `suffix`, the rest is here.
   */
  counter?: { inPrefix: boolean; rest: string };
  /** Chunks read by this template: one replaced before reading any was a wrong guess. */
  reads: number;
  /** The SSE event type of the chunks it reads ("" for untyped events). */
  event: string;
}

const QUOTE = 34;
const BACKSLASH = 92;

/**
 * True when `text` holds no quote, backslash or control character, so that it stands for itself
 * inside a JSON string. A loop: for the few characters of a token, `indexOf` calls cost several
 * times more.
 */
export function plainJsonText(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!plainJsonChar(text.charCodeAt(i))) return false;
  return true;
}

/** True for a character that stands for itself inside a JSON string: no quote, backslash or control character. */
export function plainJsonChar(c: number): boolean {
  return c !== QUOTE && c !== BACKSLASH && c >= 32;
}

/** The index of the quote that closes the JSON string whose text starts at `start`; -1 if none. */
export function stringEnd(data: string, start: number): number {
  for (let i = start; i < data.length;) {
    const c = data.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (c === QUOTE) return i;
    else i++;
  }
  return -1;
}

/**
 * Where `"` + `bare` first occurs in `data` at or after `from`: `data.indexOf('"' + bare, from)`,
 * at about half the cost on JSON text. V8 finds a pattern's first character with memchr and
 * checks the rest at each hit; a quote is everywhere in JSON, the rest of a key is rare.
 */
export function indexOfQuoted(data: string, bare: string, from = 0): number {
  for (let i = data.indexOf(bare, from + 1); i !== -1; i = data.indexOf(bare, i + 1)) {
    if (data.charCodeAt(i - 1) === QUOTE) return i - 1;
  }
  return -1;
}

/**
 * A copy of `s` that does not keep alive the larger string it was sliced from (for a template
 * kept as long as its stream lasts, or text kept until the next read).
 */
export function ownCopy(s: string): string {
  return (" " + s).slice(1);
}

/**
 * The text of `data` when it has `t`'s two ends and plain text between them; null otherwise
 * (including when there is no template yet).
 */
export function textByTemplate(data: string, t: ChunkTemplate | undefined): string | null {
  if (t === undefined) return null;
  if (t.counter !== undefined) return textByCountedTemplate(data, t, t.counter);
  if (endsMatch(data, 0, data.length, t)) {
    const text = data.slice(t.prefix.length, data.length - t.suffix.length);
    if (plainJsonText(text)) return text;
  }
  return null;
}

/**
 * True when `s.slice(from, to)` is `t`'s prefix, then anything, then its suffix (for a template
 * without a counter). Slicing and comparing with `===` is several times cheaper than
 * startsWith in V8.
 */
function endsMatch(s: string, from: number, to: number, t: ChunkTemplate): boolean {
  const start = from + t.prefix.length;
  const cut = to - t.suffix.length;
  return cut >= start && s.slice(from, start) === t.prefix && s.slice(cut, to) === t.suffix;
}

/** The end of the digits at `at` (at least one); -1 when there are none. */
export function digitsEnd(data: string, at: number): number {
  let i = at;
  for (; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c < 48 || c > 57) break;
  }
  return i > at ? i : -1;
}

/** `textByTemplate` for a template with a counter: the two ends are compared around its digits. */
function textByCountedTemplate(
  data: string,
  t: ChunkTemplate,
  counter: { inPrefix: boolean; rest: string },
): string | null {
  const prefix = t.prefix;
  if (data.slice(0, prefix.length) !== prefix) return null;
  let start = prefix.length;
  if (counter.inPrefix) {
    const d = digitsEnd(data, start);
    if (d === -1 || data.slice(d, d + counter.rest.length) !== counter.rest) return null;
    start = d + counter.rest.length;
  }
  const end = stringEnd(data, start);
  if (end === -1) return null;
  const suffix = t.suffix;
  if (counter.inPrefix) {
    if (data.length - end !== suffix.length || data.slice(end) !== suffix) return null;
  } else {
    if (data.slice(end, end + suffix.length) !== suffix) return null;
    const d = digitsEnd(data, end + suffix.length);
    if (d === -1 || data.length - d !== counter.rest.length || data.slice(d) !== counter.rest) {
      return null;
    }
  }
  const text = data.slice(start, end);
  return plainJsonText(text) ? text : null;
}

/**
 * The template of `data`, a chunk whose full reading gave text only: the string value after the
 * one occurrence of `key` (such as `"text":"`), checked by reading the chunk again with two
 * other texts in its place, which must come back as that text and nothing else. Null when the
 * chunk does not have that shape.
 */
export function probeTemplate(
  data: string,
  key: string,
  read: (data: string) => Parsed | null,
  counterKey?: string,
): ChunkTemplate | null {
  const at = data.indexOf(key);
  if (at === -1 || data.indexOf(key, at + key.length) !== -1) return null;
  const start = at + key.length;
  const end = stringEnd(data, start);
  if (end === -1) return null;
  const prefix = data.slice(0, start);
  const suffix = data.slice(end);
  // The counter's digits, when the chunk has exactly one counter: [from, to) in `data`.
  let from = -1;
  let to = -1;
  if (counterKey !== undefined) {
    const c = data.indexOf(counterKey);
    if (c !== -1 && data.indexOf(counterKey, c + counterKey.length) === -1) {
      from = c + counterKey.length;
      to = digitsEnd(data, from);
      // A counter inside the text string itself is no counter.
      if (to === -1 || (from >= start && from <= end)) from = to = -1;
    }
  }
  /** The chunk with `text` as its text and `n` as its counter. */
  const variant = (text: string, n: string): string =>
    from === -1
      ? prefix + text + suffix
      : from < start
      ? data.slice(0, from) + n + data.slice(to, start) + text + suffix
      : prefix + text + data.slice(end, from) + n + data.slice(to);
  for (const [probe, n] of [["x", "7"], ["y z", "1234567"]]) {
    let p: Parsed | null;
    try {
      p = read(variant(probe, n));
    } catch {
      return null;
    }
    if (
      p === null || p.text !== probe || p.reasoning !== undefined || p.usage !== undefined ||
      p.error !== undefined || p.done !== undefined || p.answered !== undefined
    ) return null;
  }
  if (from === -1) return { prefix: ownCopy(prefix), suffix: ownCopy(suffix), reads: 0, event: "" };
  if (from < start) {
    return {
      prefix: ownCopy(data.slice(0, from)),
      suffix: ownCopy(suffix),
      counter: { inPrefix: true, rest: ownCopy(data.slice(to, start)) },
      reads: 0,
      event: "",
    };
  }
  return {
    prefix: ownCopy(prefix),
    suffix: ownCopy(data.slice(end, from)),
    counter: { inPrefix: false, rest: ownCopy(data.slice(to)) },
    reads: 0,
    event: "",
  };
}

/**
 * Chunks of a stream that may fail to give a template, or give one no later chunk matched (a
 * field that changes with every chunk), before the stream is read in full throughout: a chunk
 * that is learnt from is read three times.
 */
const MAX_PROBE_FAILURES = 3;

/**
 * A stream's template for one kind of event, learnt from its text-only chunks: a chunk that
 * does not match gets read in full and, when it was text only, becomes the new template.
 */
export class TemplateSlot {
  #template: ChunkTemplate | undefined;
  #failures = 0;

  /** The text of `data` by the template of events of type `event`; null when it does not match. */
  text(data: string, event = ""): string | null {
    const t = this.#template;
    const text = t !== undefined && event === t.event ? textByTemplate(data, t) : null;
    if (text !== null) t!.reads++;
    return text;
  }

  /**
   * The template, for reading chunks in place (`EndpointFastPath.textTemplate`); the reader counts the
   * chunks it reads with it in `reads`.
   */
  get template(): ChunkTemplate | undefined {
    return this.#template;
  }

  /**
   * Makes `data`, an event of type `event` whose full reading gave text only, the template.
   * `read` reads an event's data in full, as the endpoint does. With `counterKey`, the number
   * after it may change from chunk to chunk.
   */
  learn(
    data: string,
    key: string,
    read: (data: string) => Parsed | null,
    event = "",
    counterKey?: string,
  ): void {
    if (this.#failures >= MAX_PROBE_FAILURES) return;
    // A template that no chunk matched was a failure too.
    if (this.#template !== undefined && this.#template.reads === 0) this.#failures++;
    const t = probeTemplate(data, key, read, counterKey);
    if (t === null) {
      this.#failures++;
      return;
    }
    t.event = event;
    this.#template = t;
  }
}
