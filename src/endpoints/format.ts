/** Pieces shared by the endpoints' `formatPayload`: extras merging, media parsing, checks. */

import type { FormatOptions, TurnInput } from "./types.ts";

/** An audio clip split into its format and base64 data. */
export interface AudioClip {
  format: string;
  data: string;
}

/**
 * Splits AIPerf's `format,base64` audio spelling; bare base64 (which never holds a comma) is
 * taken as wav, the format AIPerf generates by default.
 */
export function audioClip(audio: string): AudioClip {
  const i = audio.indexOf(",");
  if (i <= 0) return { format: "wav", data: audio };
  return { format: audio.slice(0, i), data: audio.slice(i + 1) };
}

/** The body with `--extra-inputs` merged into its top level last, so the user's fields win. */
export function withExtras(
  body: Record<string, unknown>,
  opts: FormatOptions,
): Record<string, unknown> {
  return { ...body, ...opts.extraInputs };
}

/** Throws when the turn carries media the API cannot take. */
export function rejectMedia(
  type: string,
  turn: TurnInput,
  kinds: ("images" | "audios")[],
): void {
  for (const kind of kinds) {
    if ((turn[kind]?.length ?? 0) > 0) {
      throw new Error(`the ${type} endpoint cannot send ${kind === "images" ? "images" : "audio"}`);
    }
  }
}

/** The turn's texts, history and system text as one prompt, for APIs without roles. */
export function flatPrompt(turn: TurnInput): string {
  const parts: string[] = [];
  if (turn.system) parts.push(turn.system);
  for (const m of turn.history ?? []) parts.push(m.content);
  parts.push(...turn.texts);
  return parts.join("\n\n");
}

/** True when a turn is plain text in one piece: APIs then take a bare string as content. */
export function isPlainText(turn: TurnInput): boolean {
  return turn.texts.length === 1 && (turn.images?.length ?? 0) === 0 &&
    (turn.audios?.length ?? 0) === 0 && (turn.videos?.length ?? 0) === 0;
}
