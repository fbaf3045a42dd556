/**
 * The `inputs_json` loader: one JSON document `{"data": [{"session_id": …, "payloads": [body, …]}]}`,
 * the `inputs.json` AIPerf writes, pretty-printed or not. Each session is a conversation and
 * each payload a turn, replayed verbatim: a turn's `body` is the payload's exact source text,
 * found by scanning the document rather than re-serializing a parsed value, so key order,
 * spacing and number spelling reach the server unchanged.
 */

import { datasetError } from "./errors.ts";
import {
  forEachElement,
  forEachMember,
  type JsonKind,
  JsonSyntaxError,
  kindAt,
  lineColumn,
  skipSpace,
  skipValue,
} from "./json_scan.ts";
import { readText } from "./lines.ts";
import { fileStem } from "./paths.ts";
import type { Conversation, Dataset, Turn } from "./types.ts";

/** The `--custom-dataset-type` name of this loader. */
export const INPUTS_JSON = "inputs_json";

/** Where one value of the document is, and what kind it is. */
interface Span {
  start: number;
  end: number;
  kind: JsonKind | null;
}

/** One `data[i]` entry as scanned. */
interface EntryScan extends Span {
  sessionId?: Span;
  payloads?: Span & { items: Span[] };
}

/** The parts of a document that decide whether it is an inputs_json file, as scanned. */
export interface InputsScan {
  /** Kind of the top-level value. */
  kind: JsonKind | null;
  /** Keys of the top-level object (empty when it is not an object). */
  keys: string[];
  data?: Span & { entries: EntryScan[] };
}

/** Reads and loads an inputs_json file. Throws a `DatasetError` for anything to fix. */
export async function loadInputsJson(path: string): Promise<Dataset> {
  const text = await readText(path);
  return inputsJsonDataset(text, scanInputsJson(text, path), path);
}

/** Loads inputs_json from its text; `source` names the file in errors. */
export function parseInputsJson(text: string, source: string): Dataset {
  return inputsJsonDataset(text, scanInputsJson(text, source), source);
}

/**
 * Scans a whole document: checks its JSON syntax and records where the top-level `data` list,
 * its entries, their `session_id` and each of their payloads are. Throws a `DatasetError` with
 * the line, column and JSON path of the first syntax error.
 */
export function scanInputsJson(text: string, source: string): InputsScan {
  let path = "the document";
  const scan: InputsScan = { kind: null, keys: [] };
  try {
    let pos = skipSpace(text, 0);
    if (pos === text.length) {
      throw datasetError(source, "the file is empty: expected one JSON document");
    }
    scan.kind = kindAt(text, pos);
    if (scan.kind === "object") {
      pos = forEachMember(text, pos, (key, at) => {
        scan.keys.push(key);
        // As with JSON.parse, the last of repeated keys wins.
        if (key === "data") scan.data = undefined;
        if (key !== "data" || kindAt(text, at) !== "array") return skipValue(text, at);
        const entries: EntryScan[] = [];
        const end = forEachElement(text, at, (i, at) => {
          path = `data[${i}]`;
          const entry: EntryScan = { start: at, end: at, kind: kindAt(text, at) };
          entries.push(entry);
          if (entry.kind !== "object") return (entry.end = skipValue(text, at));
          entry.end = forEachMember(text, at, (key, at) => {
            const kind = kindAt(text, at);
            if (key === "session_id") {
              path = `data[${i}].session_id`;
              const end = skipValue(text, at);
              entry.sessionId = { start: at, end, kind };
              return end;
            }
            if (key !== "payloads" || kind !== "array") {
              path = `data[${i}].${key}`;
              const end = skipValue(text, at);
              if (key === "payloads") entry.payloads = { start: at, end, kind, items: [] };
              return end;
            }
            const items: Span[] = [];
            const end = forEachElement(text, at, (j, at) => {
              path = `data[${i}].payloads[${j}]`;
              const end = skipValue(text, at);
              items.push({ start: at, end, kind: kindAt(text, at) });
              return end;
            });
            entry.payloads = { start: at, end, kind, items };
            path = `data[${i}]`;
            return end;
          });
          return entry.end;
        });
        scan.data = { start: at, end, kind: "array", entries };
        path = "the document";
        return end;
      });
    } else {
      pos = skipValue(text, pos);
    }
    pos = skipSpace(text, pos);
    if (pos < text.length) {
      throw new JsonSyntaxError(pos, "the end of the file after the JSON document");
    }
  } catch (err) {
    if (!(err instanceof JsonSyntaxError)) throw err;
    const { line, column } = lineColumn(text, err.offset);
    const where = path === "the document" ? "" : ` (in ${path})`;
    throw datasetError(
      source,
      `not valid JSON at line ${line}, column ${column}${where}: expected ${err.expected}`,
    );
  }
  return scan;
}

