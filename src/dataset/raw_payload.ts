/**
 * The `raw_payload` loader: JSON Lines where each line is a complete request body, replayed
 * verbatim. A file gives one single-turn conversation per line; a directory gives one
 * conversation per `.jsonl` file (sorted by name), its lines being the turns in order.
 *
 * Each turn's `body` is the line's exact text: only the line terminator and the JSON whitespace
 * around it are trimmed, so the server receives the bytes the file holds.
 */

import { join } from "node:path";
import { datasetError, describeFsError, describeJson } from "./errors.ts";
import { forEachLine } from "./lines.ts";
import { fileStem, statPath } from "./paths.ts";
import type { Conversation, Dataset, Turn } from "./types.ts";

/** The `--custom-dataset-type` name of this loader. */
export const RAW_PAYLOAD = "raw_payload";

/**
 * Loads a raw_payload file or directory.
 *
 * Session ids: in a directory, the file name without `.jsonl`; for a single file,
 * `<file name without extension>-<line number>` (e.g. `payloads-3`), stable while the file is.
 */
export async function loadRawPayload(path: string): Promise<Dataset> {
  const info = await statPath(path);
  const conversations = info.isDirectory ? await loadDirectory(path) : await loadSingleFile(path);
  return { type: RAW_PAYLOAD, source: path, conversations };
}

async function loadSingleFile(path: string): Promise<Conversation[]> {
  const stem = fileStem(path);
  const conversations: Conversation[] = [];
  await forEachLine(path, (text, line) => {
    checkPayloadLine(path, text, line);
    conversations.push({
      sessionId: `${stem}-${line}`,
      turns: [{ body: text, origin: `${path}:${line}` }],
    });
  });
  if (conversations.length === 0) {
    throw datasetError(path, "the file is empty: expected one JSON request body per line");
  }
  return conversations;
}

async function loadDirectory(dir: string): Promise<Conversation[]> {
  const names = await jsonlFiles(dir);
  const conversations: Conversation[] = [];
  for (const name of names) {
    const file = join(dir, name);
    const turns: Turn[] = [];
    await forEachLine(file, (text, line) => {
      checkPayloadLine(file, text, line);
      turns.push({ body: text, origin: `${file}:${line}` });
    });
    if (turns.length === 0) {
      throw datasetError(
        file,
        "the file is empty: each .jsonl file of a raw_payload directory is one conversation " +
          "with one JSON request body per line",
      );
    }
    conversations.push({ sessionId: name.slice(0, -".jsonl".length), turns });
  }
  return conversations;
}

/**
 * Lists the `.jsonl` files of a raw_payload directory, sorted by name (code unit order, so the
 * order is the same on every system). Other files are ignored.
 * Throws a `DatasetError` when the directory cannot be read, is empty, holds no `.jsonl` file,
 * or holds a `.jsonl` symlink that loops (naming that file); a symlink to nothing is skipped.
 */
export async function jsonlFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  let entries = 0;
  let loop: string | null = null;
  let dangling = 0;
  try {
    for await (const entry of Deno.readDir(dir)) {
      entries++;
      if (!entry.name.endsWith(".jsonl") || entry.isDirectory) continue;
      // A symlink counts when it points at a file.
      if (entry.isSymlink) {
        const target = await Deno.stat(join(dir, entry.name)).catch((e) => {
          if (e instanceof Deno.errors.FilesystemLoop) loop ??= entry.name;
          else dangling++;
          return null;
        });
        if (!target?.isFile) continue;
      }
      names.push(entry.name);
    }
  } catch (err) {
    throw datasetError(dir, describeFsError(err));
  }
  if (loop !== null) {
    throw datasetError(
      join(dir, loop),
      "the symlink is a loop: following it leads back to itself, never to a file",
    );
  }
  if (entries === 0) {
    throw datasetError(dir, "the directory is empty: expected .jsonl files, one per conversation");
  }
  if (names.length === 0) {
    throw datasetError(
      dir,
      `the directory has no .jsonl file (it holds ${entries} other entr${
        entries === 1 ? "y" : "ies"
      }${
        dangling === 0
          ? ""
          : dangling === 1
          ? "; 1 .jsonl symlink leads nowhere"
          : `; ${dangling} .jsonl symlinks lead nowhere`
      }): expected .jsonl files, one per conversation`,
    );
  }
  return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Checks that one line is a JSON object with a `messages` list, as every raw_payload line must be.
 * Throws a `DatasetError` naming `file` and `line` otherwise.
 */
export function checkPayloadLine(file: string, text: string, line: number): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const hint = text === "{" || text === "["
      ? "; the file looks like one pretty-printed JSON document: try --custom-dataset-type inputs_json"
      : "";
    throw datasetError(file, `line ${line} is not valid JSON (${(err as Error).message})${hint}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw datasetError(
      file,
      `line ${line} must be a JSON object (a request body with a "messages" list), found ${
        describeJson(value)
      }`,
    );
  }
  const messages = (value as Record<string, unknown>).messages;
  if (messages === undefined) {
    throw datasetError(
      file,
      `line ${line} has no "messages" field: each raw_payload line must be a request body ` +
        `with a "messages" list`,
    );
  }
  if (!Array.isArray(messages)) {
    throw datasetError(
      file,
      `line ${line}: "messages" must be a list, found ${describeJson(messages)}`,
    );
  }
}
