/**
 * An HTTP/1.1 request message, head and body in one buffer, written with no string built for the
 * head, and the next one written over the last where only a few values changed.
 */

import { putBytes, putByteString } from "../util/bytes.ts";
import type { Target } from "./http1_target.ts";

const CR = 13;
const LF = 10;

const encoder = new TextEncoder();

/** Header names this transport writes itself (a user's value for them would break framing). */
const OWN_HEADERS = new Set(["content-length", "transfer-encoding", "connection"]);

/** A header name as this transport writes it: checked and encoded once. */
interface HeaderName {
  /** `name: ` as bytes. */
  lead: Uint8Array;
  /** One of OWN_HEADERS: not written. */
  own: boolean;
  host: boolean;
  auth: boolean;
  /** `Accept-Encoding`: the caller's value is sent instead of `identity`. */
  encoding: boolean;
  /** The last value checked for this name: the same string again is not checked again. */
  valid: string | null;
}

/**
 * Header names seen so far, null for an invalid one: the same few come with every request, so
 * each is checked, lower-cased and encoded once rather than per request.
 */
const headerNames = new Map<string, HeaderName | null>();

/** What `name` is to this transport; null when it is not a valid header name (an HTTP token). */
function headerName(name: string): HeaderName | null {
  let info = headerNames.get(name);
  if (info === undefined) {
    const lower = name.toLowerCase();
    info = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)
      ? {
        lead: encoder.encode(`${name}: `),
        own: OWN_HEADERS.has(lower),
        host: lower === "host",
        auth: lower === "authorization",
        encoding: lower === "accept-encoding",
        valid: null,
      }
      : null;
    if (headerNames.size < 1024) headerNames.set(name, info);
  }
  return info;
}

/**
 * True when `value` can be sent as a header value: a byte string (each character below 256,
 * written as one byte, as fetch sends it) without CR, LF or NUL.
 */
function validValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (!validValueChar(value.charCodeAt(i))) return false;
  return true;
}

/** True when character code `c` can be in a header value (see `validValue`). */
function validValueChar(c: number): boolean {
  return c <= 255 && c !== 13 && c !== 10 && c !== 0;
}

function invalidHeader(name: string): TypeError {
  return new TypeError(`header ${JSON.stringify(name)} has an invalid name or value`);
}

const CONTENT_LENGTH = encoder.encode("content-length: ");
/**
 * Sent unless the caller gives an `Accept-Encoding`: answers are read as they come, never
 * decoded, on either transport (an encoded answer is a protocol error, docs/errors.md).
 */
const IDENTITY = encoder.encode("accept-encoding: identity\r\n");

/** The header names' bytes and values `requestMessage` writes, noted while it checks them. */
const headerLeads: Uint8Array[] = [];
const headerValues: string[] = [];
/** For each header written, its place among the headers given. */
const headerPlaces: number[] = [];

/**
 * An exchange's last request message, in the memory it keeps, and where its parts lie. A slot's
 * requests usually have the same headers but for a request id, and bodies of a like size: the
 * next message is then this one with the changed values, the length and the body written over
 * theirs, rather than written whole.
 *
 * What the next message is compared with lies in few objects: this one and one array. With
 * hundreds of streams, a message was last touched hundreds of requests ago, and each object read
 * again is a trip to memory: in a run of 512 streams, the comparison of headers kept in three
 * arrays took about a microsecond a request, against about 0.1 in a loop over one message.
 */
export class LastMessage {
  /** The message; null when none is kept. */
  bytes: Uint8Array | null = null;
  target: Target | null = null;
  body: string | Uint8Array | null = null;
  /**
   * Four entries per header, in the order the headers were given: its name; its value, or null
   * once it changed (see `rewrite`); where the value starts in `bytes` (-1 for a header not
   * written, one of OWN_HEADERS); the value's length.
   */
  headers: (string | number | null)[] = [];
  /** Where the content length's digits start, and how many there are. */
  lengthAt = 0;
  lengthDigits = 0;
  /** Where the body starts. */
  bodyAt = 0;
}

/** Entries of `LastMessage.headers` per header. */
const HEADER_ENTRIES = 4;

/**
 * `last`'s message with what differs written over it: the values of `headers` that changed, and
 * a body of bytes that is not the same object, with its length. Null when the message must be
 * written whole: another target, a body that is a string (not the same), a length with another
 * number of digits, a message longer than `room`, other header names or order, a changed value
 * that is not a string of the same length (values already written over stay, and are noted as
 * changed in `last`).
 * Throws, as `requestMessage`, on a value that could not be sent; `last` then holds no message.
 */
