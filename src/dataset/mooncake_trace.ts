/**
 * AIPerf's `mooncake_trace` JSONL. Each line is one request: `input_length` (with `hash_ids`,
 * blocks of 512 tokens: the same id is the same text, so requests share prefixes), `text_input`,
 * `messages` (a chat message array, sent as is: `message_array_with_responses`) or `payload`
 * (a whole body, verbatim); plus `output_length`, `timestamp` (ms) or `delay`, `session_id`,
 * `extra`. Lines sharing a `session_id` are one conversation; prompt-built ones are sent with
 * live history.
 */

import { buildBody, buildConversation, type LoadContext, type PromptTurn } from "./build.ts";
import { requireFormat } from "./build.ts";
import { datasetError } from "./errors.ts";
import { forEachLine } from "./lines.ts";
import { fileStem } from "./paths.ts";
import { PromptSource } from "./prompts.ts";
import { parseRecord } from "./turn_fields.ts";
import type { Conversation, Dataset, Turn } from "./types.ts";

/** The `--custom-dataset-type` value. */
export const MOONCAKE_TRACE = "mooncake_trace";

/** Tokens per hash block, as in the Mooncake traces. */
export const HASH_BLOCK_TOKENS = 512;

interface Row extends PromptTurn {
  /** A body given whole (`payload`, or built from `messages`). */
  body?: string;
}

/** Loads a mooncake_trace file; rows without `session_id` are conversations of their own. */
export async function loadMooncakeTrace(path: string, ctx: LoadContext): Promise<Dataset> {
  const format = requireFormat(path, ctx, MOONCAKE_TRACE);
  const prompts = new PromptSource(ctx.seed);
  const stem = fileStem(path);
  const sessions = new Map<string, Row[]>();
  await forEachLine(path, (text, line) => {
    const rec = parseRecord(path, text, line);
    const fail = (what: string) => datasetError(path, `line ${line}: ${what}`);
    const num = (key: string) => {
      const v = rec[key];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
        throw fail(`"${key}" must be a non-negative number, got ${JSON.stringify(v)}`);
      }
      return v;
    };
    const row: Row = { input: { texts: [] }, origin: `${path}:${line}` };
    const osl = num("output_length");
    if (osl !== undefined) row.input.maxTokens = Math.round(osl);
    const ts = num("timestamp");
    const delay = num("delay");
    if (ts !== undefined) row.timestampMs = ts;
    if (delay !== undefined) row.delayMs = delay;
    if (rec.extra !== undefined) {
      if (rec.extra === null || typeof rec.extra !== "object" || Array.isArray(rec.extra)) {
        throw fail(`"extra" must be a JSON object`);
      }
      row.extra = rec.extra as Record<string, unknown>;
    }
    if (rec.payload !== undefined) {
      if (rec.payload === null || typeof rec.payload !== "object" || Array.isArray(rec.payload)) {
        throw fail(`"payload" must be a JSON object (a whole request body)`);
      }
      row.body = JSON.stringify(rec.payload);
    } else if (rec.messages !== undefined) {
      if (!Array.isArray(rec.messages) || rec.messages.length === 0) {
        throw fail(`"messages" must be a non-empty list of chat messages`);
      }
      if (format.endpoint.type !== "chat") {
        throw fail(`"messages" rows need --endpoint-type chat`);
      }
      const body = JSON.parse(
        buildBody(format, { ...row, input: { ...row.input, texts: [""] } }, path),
      );
      body.messages = rec.messages;
      if (rec.tools !== undefined) body.tools = rec.tools;
      row.body = JSON.stringify(body);
    } else if (typeof rec.text_input === "string") {
      row.input.texts = [rec.text_input];
    } else {
      const isl = num("input_length");
      if (isl === undefined) {
        throw fail(
          `expected "input_length" (with optional "hash_ids"), "text_input", "messages" or "payload"`,
        );
      }
      row.input.texts = [promptFor(prompts, Math.round(isl), rec.hash_ids, fail)];
    }
    const id = rec.session_id === undefined ? `${stem}-${line}` : String(rec.session_id);
    const list = sessions.get(id);
    if (list) list.push(row);
    else sessions.set(id, [row]);
  });
  if (sessions.size === 0) {
    throw datasetError(path, "the file is empty: expected one request per line");
  }
  const conversations: Conversation[] = [];
  for (const [id, rows] of sessions) {
    if (rows.every((r) => r.body === undefined)) {
      conversations.push(buildConversation(format, id, rows, path));
      continue;
    }
    // Rows with whole bodies are sent as they are, without accumulated history.
    const turns = rows.map((r): Turn => {
      const t: Turn = { body: r.body ?? buildBody(format, r, path), origin: r.origin };
      if (r.delayMs !== undefined) t.delayMs = r.delayMs;
      if (r.timestampMs !== undefined) t.timestampMs = r.timestampMs;
      return t;
    });
    conversations.push({ sessionId: id, turns });
  }
  return { type: MOONCAKE_TRACE, source: path, conversations };
}

/** The prompt of an `input_length` row: shared hash blocks, the last one cut to fit. */
function promptFor(
  prompts: PromptSource,
  isl: number,
  hashIds: unknown,
  fail: (what: string) => Error,
): string {
  if (hashIds === undefined) return prompts.prompt(isl);
  if (!Array.isArray(hashIds) || hashIds.some((h) => !Number.isInteger(h))) {
    throw fail(`"hash_ids" must be a list of integers`);
  }
  const parts: string[] = [];
  let left = isl;
  for (const id of hashIds as number[]) {
    if (left <= 0) break;
    const n = Math.min(HASH_BLOCK_TOKENS, left);
    parts.push(prompts.block(id, n));
    left -= n;
  }
  if (left > 0) parts.push(prompts.prompt(left));
  return parts.join(" ");
}
