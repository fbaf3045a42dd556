/**
 * A dataset entry's body as the per-entry metrics read it (input tokens, requested output
 * tokens, media): decoded and parsed once for all of them, and only the last entry's kept, so a
 * run of bodies heavy with media does not decode and parse each one three times over.
 */

import { type Body, bodyText } from "../util/body_store.ts";

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

  /** The text of turn `turn` of conversation `conv`; undefined when there is no such turn. */
  text(conv: number, turn: number): string | undefined {
    if (conv !== this.#conv || turn !== this.#turn) {
      const body = this.#conversations[conv]?.bodies[turn];
      this.#text = body === undefined ? undefined : bodyText(body);
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