/**
 * Says why a scanned document is not an inputs_json file, or returns null when it has the shape
 * of one: an object whose `data` list holds entries with a `payloads` list.
 */
export function notInputsJson(scan: InputsScan): string | null {
  if (scan.kind !== "object") return `the document is ${article(scan.kind)}, not an object`;
  if (!scan.data) {
    return scan.keys.includes("data")
      ? `its "data" field is not a list`
      : `its top-level keys are ${listKeys(scan.keys)}, with no "data" list`;
  }
  const first = scan.data.entries[0];
  if (first && first.payloads?.kind !== "array") {
    return `its data[0] has no "payloads" list`;
  }
  return null;
}

/** Builds the dataset from a scanned document, checking every entry and payload. */
function inputsJsonDataset(text: string, scan: InputsScan, source: string): Dataset {
  const fail = (offset: number, what: string) => {
    const { line, column } = lineColumn(text, offset);
    return datasetError(source, `${what} (line ${line}, column ${column})`);
  };
  if (scan.kind !== "object") {
    throw fail(
      skipSpace(text, 0),
      `the document must be a JSON object with a "data" list, found ${article(scan.kind)}`,
    );
  }
  const data = scan.data;
  if (!data) {
    throw datasetError(
      source,
      scan.keys.includes("data")
        ? `"data" must be a list of sessions ({"session_id": …, "payloads": […]})`
        : `the document has no "data" list (top-level keys: ${listKeys(scan.keys)}); ` +
          `expected {"data": [{"session_id": …, "payloads": […]}, …]}`,
    );
  }
  if (data.entries.length === 0) {
    throw fail(data.start, `"data" is empty: expected at least one session`);
  }
  const stem = fileStem(source);
  const conversations: Conversation[] = data.entries.map((entry, i) => {
    if (entry.kind !== "object") {
      throw fail(
        entry.start,
        `data[${i}] must be an object with a "payloads" list, found ${article(entry.kind)}`,
      );
    }
    let sessionId = `${stem}-${i}`;
    const sid = entry.sessionId;
    if (sid && sid.kind === "string") {
      sessionId = JSON.parse(text.slice(sid.start, sid.end));
    } else if (sid && sid.kind !== "null") {
      throw fail(sid.start, `data[${i}].session_id must be a string, found ${article(sid.kind)}`);
    }
    const payloads = entry.payloads;
    if (!payloads) throw fail(entry.start, `data[${i}] has no "payloads" list`);
    if (payloads.kind !== "array") {
      throw fail(
        payloads.start,
        `data[${i}].payloads must be a list of request bodies, found ${article(payloads.kind)}`,
      );
    }
    if (payloads.items.length === 0) {
      throw fail(
        payloads.start,
        `data[${i}].payloads is empty: expected at least one request body`,
      );
    }
    const turns: Turn[] = payloads.items.map((item, j) => {
      const where = `data[${i}].payloads[${j}]`;
      if (item.kind !== "object") {
        throw fail(
          item.start,
          `${where} must be a JSON object (a request body), found ${article(item.kind)}`,
        );
      }
      const body = text.slice(item.start, item.end);
      // The scanner checked the syntax; JSON.parse confirms the span is exactly one object.
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch (err) {
        throw fail(item.start, `${where} is not valid JSON (${(err as Error).message})`);
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        throw fail(item.start, `${where} must be a JSON object (a request body)`);
      }
      return { body, origin: `${source}: ${where}` };
    });
    return { sessionId, turns };
  });
  return { type: INPUTS_JSON, source, conversations };
}

function article(kind: JsonKind | null): string {
  switch (kind) {
    case "object":
    case "array":
      return `an ${kind}`;
    case "null":
      return "null";
    case null:
      return "nothing valid";
    default:
      return `a ${kind}`;
  }
}

function listKeys(keys: string[]): string {
  if (keys.length === 0) return "none";
  const shown = keys.slice(0, 8).map((k) => JSON.stringify(k)).join(", ");
  return keys.length > 8 ? `${shown}, …` : shown;
}
