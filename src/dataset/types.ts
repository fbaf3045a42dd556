/**
 * The dataset model every loader produces and the load engine consumes.
 *
 * A dataset is a list of conversations; a conversation is a list of turns run in order on one
 * concurrency slot. A turn carries the exact request body text to send: replay formats keep the
 * bytes they read, so what the server sees is what the file holds.
 */

import type { FormatOptions, TurnInput } from "../endpoints/types.ts";
import type { StoredBody } from "../util/body_store.ts";

/** One request of a conversation. */
export interface Turn {
  /** The request body, exactly as it is sent (JSON text). */
  body: string;
  /**
   * Where a `BodyStore` holds the body, when it does (bodies heavy with media): `body` then
   * decodes it anew at each read, and the run sends these bytes.
   */
  stored?: StoredBody;
  /** Milliseconds to wait after the previous turn's answer before sending this one. */
  delayMs?: number;
  /** Absolute send time in milliseconds from the schedule's start (trace replay). */
  timestampMs?: number;
  /** Where the turn came from, for error messages: `file:line` or `file: data[3].payloads[1]`. */
  origin?: string;
}

/** A session: turns sent one after another, each after the previous answer was read. */
export interface Conversation {
  /** The session id from the dataset, or one made up for it. */
  sessionId: string;
  turns: Turn[];
  /**
   * For bodies built from prompts with more than one turn (`deltas_without_responses`): what
   * the load engine needs to build each turn with the live answers of the earlier ones.
   */
  live?: LiveTurns;
}

/** What a loader returns. */
export interface Dataset {
  /** The custom dataset type that loaded it (`raw_payload`, `inputs_json`, …). */
  type: string;
  /** The file or directory it was read from. */
  source: string;
  conversations: Conversation[];
}

/** Thrown by loaders for input the user must fix; the CLI prints it and exits 3 (BAD_DATASET). */
export class DatasetError extends Error {
  /** @param message A full sentence naming the file, the line or path, and what was expected. */
  constructor(message: string) {
    super(message);
    this.name = "DatasetError";
  }
}

/** What a Worker needs to build the bodies of a live multi-turn conversation. */
export interface LiveTurns {
  /** The endpoint type whose `formatPayload` builds the bodies. */
  endpointType: string;
  options: FormatOptions;
  turns: { input: TurnInput; extra?: Record<string, unknown> }[];
}
