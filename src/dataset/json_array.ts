/**
 * Streams the elements of a file holding one top-level JSON array, with memory bounded by the
 * largest element rather than the file: public datasets such as ShareGPT are single arrays of
 * several hundred MiB, larger than the longest string V8 can hold, so they cannot be read whole.
 * A byte-level scanner finds where each element ends (tracking strings, escapes and nesting);
 * each element is then decoded and parsed on its own.
 */

import { datasetError, describeFsError } from "./errors.ts";
import { MAX_LINE_BYTES } from "./lines.ts";

/** Called for each element with its parsed value, its 0-based index and the line it starts on. */
export type ElementHandler = (value: unknown, index: number, line: number) => void;

const READ_SIZE = 1 << 20;
const LF = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

type State = "before" | "between" | "inside" | "after";

function isSpace(b: number): boolean {
  return b === 0x20 || b === LF || b === 0x0d || b === 0x09;
}

/**
 * Reads the JSON array in `path` element by element and calls `onElement` for each; returns
 * the number of elements. Throws a `DatasetError` naming `path`, the element and its line when
 * the file cannot be read, is not a JSON array, holds a NUL byte or invalid UTF-8, or an element
 * is not valid JSON or is longer than {@link MAX_LINE_BYTES}.
 */
export async function forEachArrayElement(
  path: string,
  onElement: ElementHandler,
): Promise<number> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (err) {
    throw datasetError(path, describeFsError(err));
  }
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  // before: expecting "["; between: inside the array, no element open; inside: an element is
  // open; after: the array is closed, only whitespace may follow.
  let state = "before" as State;
  let expectElement = true; // after "[" or ",": an element (or "]" right after "[") must come
  let depth = 0; // nesting inside the open element
  const openers: number[] = []; // the open brackets of the element, outermost first
  let inString = false;
  let escaped = false;
  let line = 1;
  let elementLine = 1;
  let count = 0;
  let pieces: Uint8Array[] = []; // bytes of the open element read in earlier chunks
  let pieceBytes = 0;
  let offset = 0; // bytes of the file before the current chunk
  const where = () => `line ${line}`;

  const finish = (chunk: Uint8Array, start: number, end: number) => {
    const tail = chunk.subarray(start, end);
    let bytes = tail;
    if (pieces.length) {
      bytes = new Uint8Array(pieceBytes + tail.length);
      let at = 0;
      for (const p of pieces) {
        bytes.set(p, at);
        at += p.length;
      }
      bytes.set(tail, at);
      pieces = [];
      pieceBytes = 0;
    }
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      throw datasetError(path, `element [${count}] (line ${elementLine}) is not valid UTF-8`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw datasetError(
        path,
        `element [${count}] (line ${elementLine}) is not valid JSON (${(err as Error).message})`,
      );
    }
    onElement(value, count, elementLine);
    count++;
  };

  try {
    const chunk = new Uint8Array(READ_SIZE);
    for (;;) {
      const n = await file.read(chunk);
      if (n === null) break;
      let start = 0; // where the open element begins in this chunk
      for (let i = 0; i < n; i++) {
        const b = chunk[i];
        if (b === 0) {
          throw datasetError(
            path,
            `${where()} contains a NUL byte: this looks like a binary file, not a JSON array`,
          );
        }
        if (state === "inside") {
          if (inString) {
            if (escaped) escaped = false;
            else if (b === BACKSLASH) escaped = true;
            else if (b === QUOTE) inString = false;
            else if (b === LF) line++;
            continue;
          }
          if (b === QUOTE) inString = true;
          else if (b === OPEN_OBJECT || b === OPEN_ARRAY) openers[depth++] = b;
          else if ((b === CLOSE_OBJECT || b === CLOSE_ARRAY) && depth > 0) {
            // A mismatched bracket: parse what was read so far, for JSON.parse's own message.
            if (openers[--depth] !== (b === CLOSE_OBJECT ? OPEN_OBJECT : OPEN_ARRAY)) {
              finish(chunk, start, i + 1);
            }
          } else if (depth === 0 && (b === COMMA || b === CLOSE_ARRAY)) {
            finish(chunk, start, i);
            state = b === COMMA ? "between" : "after";
            expectElement = b === COMMA;
          } else if (b === LF) line++;
          continue;
        }
        if (b === LF) {
          line++;
          continue;
        }
        if (isSpace(b)) continue;
        if (state === "before") {
          // A UTF-8 byte order mark may precede the array.
          if (offset + i === 0 && b === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
            i += 2;
            continue;
          }
          if (b !== OPEN_ARRAY) {
            throw datasetError(path, `${where()}: expected a JSON array ("[" …) of entries`);
          }
          state = "between";
          expectElement = true;
          continue;
        }
        if (state === "after") {
          throw datasetError(path, `${where()}: unexpected text after the end of the array`);
        }
        // between elements
        if (b === CLOSE_ARRAY && count === 0 && expectElement) {
          state = "after";
          continue;
        }
        if (b === COMMA || b === CLOSE_ARRAY || !expectElement) {
          throw datasetError(
            path,
            `${where()}: expected ${expectElement ? "an element" : '"," or "]"'} in the array`,
          );
        }
        state = "inside";
        start = i;
        elementLine = line;
        depth = 0;
        if (b === QUOTE) inString = true;
        else if (b === OPEN_OBJECT || b === OPEN_ARRAY) openers[depth++] = b;
      }
      if (state === "inside") {
        pieces.push(chunk.slice(start, n));
        pieceBytes += n - start;
        if (pieceBytes > MAX_LINE_BYTES) {
          throw datasetError(
            path,
            `element [${count}] (line ${elementLine}) is longer than ${MAX_LINE_BYTES} bytes`,
          );
        }
      }
      offset += n;
    }
  } finally {
    file.close();
  }
  // The reads above change `state` where the type checker cannot follow.
  const end = state as State;
  if (end === "before") throw datasetError(path, "the file is empty: expected a JSON array");
  if (end !== "after") {
    throw datasetError(path, `the file ends at line ${line} before the array is closed with "]"`);
  }
  return count;
}
