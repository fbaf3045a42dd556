/**
 * AIPerf's `random_pool`: single-turn entries drawn at random with replacement. A file is one
 * pool; in a directory each `.jsonl` file is a pool, and each request takes one entry from every
 * pool, their contents merged (e.g. a query pool and a passage pool). The draws are made at load
 * time from `--random-seed`, so `inputs.json` holds exactly what was sent.
 */

import { join } from "node:path";
import { type LoadContext, type PromptTurn, requireFormat } from "./build.ts";
import { buildConversation } from "./build.ts";
import { datasetError } from "./errors.ts";
import { forEachLine } from "./lines.ts";
import { fileStem, statPath } from "./paths.ts";
import { jsonlFiles } from "./raw_payload.ts";
import { mulberry32 } from "../util/rng.ts";
import { parseRecord, type RecordTurn, recordTurn } from "./turn_fields.ts";
import type { Dataset } from "./types.ts";

/** The `--custom-dataset-type` value. */
export const RANDOM_POOL = "random_pool";

/** AIPerf's default number of requests drawn from a pool. */
export const DEFAULT_POOL_DRAWS = 100;

async function readPool(file: string): Promise<RecordTurn[]> {
  const pool: RecordTurn[] = [];
  await forEachLine(file, (text, line) => {
    pool.push(recordTurn(parseRecord(file, text, line), file, line));
  });
  if (pool.length === 0) throw datasetError(file, "the pool file is empty");
  return pool;
}

/** Loads a random_pool file or directory: `--num-conversations` draws (default 100). */
export async function loadRandomPool(path: string, ctx: LoadContext): Promise<Dataset> {
  const format = requireFormat(path, ctx, RANDOM_POOL);
  const info = await statPath(path);
  const files = info.isDirectory ? (await jsonlFiles(path)).map((n) => join(path, n)) : [path];
  const pools: RecordTurn[][] = [];
  for (const f of files) pools.push(await readPool(f));
  const rand = mulberry32(ctx.seed);
  const draws = ctx.numConversations ?? DEFAULT_POOL_DRAWS;
  const stem = fileStem(path);
  const conversations = [];
  for (let i = 0; i < draws; i++) {
    const picked = pools.map((p) => p[Math.floor(rand() * p.length)]);
    conversations.push(buildConversation(format, `${stem}-${i}`, [merge(picked)], path));
  }
  return { type: RANDOM_POOL, source: path, conversations };
}

/** One turn holding every picked entry's content; the first entry's settings win. */
function merge(picked: RecordTurn[]): PromptTurn {
  if (picked.length === 1) {
    const { sessionId: _s, timestampMs: _t, delayMs: _d, ...turn } = picked[0];
    return turn;
  }
  const first = picked[0];
  const input = {
    ...first.input,
    texts: picked.flatMap((p) => p.input.texts),
    images: picked.flatMap((p) => p.input.images ?? []),
    audios: picked.flatMap((p) => p.input.audios ?? []),
    videos: picked.flatMap((p) => p.input.videos ?? []),
  };
  // Ids stay paired with their images: an entry without ids gives empty ones (no `uuid` sent).
  if (picked.some((p) => p.input.imageUuids)) {
    (input as { imageUuids?: string[] }).imageUuids = picked.flatMap((p) =>
      p.input.imageUuids ?? (p.input.images ?? []).map(() => "")
    );
  }
  if (input.images.length === 0) delete (input as { images?: string[] }).images;
  if (input.audios.length === 0) delete (input as { audios?: string[] }).audios;
  if (input.videos.length === 0) delete (input as { videos?: string[] }).videos;
  const extra = Object.assign({}, ...picked.map((p) => p.extra ?? {}));
  return {
    input,
    extra: Object.keys(extra).length ? extra : undefined,
    origin: picked.map((p) => p.origin).join(" + "),
  };
}
