/**
 * A dataset entry's body as the per-entry metrics read it (input tokens, requested output
 * tokens, media): decoded and parsed once for all of them, and only the last entry's kept, so a
 * run of bodies heavy with media does not decode and parse each one three times over.
 */

import type { Body } from "../util/body_store.ts";

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
/** `"data:image/` in UTF-8: where an image's data URL starts in a body's bytes. */
const IMAGE_URL = new TextEncoder().encode('"data:image/');
const QUOTE = 0x22;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;

/**
 * A body's text as the per-entry metrics read it: a stored body is decoded with each image's
 * base64 data left out of its data URL (`"data:image/png;base64,"`). None of these metrics reads
 * an image's data (an image counts as one, its tokens are not counted from its URL), and a body
 * of a megabyte of images is then not decoded and parsed whole at each entry, garbage that piled
 * up while a run's records arrived.
 */
export function metricsText(body: Body): string {
  if (typeof body === "string") return body;
  const bytes = body.store.bytes(body.index);
  let out = "";
  let from = 0;
  let at = indexOf(bytes, IMAGE_URL, 0);
  while (at >= 0) {
    const end = bytes.indexOf(QUOTE, at + IMAGE_URL.length);
    if (end < 0) break;
    const comma = bytes.indexOf(COMMA, at + IMAGE_URL.length);
    // A quote after a backslash is in a string, not the start of one.
    if (comma >= 0 && comma < end && (at === 0 || bytes[at - 1] !== BACKSLASH)) {
      out += decoder.decode(bytes.subarray(from, comma + 1));
      from = end;
    }
    at = indexOf(bytes, IMAGE_URL, end + 1);
  }
  return out + decoder.decode(bytes.subarray(from));
}

/** Where `needle` first occurs in `bytes` from `from`, or -1. */
function indexOf(bytes: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  for (let i = bytes.indexOf(first, from); i >= 0; i = bytes.indexOf(first, i + 1)) {
    if (i + needle.length > bytes.length) return -1;
    let j = 1;
    while (j < needle.length && bytes[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/** The body text and JSON of the entry last asked for. */
export class EntryBodies {
  #conversations: readonly { bodies: readonly Body[] }[];
  #conv = -1;
  #turn = -1;
  #text: string | undefined;
  #parsed = false;
  #json: unknown;
  #error: unknown;

  /** @param conversations the run's conversations, as planned (their bodies). */
  constructor(conversations: readonly { bodies: readonly Body[] }[]) {
    this.#conversations = conversations;
  }

  /** The conversations read from. */
  get conversations(): readonly { bodies: readonly Body[] }[] {
    return this.#conversations;
  }

  /**
   * The text of turn `turn` of conversation `conv` (`metricsText`: images without their data);
   * undefined when there is no such turn.
   */
  text(conv: number, turn: number): string | undefined {
    if (conv !== this.#conv || turn !== this.#turn) {
      const body = this.#conversations[conv]?.bodies[turn];
      this.#text = body === undefined ? undefined : metricsText(body);
      this.#conv = conv;
      this.#turn = turn;
      this.#parsed = false;
      this.#json = undefined;
      this.#error = undefined;
    }
    return this.#text;
  }

  /** That body parsed; throws what `JSON.parse` throws for one that is not JSON (or absent). */
  json(conv: number, turn: number): unknown {
    const text = this.text(conv, turn);
    if (!this.#parsed) {
      this.#parsed = true;
      try {
        this.#json = JSON.parse(text as string);
      } catch (e) {
        this.#error = e;
      }
    }
    if (this.#error !== undefined) throw this.#error;
    return this.#json;
  }
}
