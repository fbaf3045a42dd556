/** The human-readable reason in a server's error answer, whatever shape the server used. */

/** Longest message kept: enough to read the reason, short enough for a summary table. */
export const MAX_MESSAGE_LENGTH = 500;

/** Shortens `text` to `max` characters, marking the cut. */
export function truncate(text: string, max = MAX_MESSAGE_LENGTH): string {
  return text.length <= max ? text : text.slice(0, max) + "…";
}

/**
 * Finds the message in a parsed error body: OpenAI-style `{"error":{"message"}}`,
 * `{"error":"…"}`, `{"message"}` or `{"detail"}` (FastAPI); undefined when none is there.
 */
export function messageOf(json: unknown): string | undefined {
  if (typeof json === "string") return json;
  if (typeof json !== "object" || json === null) return undefined;
  const o = json as Record<string, unknown>;
  if (o.error !== undefined && o.error !== null) {
    const inner = messageOf(o.error);
    if (inner !== undefined) return inner;
  }
  if (typeof o.message === "string") return o.message;
  if (o.detail !== undefined) {
    return typeof o.detail === "string" ? o.detail : JSON.stringify(o.detail);
  }
  return undefined;
}

/**
 * The message to record for an error answer body: the JSON message when there is one,
 * else the text itself, truncated to ~500 characters.
 */
export function serverMessage(body: string): string {
  const text = body.trim();
  if (text.startsWith("{") || text.startsWith('"')) {
    try {
      const msg = messageOf(JSON.parse(text));
      if (msg !== undefined) return truncate(msg);
    } catch {
      // Not JSON after all: the text is the message.
    }
  }
  return truncate(text);
}
