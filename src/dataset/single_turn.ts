/**
 * AIPerf's `single_turn` JSONL: one turn per line (`text`/`texts`, media, `timestamp`/`delay`,
 * `role`, `output_length`, `extra`). Lines that share a `session_id` form one conversation, in
 * file order, sent with live history (`deltas_without_responses`); other lines are
 * conversations of their own.
 */

import { buildConversation, type LoadContext, outputLengthFiller, requireFormat } from "./build.ts";
import { datasetError } from "./errors.ts";
import { stripRepeatedImages } from "./image_uuids.ts";
import { forEachLine } from "./lines.ts";
import { fileStem } from "./paths.ts";
import { parseRecord, type RecordTurn, recordTurn } from "./turn_fields.ts";
import type { Dataset } from "./types.ts";

/** The `--custom-dataset-type` value. */
export const SINGLE_TURN = "single_turn";

/** Loads a single_turn file; session ids default to `<file stem>-<line>`. */
export async function loadSingleTurn(path: string, ctx: LoadContext): Promise<Dataset> {
  const format = requireFormat(path, ctx, SINGLE_TURN);
  const applyOutputLength = outputLengthFiller(ctx);
  const stem = fileStem(path);
  const sessions = new Map<string, RecordTurn[]>();
  await forEachLine(path, (text, line) => {
    const turn = recordTurn(parseRecord(path, text, line), path, line);
    const id = turn.sessionId ?? `${stem}-${line}`;
    const list = sessions.get(id);
    if (list) list.push(turn);
    else sessions.set(id, [turn]);
  });
  if (sessions.size === 0) {
    throw datasetError(path, "the file is empty: expected one JSON object per line");
  }
  for (const turns of sessions.values()) {
    applyOutputLength(turns);
    if (ctx.uuidAndStrip) stripRepeatedImages(turns);
  }
  return {
    type: SINGLE_TURN,
    source: path,
    conversations: [...sessions].map(([id, turns]) => buildConversation(format, id, turns, path)),
  };
}
