/**
 * Tells a dataset's type from its content when `--custom-dataset-type` is not given, following
 * AIPerf's rules for the verbatim replay formats:
 *
 * - a directory is `raw_payload` when its first `.jsonl` line is a request body;
 * - a file whose first non-blank line is a JSON object with a `data` list of entries with
 *   `payloads` is `inputs_json`; so is a pretty-printed file (first byte `{`, first line not a
 *   complete JSON value) that is, as a whole, such a document;
 * - a file whose first non-blank line is an object with a `messages` list, no `conversation_id`
 *   and no `data` list is `raw_payload`;
 * - otherwise the first record's fields name AIPerf's format: `turns` → `multi_turn`;
 *   `input_length`/`hash_ids`/`text_input` → `mooncake_trace`; `text(s)`/`image(s)`/`audio(s)`
 *   → `single_turn` (a directory of those: `random_pool`).
 *
 * Anything else is a `DatasetError` saying what was seen and which types can be passed.
 */

import { join } from "node:path";
import { datasetError, describeJson } from "./errors.ts";
import { INPUTS_JSON, notInputsJson, parseInputsJson, scanInputsJson } from "./inputs_json.ts";
import { forEachLine, readText } from "./lines.ts";
import { statPath } from "./paths.ts";
import { jsonlFiles, RAW_PAYLOAD } from "./raw_payload.ts";
import type { Dataset } from "./types.ts";

/** The detected type, and the dataset itself when detection had to load it whole anyway. */
export interface Detected {
  type: string;
  dataset?: Dataset;
}

/**
 * Detects the type of the dataset at `path`. `known` lists the types this build loads, for the
 * error message.
 */
export async function detectDatasetType(path: string, known: readonly string[]): Promise<Detected> {
  const info = await statPath(path);
  const pass = `pass --custom-dataset-type with one of: ${known.join(", ")}`;
  if (info.isDirectory) {
    for (const name of await jsonlFiles(path)) {
      const file = join(path, name);
      const first = await firstLine(file);
      if (!first) continue;
      const value = tryParse(first.text);
      if (value.ok && classify(value.value).type === RAW_PAYLOAD) return { type: RAW_PAYLOAD };
      // A directory of single-turn entries is AIPerf's random_pool (each file a pool).
      if (value.ok && classify(value.value).type === "single_turn") return { type: "random_pool" };
      throw datasetError(
        path,
        `a directory is read as raw_payload (one conversation per .jsonl file), but line ` +
          `${first.line} of "${name}" is ${
            value.ok ? describeRecord(value.value) : `not valid JSON (${value.error})`
          }, not a request body with a "messages" list`,
      );
    }
    throw datasetError(path, "every .jsonl file in the directory is empty");
  }

  const first = await firstLine(path);
  if (!first) throw datasetError(path, "the file is empty");
  const value = tryParse(first.text);
  if (!value.ok) {
    if (first.text.startsWith("{")) return await wholeDocument(path, first.line, pass);
    throw datasetError(
      path,
      `cannot tell the dataset type: line ${first.line} is not valid JSON (${value.error})`,
    );
  }
  const seen = classify(value.value);
  if (seen.type) return { type: seen.type };
  throw datasetError(
    path,
    `cannot tell the dataset type from line ${first.line}, ${describeRecord(value.value)}: ` +
      `${seen.why}; ${pass}`,
  );
}

/** A pretty-printed file: parse it whole and accept it only as inputs_json. */
async function wholeDocument(path: string, line: number, pass: string): Promise<Detected> {
  const text = await readText(path);
  let why: string | null;
  try {
    why = notInputsJson(scanInputsJson(text, path));
  } catch (err) {
    const detail = err instanceof Error
      ? err.message.replace(/^Cannot read dataset "[^"]*": /, "")
      : "";
    throw datasetError(
      path,
      `cannot tell the dataset type: line ${line} is not a complete JSON value and the whole ` +
        `file is not one JSON document either (${detail})`,
    );
  }
  if (why) {
    throw datasetError(
      path,
      `cannot tell the dataset type: the file is one JSON document, but not an inputs_json ` +
        `file ({"data": [{"session_id": …, "payloads": […]}]}): ${why}; ${pass}`,
    );
  }
  return { type: INPUTS_JSON, dataset: parseInputsJson(text, path) };
}

/** Which replay format a first record belongs to, or why it fits none. */
function classify(value: unknown): { type?: string; why?: string } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { why: "each record of a dataset is a JSON object" };
  }
  const rec = value as Record<string, unknown>;
  const hasMessages = Array.isArray(rec.messages);
  const hasData = Array.isArray(rec.data);
  if (hasMessages && hasData) {
    return {
      why: `it is ambiguous: a "messages" list says raw_payload, a "data" list says inputs_json`,
    };
  }
  if (hasData) {
    const entries = rec.data as unknown[];
    const first = entries[0] as Record<string, unknown> | undefined;
    if (entries.length === 0 || (isObject(first) && Array.isArray(first.payloads))) {
      return { type: INPUTS_JSON };
    }
    return { why: `its "data" list holds no sessions with a "payloads" list (inputs_json)` };
  }
  if (hasMessages) {
    if ("conversation_id" in rec) {
      return {
        why: `it has a "messages" list but also "conversation_id", which marks an agent ` +
          `trajectory rather than a raw_payload request body (pass --custom-dataset-type ` +
          `raw_payload to replay it as request bodies anyway)`,
      };
    }
    return { type: RAW_PAYLOAD };
  }
  const other = lookalike(rec);
  if (other && DETECTABLE.has(other)) return { type: other };
  return {
    why: other
      ? `it looks like AIPerf's ${other} format, which this build does not load`
      : `expected a request body with a "messages" list (raw_payload) or a "data" list of ` +
        `sessions (inputs_json)`,
  };
}

/** The AIPerf formats this build loads that a first record identifies on its own. */
const DETECTABLE = new Set(["single_turn", "multi_turn", "mooncake_trace"]);

/** Names the AIPerf dataset format a record resembles, for a helpful message. */
function lookalike(rec: Record<string, unknown>): string | null {
  if (Array.isArray(rec.turns)) {
    const dag = rec.turns.some((t) => isObject(t) && ("messages" in t || "forks" in t));
    return dag ? "dag_jsonl" : "multi_turn";
  }
  if ("input_length" in rec || "hash_ids" in rec || "text_input" in rec) return "mooncake_trace";
  if ("captureData" in rec) return "sagemaker_data_capture";
  if ("chat_id" in rec && "parent_chat_id" in rec) return "bailian_trace";
  if (
    ["text", "texts", "image", "images", "audio", "audios", "video", "videos"].some((k) => k in rec)
  ) {
    return "single_turn";
  }
  return null;
}

function describeRecord(value: unknown): string {
  if (!isObject(value)) return describeJson(value);
  const keys = Object.keys(value);
  if (keys.length === 0) return "an empty JSON object";
  const shown = keys.slice(0, 8).map((k) => JSON.stringify(k)).join(", ");
  return `a JSON object with keys ${shown}${keys.length > 8 ? ", …" : ""}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

async function firstLine(path: string): Promise<{ text: string; line: number } | null> {
  let found: { text: string; line: number } | null = null;
  await forEachLine(path, (text, line) => {
    found = { text, line };
    return false;
  });
  return found;
}
