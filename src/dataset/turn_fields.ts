/**
 * AIPerf's single-turn record fields, shared by `single_turn`, `multi_turn` turns and
 * `random_pool`: `text`/`texts`, `image(s)`, `audio(s)`, `timestamp`/`delay` (ms), `role`,
 * `session_id`, `output_length`, `extra`, `video(s)` and `image_uuids`. Local media paths are read and sent as base64;
 * URLs and `data:` URLs pass through.
 */

import { dirname, extname, isAbsolute, join } from "node:path";
import { base64 } from "../util/base64.ts";
import type { PromptTurn } from "./build.ts";
import { datasetError, describeJson } from "./errors.ts";

/** A record's turn, its session id when it names one. */
export interface RecordTurn extends PromptTurn {
  sessionId?: string;
}

/** Parses one JSONL line as a JSON object, or throws a `DatasetError` naming file and line. */
export function parseRecord(file: string, text: string, line: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw datasetError(file, `line ${line} is not valid JSON (${(err as Error).message})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw datasetError(file, `line ${line} is ${describeJson(value)}, expected a JSON object`);
  }
  return value as Record<string, unknown>;
}

function strings(
  rec: Record<string, unknown>,
  one: string,
  many: string,
  where: () => string,
): string[] {
  const out: string[] = [];
  if (rec[one] !== undefined) {
    if (typeof rec[one] !== "string") throw new Error(`${where()}"${one}" must be a string`);
    out.push(rec[one] as string);
  }
  if (rec[many] !== undefined) {
    const list = rec[many];
    if (!Array.isArray(list) || list.some((x) => typeof x !== "string")) {
      throw new Error(`${where()}"${many}" must be a list of strings`);
    }
    out.push(...(list as string[]));
  }
  return out;
}

function number(rec: Record<string, unknown>, key: string, where: () => string) {
  const v = rec[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
    throw new Error(`${where()}"${key}" must be a non-negative number, got ${JSON.stringify(v)}`);
  }
  return v;
}

const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

const VIDEO_TYPES: Record<string, string> = {
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".mov": "video/quicktime",
  ".mkv": "video/x-matroska",
  ".avi": "video/x-msvideo",
};

function isUrl(s: string): boolean {
  return /^(https?:|data:)/i.test(s);
}

/** Reads a local media file relative to the dataset file. */
function readMedia(file: string, path: string): Uint8Array {
  const full = isAbsolute(path) ? path : join(dirname(file), path);
  try {
    return Deno.readFileSync(full);
  } catch (err) {
    throw new Error(`cannot read media file "${full}": ${(err as Error).message}`);
  }
}

/**
 * `image_uuids`: one id per image, in order (vLLM caches a media item under its id), or
 * undefined when the record has none. Throws when they do not pair one to one with the images.
 */
function imageUuids(
  rec: Record<string, unknown>,
  images: number,
  where: () => string,
): string[] | undefined {
  const list = rec.image_uuids;
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list) || list.some((x) => typeof x !== "string" || x === "")) {
    throw new Error(`${where()}"image_uuids" must be a list of non-empty strings`);
  }
  if (list.length !== images) {
    throw new Error(
      `${where()}"image_uuids" has ${list.length} ids for ${images} image(s); give one per image`,
    );
  }
  return list as string[];
}

/**
 * The turn a record describes. `file` and `line` are for messages and for resolving local media.
 * Throws a `DatasetError` naming the file, line and field.
 */
export function recordTurn(
  rec: Record<string, unknown>,
  file: string,
  line: number,
  path = "",
): RecordTurn {
  const where = () => path ? `${path}: ` : "";
  try {
    const texts = strings(rec, "text", "texts", where);
    const images = strings(rec, "image", "images", where).map((s) =>
      // An empty image is a reference to one the server cached under its id (`image_uuids`).
      isUrl(s) || (s === "" && rec.image_uuids !== undefined)
        ? s
        : `data:${IMAGE_TYPES[extname(s).toLowerCase()] ?? "image/png"};base64,${
          base64(readMedia(file, s))
        }`
    );
    const audios = strings(rec, "audio", "audios", where).map((s) => {
      // `format,base64` stays as it is; a path is read and sent as base64 in its own format.
      if (s.includes(",") || isUrl(s)) return s;
      return `${extname(s).slice(1).toLowerCase() || "wav"},${base64(readMedia(file, s))}`;
    });
    const videos = strings(rec, "video", "videos", where).map((s) =>
      isUrl(s)
        ? s
        : `data:${VIDEO_TYPES[extname(s).toLowerCase()] ?? "video/mp4"};base64,${
          base64(readMedia(file, s))
        }`
    );
    if (texts.length + images.length + audios.length + videos.length === 0) {
      throw new Error(
        `${where()}expected "text", "texts", "image(s)", "audio(s)" or "video(s)" (the turn's content)`,
      );
    }
    const turn: RecordTurn = { input: { texts }, origin: `${file}:${line}` };
    if (images.length) turn.input.images = images;
    const uuids = imageUuids(rec, images.length, where);
    if (uuids) turn.input.imageUuids = uuids;
    if (audios.length) turn.input.audios = audios;
    if (videos.length) turn.input.videos = videos;
    if (rec.role !== undefined) {
      if (typeof rec.role !== "string") throw new Error(`${where()}"role" must be a string`);
      turn.input.role = rec.role;
    }
    const osl = number(rec, "output_length", where);
    if (osl !== undefined) turn.input.maxTokens = Math.round(osl);
    const ts = number(rec, "timestamp", where);
    const delay = number(rec, "delay", where);
    if (ts !== undefined) turn.timestampMs = ts;
    if (delay !== undefined) turn.delayMs = delay;
    if (rec.extra !== undefined) {
      const extra = rec.extra;
      if (extra === null || typeof extra !== "object" || Array.isArray(extra)) {
        throw new Error(`${where()}"extra" must be a JSON object`);
      }
      turn.extra = extra as Record<string, unknown>;
    }
    if (rec.session_id !== undefined) {
      if (typeof rec.session_id !== "string" && typeof rec.session_id !== "number") {
        throw new Error(`${where()}"session_id" must be a string`);
      }
      turn.sessionId = String(rec.session_id);
    }
    return turn;
  } catch (err) {
    if (err instanceof Error && err.name === "DatasetError") throw err;
    throw datasetError(file, `line ${line}: ${(err as Error).message}`);
  }
}
