/**
 * AIPerf's `multi_turn` JSONL: one conversation per line, `{"session_id": …, "turns": [turn, …]}`
 * with single_turn fields in each turn. A leading text-only turn with `"role": "system"` is the
 * system prompt of every turn rather than a request. Later turns are sent with live history
 * (`deltas_without_responses`).
 */

import { buildConversation, type LoadContext, outputLengthFiller, requireFormat } from "./build.ts";
import { datasetError } from "./errors.ts";
import { stripRepeatedImages } from "./image_uuids.ts";
import { forEachLine } from "./lines.ts";
import { fileStem } from "./paths.ts";
import { parseRecord, recordTurn } from "./turn_fields.ts";
import type { Conversation, Dataset } from "./types.ts";

/** The `--custom-dataset-type` value. */
export const MULTI_TURN = "multi_turn";

/** Loads a multi_turn file; a line without `session_id` is `<file stem>-<line>`. */
export async function loadMultiTurn(path: string, ctx: LoadContext): Promise<Dataset> {
  const format = requireFormat(path, ctx, MULTI_TURN);
  const applyOutputLength = outputLengthFiller(ctx);
  const stem = fileStem(path);
  const conversations: Conversation[] = [];
  await forEachLine(path, (text, line) => {
    const rec = parseRecord(path, text, line);
    if (!Array.isArray(rec.turns) || rec.turns.length === 0) {
      throw datasetError(path, `line ${line}: expected a non-empty "turns" list`);
    }
    const turns = rec.turns.map((t, i) => {
      if (t === null || typeof t !== "object" || Array.isArray(t)) {
        throw datasetError(path, `line ${line}: turns[${i}] must be a JSON object`);
      }
      return recordTurn(t as Record<string, unknown>, path, line, `turns[${i}]`);
    });
    const first = turns[0].input;
    if (
      turns.length > 1 && first.role === "system" && !first.images && !first.audios && !first.videos
    ) {
      const system = first.texts.join("\n");
      turns.shift();
      for (const t of turns) t.input.system = system;
    }
    applyOutputLength(turns);
    if (ctx.uuidAndStrip) stripRepeatedImages(turns);
    const id = rec.session_id === undefined ? `${stem}-${line}` : String(rec.session_id);
    conversations.push(buildConversation(format, id, turns, path));
  });
  if (conversations.length === 0) {
    throw datasetError(path, "the file is empty: expected one conversation per line");
  }
  return { type: MULTI_TURN, source: path, conversations };
}
