/**
 * A small strict JSON scanner over a string. It checks syntax (RFC 8259) and reports where each
 * value starts and ends, without building values, so a loader can keep a value's exact source
 * text (the bytes a replay must send) and walk only the parts of a document it needs.
 */

/** A syntax error at `offset` (a UTF-16 index into the scanned text). */
export class JsonSyntaxError extends Error {
  /** @param offset Where scanning failed. @param expected What should have been there. */
  constructor(readonly offset: number, readonly expected: string) {
    super(`expected ${expected}`);
    this.name = "JsonSyntaxError";
  }
}

/** The kind of the JSON value starting at a position, from its first character. */
export type JsonKind = "object" | "array" | "string" | "number" | "boolean" | "null";

/** Returns the first position at or after `pos` that is not JSON whitespace. */
export function skipSpace(text: string, pos: number): number {
  while (pos < text.length) {
    const c = text.charCodeAt(pos);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    pos++;
  }
  return pos;
}

/** The kind of value starting at `pos` (no whitespace skipped), or null if none can start there. */
export function kindAt(text: string, pos: number): JsonKind | null {
  const c = text.charCodeAt(pos);
  if (c === 0x7b) return "object";
  if (c === 0x5b) return "array";
  if (c === 0x22) return "string";
  if (c === 0x74 || c === 0x66) return "boolean";
  if (c === 0x6e) return "null";
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return "number";
  return null;
}

/** Scans the string literal starting at `pos`; returns the position after its closing quote. */
export function scanString(text: string, pos: number): number {
  if (text.charCodeAt(pos) !== 0x22) throw new JsonSyntaxError(pos, "a string");
  let i = pos + 1;
  while (true) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c === 0x5c) {
      const e = text.charCodeAt(i + 1);
      // " \ / b f n r t
      if (
        e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e ||
        e === 0x72 || e === 0x74
      ) {
        i += 2;
      } else if (e === 0x75 && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
        i += 6;
      } else {
        throw new JsonSyntaxError(i, "a valid escape sequence in the string");
      }
    } else if (c < 0x20) {
      throw new JsonSyntaxError(i, "no raw control character inside a string (escape it)");
    } else if (Number.isNaN(c)) {
      // charCodeAt past the end of the text.
      throw new JsonSyntaxError(i, "the closing quote of the string");
    } else {
      i++;
    }
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

const OBJECT = 1;
const ARRAY = 2;

/**
 * Scans the JSON value starting at `pos` (after optional whitespace) and returns the position
 * just after it. Nesting is handled with an explicit stack, so deep documents cannot overflow
 * the call stack. Throws {@link JsonSyntaxError} on the first syntax error.
 */
export function skipValue(text: string, pos: number): number {
  const stack: number[] = [];
  while (true) {
    // A value is expected at pos.
    pos = skipSpace(text, pos);
    const c = text.charCodeAt(pos);
    if (c === 0x7b) {
      pos = skipSpace(text, pos + 1);
      if (text.charCodeAt(pos) === 0x7d) {
        pos++;
      } else {
        stack.push(OBJECT);
        pos = scanKey(text, pos);
        continue;
      }
    } else if (c === 0x5b) {
      pos = skipSpace(text, pos + 1);
      if (text.charCodeAt(pos) === 0x5d) {
        pos++;
      } else {
        stack.push(ARRAY);
        continue;
      }
    } else if (c === 0x22) {
      pos = scanString(text, pos);
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = pos;
      if (!NUMBER.test(text)) throw new JsonSyntaxError(pos, "a number");
      pos = NUMBER.lastIndex;
    } else if (text.startsWith("true", pos)) {
      pos += 4;
    } else if (text.startsWith("false", pos)) {
      pos += 5;
    } else if (text.startsWith("null", pos)) {
      pos += 4;
    } else {
      throw new JsonSyntaxError(
        pos,
        pos >= text.length ? "a JSON value, found the end" : "a JSON value",
      );
    }
    // After a value: close containers or move to the next element.
    while (true) {
      if (stack.length === 0) return pos;
      pos = skipSpace(text, pos);
      const d = text.charCodeAt(pos);
      const top = stack[stack.length - 1];
      if (d === 0x2c) {
        pos = top === OBJECT ? scanKey(text, skipSpace(text, pos + 1)) : pos + 1;
        break;
      }
      if ((top === OBJECT && d === 0x7d) || (top === ARRAY && d === 0x5d)) {
        stack.pop();
        pos++;
        continue;
      }
      throw new JsonSyntaxError(pos, top === OBJECT ? "',' or '}'" : "',' or ']'");
    }
  }
}

/** Scans `"key" :` at `pos`; returns the position after the colon. */
function scanKey(text: string, pos: number): number {
  if (text.charCodeAt(pos) !== 0x22) throw new JsonSyntaxError(pos, "a string key");
  pos = skipSpace(text, scanString(text, pos));
  if (text.charCodeAt(pos) !== 0x3a) throw new JsonSyntaxError(pos, "':' after the key");
  return pos + 1;
}

/**
 * Walks the members of the object starting at `pos` (after optional whitespace). For each member
 * `onMember` gets the decoded key and the position of its value (whitespace skipped) and must
 * return the position after that value (e.g. from {@link skipValue}). Returns the position after
 * the closing brace.
 */
export function forEachMember(
  text: string,
  pos: number,
  onMember: (key: string, valuePos: number) => number,
): number {
  pos = skipSpace(text, pos);
  if (text.charCodeAt(pos) !== 0x7b) throw new JsonSyntaxError(pos, "'{'");
  pos = skipSpace(text, pos + 1);
  if (text.charCodeAt(pos) === 0x7d) return pos + 1;
  while (true) {
    const keyEnd = scanString(text, pos);
    const key = JSON.parse(text.slice(pos, keyEnd)) as string;
    pos = skipSpace(text, keyEnd);
    if (text.charCodeAt(pos) !== 0x3a) throw new JsonSyntaxError(pos, "':' after the key");
    pos = skipSpace(text, onMember(key, skipSpace(text, pos + 1)));
    const d = text.charCodeAt(pos);
    if (d === 0x7d) return pos + 1;
    if (d !== 0x2c) throw new JsonSyntaxError(pos, "',' or '}'");
    pos = skipSpace(text, pos + 1);
    if (text.charCodeAt(pos) !== 0x22) throw new JsonSyntaxError(pos, "a string key");
  }
}

/**
 * Walks the elements of the array starting at `pos` (after optional whitespace). For each
 * element `onElement` gets its index and position (whitespace skipped) and must return the
 * position after it. Returns the position after the closing bracket.
 */
export function forEachElement(
  text: string,
  pos: number,
  onElement: (index: number, valuePos: number) => number,
): number {
  pos = skipSpace(text, pos);
  if (text.charCodeAt(pos) !== 0x5b) throw new JsonSyntaxError(pos, "'['");
  pos = skipSpace(text, pos + 1);
  if (text.charCodeAt(pos) === 0x5d) return pos + 1;
  for (let index = 0;; index++) {
    pos = skipSpace(text, onElement(index, pos));
    const d = text.charCodeAt(pos);
    if (d === 0x5d) return pos + 1;
    if (d !== 0x2c) throw new JsonSyntaxError(pos, "',' or ']'");
    pos = skipSpace(text, pos + 1);
  }
}

/** Converts a UTF-16 offset in `text` to a 1-based line and column (for error messages). */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
