/**
 * Turns whose bodies live in a `BodyStore` (shared memory) instead of as strings: what a dataset
 * heavy with media is built into, so that its bodies are held once, as the bytes the Workers send.
 */

import { type BodyStore, bodyText } from "../util/body_store.ts";
import type { Conversation, Turn } from "./types.ts";

/**
 * Moves every turn's body of `conversation` into `store`, in place: each turn then keeps where its
 * body is (`stored`), and reading its `body` decodes the text anew.
 */
export function storeBodies(conversation: Conversation, store: BodyStore): Conversation {
  conversation.turns = conversation.turns.map((t) => storedTurn(t, store));
  return conversation;
}

function storedTurn(turn: Turn, store: BodyStore): Turn {
  const stored = store.add(turn.body);
  const { body: _text, ...rest } = turn;
  const out = { ...rest, stored } as Turn;
  Object.defineProperty(out, "body", { get: () => bodyText(stored), enumerable: true });
  return out;
}
