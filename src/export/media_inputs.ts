/**
 * The media each dataset entry's body carries, for the image and audio metrics: read once per
 * entry, off the Workers' request path, and only from bodies that may hold media (a text body
 * costs one substring search, once).
 */

import { mayHoldMedia, probeBody } from "../dataset/media/probe.ts";
import { type Body, bodyText } from "../util/body_store.ts";

/** Per entry: images and seconds of audio, or null for a body without them. */
export type EntryMedia = { images: number; audioSeconds: number } | null;

/** The media of a run's dataset entries, read on first use. */
export class MediaInputs {
  #bodies: readonly { bodies: readonly Body[] }[];
  #cache: (EntryMedia | undefined)[][];

  /** @param conversations the run's conversations, as planned (their bodies). */
  constructor(conversations: readonly { bodies: readonly Body[] }[]) {
    this.#bodies = conversations;
    this.#cache = conversations.map(() => []);
  }

  /** The media of turn `turn` of conversation `conv`. */
  of(conv: number, turn: number): EntryMedia {
    const row = this.#cache[conv];
    if (row === undefined) return null;
    const cached = row[turn];
    if (cached !== undefined) return cached;
    const stored = this.#bodies[conv].bodies[turn];
    const body = stored === undefined ? undefined : bodyText(stored);
    let media: EntryMedia = null;
    if (body !== undefined && mayHoldMedia(body)) {
      try {
        const found = probeBody(JSON.parse(body));
        if (found && (found.images > 0 || found.audioSeconds > 0)) {
          media = { images: found.images, audioSeconds: found.audioSeconds };
        }
      } catch {
        media = null;
      }
    }
    row[turn] = media;
    return media;
  }
}
