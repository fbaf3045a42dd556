/**
 * The media each dataset entry's body carries, for the image and audio metrics: read once per
 * entry, off the Workers' request path, and only from bodies that may hold media (a text body
 * costs one substring search, once).
 */

import { mayHoldMedia, probeBody } from "../dataset/media/probe.ts";
import type { EntryBodies } from "./entry_body.ts";

/** Per entry: images and seconds of audio, or null for a body without them. */
export type EntryMedia = { images: number; audioSeconds: number } | null;

/** The media of a run's dataset entries, read on first use. */
export class MediaInputs {
  #bodies: EntryBodies;
  #cache: (EntryMedia | undefined)[][];

  /** @param bodies the run's entries' bodies (their conversations, as planned). */
  constructor(bodies: EntryBodies) {
    this.#bodies = bodies;
    this.#cache = bodies.conversations.map(() => []);
  }

  /** The media of turn `turn` of conversation `conv`. */
  of(conv: number, turn: number): EntryMedia {
    const row = this.#cache[conv];
    if (row === undefined) return null;
    const cached = row[turn];
    if (cached !== undefined) return cached;
    const body = this.#bodies.text(conv, turn);
    let media: EntryMedia = null;
    if (body !== undefined && mayHoldMedia(body)) {
      try {
        const found = probeBody(this.#bodies.json(conv, turn));
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