function rewrite(
  last: LastMessage,
  target: Target,
  headers: Record<string, string>,
  body: string | Uint8Array,
  room: Uint8Array,
): Uint8Array | null {
  let bytes = last.bytes;
  if (bytes === null || last.target !== target) return null;
  const sameBody = last.body === body;
  let length = "";
  if (!sameBody) {
    if (typeof body === "string" || last.bodyAt + body.length > room.length) return null;
    length = String(body.length);
    if (length.length !== last.lengthDigits) return null;
  }
  const kept = last.headers;
  let i = 0;
  for (const name in headers) {
    if (i === kept.length || name !== kept[i]) return null;
    const value = headers[name];
    const at = kept[i + 2] as number;
    // The same string as before costs no read of either; a value that changed is written
    // whatever it was, and is not kept: comparing a new string with the old one would read the
    // old one, and the value that changed (a request id) changes on every request.
    if (at >= 0 && value !== kept[i + 1]) {
      if (typeof value !== "string" || value.length !== kept[i + 3]) return null;
      // Checked while it is written.
      for (let k = 0; k < value.length; k++) {
        const c = value.charCodeAt(k);
        if (!validValueChar(c)) {
          last.bytes = null;
          throw invalidHeader(name);
        }
        bytes[at + k] = c;
      }
      kept[i + 1] = null;
    }
    i += HEADER_ENTRIES;
  }
  if (i !== kept.length) return null;
  if (sameBody) return bytes;
  const b = body as Uint8Array;
  putByteString(bytes, last.lengthAt, length);
  const total = last.bodyAt + b.length;
  if (total !== bytes.length) last.bytes = bytes = room.subarray(0, total);
  bytes.set(b, last.bodyAt);
  last.body = body;
  return bytes;
}

/**
 * The request's bytes, head and body, for one write; throws on a header that could not be sent
 * as is. The head's constant parts are bytes kept with the target and the header names; values
 * are written a character a byte, with no string built for the head. When `last` holds a
 * message of the same target and header names, what differs is written over it (`rewrite`):
 * in a loop of 1,000,000 messages with a new request id each, 125 ns a message rather than 350.
 * Otherwise the message is written whole: over `last`'s when it has the same length, else at the
 * start of `spare` when it fits, else into new memory; `last` then describes the message when it
 * is in `spare`'s memory, and holds none otherwise.
 * With `bodyApart` (a body of bytes), the message is the head alone, its length the body's: the
 * caller writes the body after it from where it lies, with no copy (a body of a megabyte would
 * otherwise be copied into new memory at each request, garbage that is collected late).
 */
export function requestMessage(
  target: Target,
  headers: Record<string, string>,
  body: string | Uint8Array,
  spare: Uint8Array | null = null,
  last: LastMessage | null = null,
  bodyApart = false,
): Uint8Array {
  if (last !== null && spare !== null && !bodyApart) {
    const again = rewrite(last, target, headers, body, spare);
    if (again !== null) return again;
  }
  const bodyBytes = typeof body === "string" ? encoder.encode(body) : body;
  // Checked and measured first, written after: the message is made at its size. The headers to
  // write are noted as they are checked, so each name is looked up once.
  let size = target.line.length;
  let hasHost = false;
  let hasAuth = false;
  let hasEncoding = false;
  let count = 0;
  let given = 0;
  for (const name in headers) {
    const info = headerName(name);
    if (info === null) throw invalidHeader(name);
    given++;
    if (info.own) continue;
    const value = String(headers[name]);
    if (value !== info.valid) {
      if (!validValue(value)) throw invalidHeader(name);
      info.valid = value;
    }
    if (info.host) hasHost = true;
    if (info.auth) hasAuth = true;
    if (info.encoding) hasEncoding = true;
    size += info.lead.length + value.length + 2;
    headerLeads[count] = info.lead;
    headerPlaces[count] = given - 1;
    headerValues[count++] = value;
  }
  const auth = hasAuth ? null : target.authLine;
  if (!hasHost) size += target.hostLine.length;
  if (auth !== null) size += auth.length;
  if (!hasEncoding) size += IDENTITY.length;
  const length = String(bodyBytes.length);
  size += CONTENT_LENGTH.length + length.length + 4;

  const total = bodyApart ? size : size + bodyBytes.length;
  const old = last?.bytes ?? null;
  const out = old !== null && old.length === total
    ? old
    : spare !== null && spare.length >= total
    ? spare.subarray(0, total)
    : new Uint8Array(total);
  const kept = !bodyApart && last !== null && spare !== null && out.buffer === spare.buffer;
  if (kept) {
    last.bytes = out;
    last.target = target;
    last.body = body;
    const h = last.headers;
    h.length = 0;
    for (const name in headers) h.push(name, String(headers[name]), -1, 0);
  } else if (last !== null) last.bytes = null;
  let at = putBytes(out, 0, target.line);
  for (let i = 0; i < count; i++) {
    at = putBytes(out, at, headerLeads[i]);
    if (kept) {
      const k = headerPlaces[i] * HEADER_ENTRIES;
      last.headers[k + 2] = at;
      last.headers[k + 3] = headerValues[i].length;
    }
    at = putByteString(out, at, headerValues[i]);
    out[at++] = CR;
    out[at++] = LF;
  }
  if (!hasHost) at = putBytes(out, at, target.hostLine);
  if (auth !== null) at = putBytes(out, at, auth);
  if (!hasEncoding) at = putBytes(out, at, IDENTITY);
  at = putBytes(out, at, CONTENT_LENGTH);
  if (kept) {
    last.lengthAt = at;
    last.lengthDigits = length.length;
  }
  at = putByteString(out, at, length);
  out[at++] = CR;
  out[at++] = LF;
  out[at++] = CR;
  out[at++] = LF;
  if (kept) last.bodyAt = at;
  if (!bodyApart) out.set(bodyBytes, at);
  return out;
}
