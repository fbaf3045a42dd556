/** Response builders shared by the mock's routes: JSON, SSE, vendor-shaped errors, drops. */

import { failingBody } from "./stream.ts";

const JSON_HEADERS = { "content-type": "application/json" };
const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
};

/** A JSON answer from already-serialized text. */
export function jsonReply(text: string, status = 200): Response {
  return new Response(text, { status, headers: JSON_HEADERS });
}

/** A Server-Sent Events answer. */
export function sseReply(body: ReadableStream<Uint8Array>): Response {
  return new Response(body, { headers: SSE_HEADERS });
}

/** OpenAI's error shape: `{"error":{"message","type","param","code"}}`. */
export function openaiError(
  status: number,
  message: string,
  type = "invalid_request_error",
  param: string | null = null,
): Response {
  const code = status >= 500 ? status : null;
  return jsonReply(JSON.stringify({ error: { message, type, param, code } }), status);
}

/** Anthropic's error shape: `{"type":"error","error":{"type","message"}}`. */
export function anthropicError(status: number, message: string, type?: string): Response {
  const t = type ?? (status >= 500 ? "api_error" : "invalid_request_error");
  return jsonReply(JSON.stringify({ type: "error", error: { type: t, message } }), status);
}

/**
 * An answer that never arrives: the server (either kind) sends the status line and headers, then
 * the body fails before its first byte and the connection is closed, so no complete HTTP answer is
 * read.
 */
export function dropReply(): Response {
  return new Response(failingBody());
}

/** Hugging Face TGI and TEI's error shape: `{"error","error_type"}`. */
export function tgiError(status: number, message: string, errorType?: string): Response {
  const t = errorType ?? (status >= 500 ? "generation" : "validation");
  return jsonReply(JSON.stringify({ error: message, error_type: t }), status);
}

/** Cohere's error shape: `{"message"}`. */
export function cohereError(status: number, message: string): Response {
  return jsonReply(JSON.stringify({ message }), status);
}
