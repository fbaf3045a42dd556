/** The output length a request asked for, read from its body: the input of OSL mismatch. */

/** Body fields that cap the answer's length, by API shape, first found wins. */
const FIELDS = ["max_completion_tokens", "max_tokens", "max_output_tokens", "max_new_tokens"];

/**
 * The maximum output tokens a request body asks for: `max_completion_tokens` / `max_tokens`
 * (chat, completions, messages), `max_output_tokens` (Responses), `parameters.max_new_tokens`
 * (TGI generate). Null when the body sets none or is not a JSON object.
 */
export function requestedOutputTokens(body: unknown): number | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const obj = body as Record<string, unknown>;
  const params = obj.parameters;
  const sources = [obj];
  if (typeof params === "object" && params !== null) {
    sources.push(params as Record<string, unknown>);
  }
  for (const src of sources) {
    for (const f of FIELDS) {
      const v = src[f];
      if (typeof v === "number" && Number.isFinite(v) && v > 0) return v;
    }
  }
  return null;
}
