/**
 * Answer-level faults: a route's `Response` reshaped (status, headers, body bytes) so that either
 * HTTP server sends the fault. Streamed answers are reshaped event by event as they are made, so a
 * fault does not hold the stream back; other answers are reshaped whole.
 */

import type { AnswerFault } from "./faults.ts";
import { dropReply } from "./reply.ts";
import { sleepUntil } from "./schedule.ts";

/** What the reshaping needs besides the answer. */
export interface FaultParams {
  /** Longest stall before the mock closes the connection (ms). */
  stallMs: number;
  /** Size of the padding of a `large-event` (bytes). */
  eventBytes: number;
  /** Aborted when the server closes: ends stalls. */
  signal: AbortSignal;
}

/** Builds an error answer in the route's vendor shape. */
export type ErrorShape = (status: number, message: string) => Response;

const enc = new TextEncoder();
/** Bytes that are never valid UTF-8 (0xFF, 0xFE cannot appear in it at all). */
export const NON_UTF8 = new Uint8Array([0xff, 0xfe, 0xc3, 0x28]);

/** Status faults: the answer replaced before the route runs; null for other kinds. */
export function statusFault(
  kind: AnswerFault,
  shape: ErrorShape,
  location: string,
): Response | null {
  switch (kind) {
    case "http-500":
      return shape(500, "The mock server failed this request on purpose (http-500 fault).");
    case "http-429": {
      const res = shape(429, "Rate limit reached (the mock's http-429 fault); retry after 1 s.");
      res.headers.set("retry-after", "1");
      return res;
    }
    case "http-503":
      return new Response(
        "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n" +
          "<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n" +
          "<hr><center>mock</center>\r\n</body>\r\n</html>\r\n",
        { status: 503, headers: { "content-type": "text/html" } },
      );
    case "http-307":
      return new Response(null, { status: 307, headers: { location } });
    case "reset-after-head":
      return dropReply();
    default:
      return null;
  }
}

/** Whether the route should stop its stream half-way, without its final events. */
export function truncates(kind: AnswerFault | null): boolean {
  return kind === "truncate" || kind === "reset-mid-stream";
}

/** Whether an answer is an event stream. */
function isStream(res: Response): boolean {
  return (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
}

/** A copy of `res`'s status and headers with a new body; `drop` headers are left out. */
function withBody(
  res: Response,
  body: BodyInit | null,
  drop: string[] = [],
  add: Record<string, string> = {},
): Response {
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  for (const h of drop) headers.delete(h);
  for (const [k, v] of Object.entries(add)) headers.set(k, v);
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}

/**
 * One event's wire text (or a JSON body, `event` false) with `field` bytes spliced in right after
 * the first `{` of its data, so the JSON keeps its shape (when `field` ends with a comma) and the
 * event its place; the text unchanged (encoded) when it has no JSON object.
 */
function splice(text: string, field: Uint8Array, event = true): Uint8Array<ArrayBuffer> {
  const at = event ? text.search(/data: ?\{/) : text.startsWith("{") ? 0 : -1;
  const brace = at < 0 ? -1 : text.indexOf("{", at);
  if (brace < 0) return enc.encode(text);
  const head = enc.encode(text.slice(0, brace + 1));
  const tail = enc.encode(text.slice(brace + 1));
  const out = new Uint8Array(head.length + field.length + tail.length);
  out.set(head);
  out.set(field, head.length);
  out.set(tail, head.length + field.length);
  return out;
}

/** The padding field of a `large-event`: `"mock_padding":"xxx…",`, `bytes` bytes in all. */
function paddingField(bytes: number): Uint8Array {
  const frame = `"mock_padding":"",`;
  const out = new Uint8Array(Math.max(bytes, frame.length));
  out.set(enc.encode(`"mock_padding":"`));
  out.fill(0x78, 16, out.length - 2);
  out.set(enc.encode(`",`), out.length - 2);
  return out;
}

/** The field of a `non-utf8` answer: `"mock_bytes":"<bytes that are not UTF-8>",`. */
function nonUtf8Field(): Uint8Array {
  const head = enc.encode(`"mock_bytes":"`);
  const tail = enc.encode(`",`);
  const out = new Uint8Array(head.length + NON_UTF8.length + tail.length);
  out.set(head);
  out.set(NON_UTF8, head.length);
  out.set(tail, head.length + NON_UTF8.length);
  return out;
}

/** The wire text of an `event: error` event in OpenAI's error shape. */
export const ERROR_EVENT = `event: error\ndata: {"error":{"message":"The mock server failed ` +
  `this stream on purpose (event-error fault).","type":"server_error","param":null,"code":500}}\n\n`;

/** Per event: the bytes to send instead, or "end" to end the stream cleanly after `out`. */
type EventMap = (event: string, index: number) => { out: Uint8Array[]; end?: boolean };

/**
 * Splits an event stream into events (the mock ends each with a blank line) and maps each one as
 * it comes; `failAtEnd` makes the stream fail where it would have ended.
 */
function mapEvents(
  body: ReadableStream<Uint8Array>,
  map: EventMap,
  failAtEnd = false,
): ReadableStream<Uint8Array> {
  const dec = new TextDecoder();
  let buf = "";
  let index = 0;
  let ended = false;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (ended) return;
        buf += dec.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buf.indexOf("\n\n")) >= 0) {
          const event = buf.slice(0, cut + 2);
          buf = buf.slice(cut + 2);
          const r = map(event, index++);
          for (const b of r.out) controller.enqueue(b);
          if (r.end) {
            ended = true;
            controller.terminate();
            return;
          }
        }
      },
      flush(controller) {
        if (buf !== "") controller.enqueue(enc.encode(buf));
        if (failAtEnd) throw new Error("mock server reset the connection mid-stream");
      },
    }),
  );
}

