/**
 * Streams a JSON Lines file line by line with bounded memory: a reader loop over `Deno.open`
 * fills one buffer, every run of complete lines in it is decoded at once, and only the lines the
 * caller keeps stay alive. NUL bytes and invalid UTF-8 are reported with their line number,
 * since they mean the file is binary or in another encoding.
 */

import { datasetError, describeFsError } from "./errors.ts";

/**
 * Called for each non-blank line, with the line's text (JSON whitespace and the line terminator
 * trimmed) and its 1-based line number. Return `false` to stop reading.
 */
export type LineHandler = (text: string, line: number) => void | boolean;

/** What {@link forEachLine} saw. */
export interface LineStats {
  /** Lines handed to the handler. */
  lines: number;
  /** True when the handler stopped the read early. */
  stopped: boolean;
}

const READ_SIZE = 1 << 20;
/** Longest line accepted, well under V8's maximum string length. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

const LF = 0x0a;

/**
 * Reads `path` line by line and calls `onLine` for each line that is not blank.
 * Throws a `DatasetError` naming `path` (and the line) when the file cannot be opened, holds a
 * NUL byte, is not valid UTF-8, or has a line longer than {@link MAX_LINE_BYTES}.
 */
export async function forEachLine(path: string, onLine: LineHandler): Promise<LineStats> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (err) {
    throw datasetError(path, describeFsError(err));
  }
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  let buf = new Uint8Array(READ_SIZE);
  let start = 0; // first byte not yet handed out
  let end = 0; // end of the bytes read so far
  let lineNo = 1; // number of the line that begins at `start`
  let atFileStart = true;
  const stats: LineStats = { lines: 0, stopped: false };

  // Decodes buf[from, to) (whole lines) and hands out its lines; returns false to stop.
  const emit = (from: number, to: number): boolean => {
    if (atFileStart) {
      atFileStart = false;
      // A UTF-8 byte order mark is not part of the first line's JSON.
      if (
        to - from >= 3 && buf[from] === 0xef && buf[from + 1] === 0xbb && buf[from + 2] === 0xbf
      ) {
        from += 3;
      }
    }
    let text: string;
    try {
      text = decoder.decode(buf.subarray(from, to));
    } catch {
      throw datasetError(path, `line ${badUtf8Line(buf, from, to, lineNo)} is not valid UTF-8`);
    }
    let pos = 0;
    while (pos <= text.length) {
      let nl = text.indexOf("\n", pos);
      if (nl < 0) nl = text.length;
      let a = pos;
      let b = nl;
      while (a < b && isJsonSpace(text.charCodeAt(a))) a++;
      while (b > a && isJsonSpace(text.charCodeAt(b - 1))) b--;
      if (a < b) {
        stats.lines++;
        if (onLine(text.slice(a, b), lineNo) === false) {
          stats.stopped = true;
          return false;
        }
      }
      lineNo++;
      pos = nl + 1;
    }
    // The loop counted the line after the last "\n" of the run; the caller's next run starts it.
    lineNo--;
    return true;
  };

  try {
    while (true) {
      if (end === buf.length) {
        if (start > 0) {
          buf.copyWithin(0, start, end);
          end -= start;
          start = 0;
        } else {
          if (buf.length >= MAX_LINE_BYTES) {
            throw datasetError(path, `line ${lineNo} is longer than ${MAX_LINE_BYTES} bytes`);
          }
          const bigger = new Uint8Array(Math.min(buf.length * 2, MAX_LINE_BYTES));
          bigger.set(buf.subarray(0, end));
          buf = bigger;
        }
      }
      let n: number | null;
      try {
        n = await file.read(buf.subarray(end));
      } catch (err) {
        throw datasetError(path, describeFsError(err));
      }
      if (n === null) break;
      const fresh = buf.subarray(end, end + n);
      const nul = fresh.indexOf(0);
      if (nul >= 0) {
        const line = lineNo + countLf(buf, start, end + nul);
        throw datasetError(
          path,
          `line ${line} contains a NUL byte: this looks like a binary file, not JSON Lines text`,
        );
      }
      const lastLf = fresh.lastIndexOf(LF);
      end += n;
      if (lastLf < 0) continue;
      const cut = end - n + lastLf;
      if (!emit(start, cut)) return stats;
      lineNo++;
      start = cut + 1;
    }
    if (start < end) emit(start, end);
    return stats;
  } finally {
    file.close();
  }
}

/**
 * Reads a whole file as UTF-8 text for formats that are one JSON document. A leading byte order
 * mark is dropped. Throws a `DatasetError` naming `path` (and the line) when the file cannot be
 * read, holds a NUL byte, is not valid UTF-8, or is too large for one string.
 */
export async function readText(path: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (err) {
    throw datasetError(path, describeFsError(err));
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    throw datasetError(
      path,
      `line ${1 + countLf(bytes, 0, nul)} contains a NUL byte: this looks like a binary file, ` +
        "not JSON text",
    );
  }
  const from = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  if (bytes.length - from > MAX_DOCUMENT_BYTES) {
    throw datasetError(
      path,
      `the file is ${bytes.length} bytes, more than the ${MAX_DOCUMENT_BYTES} bytes a single ` +
        "JSON document may have here: split it, or convert it to raw_payload JSON Lines",
    );
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes.subarray(from));
  } catch {
    throw datasetError(
      path,
      `line ${badUtf8Line(bytes, from, bytes.length, 1)} is not valid UTF-8`,
    );
  }
}

/** Largest single-document file accepted, under V8's maximum string length. */
export const MAX_DOCUMENT_BYTES = 512 * 1024 * 1024 - 1024;

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function countLf(buf: Uint8Array, from: number, to: number): number {
  let count = 0;
  for (let i = buf.indexOf(LF, from); i >= 0 && i < to; i = buf.indexOf(LF, i + 1)) count++;
  return count;
}

/** Finds the first line of buf[from, to) that does not decode, numbering from `firstLine`. */
function badUtf8Line(buf: Uint8Array, from: number, to: number, firstLine: number): number {
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  let line = firstLine;
  let a = from;
  while (a < to) {
    let b = buf.indexOf(LF, a);
    if (b < 0 || b > to) b = to;
    try {
      strict.decode(buf.subarray(a, b));
    } catch {
      return line;
    }
    line++;
    a = b + 1;
  }
  return line;
}
