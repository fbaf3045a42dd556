/**
 * How a replayed body (raw_payload, inputs_json) meets `--streaming` and
 * `--use-server-token-count`: fields it lacks are appended to its top-level object as text, the
 * rest of its bytes untouched, so the server sees the file's body plus exactly what was added.
 */

import type { Endpoint } from "./types.ts";

/** What shapes a replayed body. */
export interface ReplayOptions {
  /** The run streams (`--streaming`, and the endpoint can). */
  streaming: boolean;
  /** `--use-server-token-count`: chat streams are asked to end with usage. */
  useServerTokenCount: boolean;
}

/** Appends `"key":<json>` to the top-level object `body` (known to be one, with `keys` members). */
function append(body: string, keys: number, key: string, json: string): string {
  const end = body.lastIndexOf("}");
  return `${body.slice(0, end)}${keys === 0 ? "" : ","}"${key}":${json}${body.slice(end)}`;
}

/**
 * The body to send for a replayed one. With streaming, an endpoint that streams by a body key
 * gets `"stream":true` when the body does not say; TGI (streams by URL path) and raw (the body
 * decides) are sent as they are. A chat or Responses body that streams and has no
 * `stream_options` gets `"stream_options":{"include_usage":true}` with server token counts (as
 * AIPerf sets it for both), or the server would send no usage. A body that is not a JSON object is sent as it is.
 */
export function replayBody(body: string, endpoint: Endpoint, opts: ReplayOptions): string {
  if (!opts.streaming) return body;
  const how = endpoint.streamRequest ?? "key";
  if (how !== "key") return body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return body;
  const obj = parsed as Record<string, unknown>;
  let keys = Object.keys(obj).length;
  let out = body;
  if (!("stream" in obj)) {
    out = append(out, keys++, "stream", "true");
  }
  const streams = !("stream" in obj) || obj.stream === true;
  if (
    (endpoint.type === "chat" || endpoint.type === "responses") && opts.useServerTokenCount &&
    streams && !("stream_options" in obj)
  ) {
    out = append(out, keys++, "stream_options", `{"include_usage":true}`);
  }
  return out;
}