/** The first event carrying JSON data gets `field`; the rest pass unchanged. */
function spliceFirst(field: () => Uint8Array): EventMap {
  let done = false;
  return (event) => {
    if (!done && /data: ?\{/.test(event)) {
      done = true;
      return { out: [splice(event, field())] };
    }
    return { out: [enc.encode(event)] };
  };
}

/** A body that sends nothing until `stallMs` passed or the server closes, then fails. */
function stallBody(params: FaultParams): ReadableStream<Uint8Array> {
  const gone = new AbortController();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const signal = AbortSignal.any([params.signal, gone.signal]);
      await sleepUntil(performance.now() + params.stallMs, signal);
      controller.error(new Error("mock server ended a stalled answer"));
    },
    cancel() {
      gone.abort();
    },
  }, { highWaterMark: 0 });
}

/** A body of `bytes` that fails after them. */
function failingAfter(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent && bytes.length > 0) {
        sent = true;
        controller.enqueue(bytes);
        return;
      }
      controller.error(new Error("mock server reset the connection mid-body"));
    },
  }, { highWaterMark: 0 });
}

/**
 * Reshapes a successful answer for a body fault. Kinds that do not apply to this answer (a stream
 * fault on a whole answer) leave it unchanged.
 */
export async function bodyFault(
  kind: AnswerFault,
  res: Response,
  params: FaultParams,
): Promise<Response> {
  if (res.body === null) return res;
  const stream = isStream(res);
  if (kind === "stall") {
    await res.body.cancel();
    return withBody(res, stallBody(params));
  }
  if (kind === "gzip") {
    return withBody(res, res.body.pipeThrough(new CompressionStream("gzip")), [], {
      "content-encoding": "gzip",
    });
  }
  if (stream) {
    const body = res.body;
    switch (kind) {
      case "reset-mid-stream":
        return withBody(res, mapEvents(body, (e) => ({ out: [enc.encode(e)] }), true));
      case "invalid-json":
        return withBody(res, mapEvents(body, invalidJsonEvents()));
      case "event-error":
        return withBody(
          res,
          mapEvents(body, (e) => ({ out: [enc.encode(e), enc.encode(ERROR_EVENT)], end: true })),
        );
      case "large-event":
        return withBody(res, mapEvents(body, spliceFirst(() => paddingField(params.eventBytes))));
      case "non-utf8":
        return withBody(res, mapEvents(body, spliceFirst(nonUtf8Field)));
      default:
        return res;
    }
  }
  switch (kind) {
    case "reset-mid-stream": {
      const bytes = new Uint8Array(await res.arrayBuffer());
      return withBody(res, failingAfter(bytes.subarray(0, bytes.length >> 1)));
    }
    case "invalid-json": {
      const text = await res.text();
      return withBody(res, text.slice(0, text.length >> 1));
    }
    case "large-event":
      return withBody(res, splice(await res.text(), paddingField(params.eventBytes), false));
    case "non-utf8":
      return withBody(res, splice(await res.text(), nonUtf8Field(), false));
    default:
      return res;
  }
}

/** The first JSON event is cut half-way through its JSON; the rest pass unchanged. */
function invalidJsonEvents(): EventMap {
  let done = false;
  return (event) => {
    const m = /data: ?(\{.*)\n\n$/s.exec(event);
    if (done || m === null) return { out: [enc.encode(event)] };
    done = true;
    const json = m[1];
    return {
      out: [
        enc.encode(event.slice(0, m.index) + "data: " + json.slice(0, json.length >> 1) + "\n\n"),
      ],
    };
  };
}
