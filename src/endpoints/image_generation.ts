/**
 * OpenAI image generation (`/v1/images/generations`, also SGLang's diffusion server): a prompt
 * in, images out. Streamed (`stream: true`), the server sends `image_generation.partial_image`
 * events as the picture takes shape and one `image_generation.completed` event per image. The
 * answer is images, not tokens: a readable answer is a success, and the images it carried are
 * counted (`num_images`).
 */

import type { Endpoint, FormatOptions, Parsed, SseEvent, TurnInput } from "./types.ts";
import { errorIn, expectObject, isObject, type JsonObject } from "./json.ts";
import { normalizeUsage } from "./usage.ts";
import { withExtras } from "./format.ts";

/** The stream event carrying one finished image. */
export const IMAGE_COMPLETED = "image_generation.completed";
/** The stream event carrying a preview of an image in progress. */
export const IMAGE_PARTIAL = "image_generation.partial_image";

/** The turn's prompt: its first text, as AIPerf takes it; throws when there is none. */
export function mediaPrompt(type: string, turn: TurnInput): string {
  const prompt = turn.texts[0];
  if (prompt === undefined || prompt === "") {
    throw new Error(`the ${type} endpoint needs a text prompt: the turn has none`);
  }
  return prompt;
}

/**
 * An images body as AIPerf builds it: `{prompt, model, response_format: "b64_json", n: 1}`,
 * `stream: true` when streaming; `--extra-inputs` (`size`, `quality`, `partial_images`, …) last.
 */
export function formatImageGenerationPayload(turn: TurnInput, opts: FormatOptions): JsonObject {
  const body: JsonObject = {
    prompt: mediaPrompt("image_generation", turn),
    model: opts.model,
    response_format: "b64_json",
    n: 1,
  };
  if (opts.streaming) body.stream = true;
  return withExtras(body, opts);
}

/**
 * Reads a whole images answer: `{created, data: [{b64_json | url, revised_prompt?}], usage?}`.
 * Throws when `data` is not a list.
 */
export function parseImagesBody(json: unknown): Parsed {
  const obj = expectObject(json, "the answer");
  const error = errorIn(obj);
  if (error) return { error };
  if (!Array.isArray(obj.data)) throw new Error('expected a "data" array of images');
  const images =
    obj.data.filter((d) =>
      isObject(d) && (typeof d.b64_json === "string" || typeof d.url === "string")
    ).length;
  const out: Parsed = { answered: true, media: { images } };
  const usage = normalizeUsage(obj.usage);
  if (usage) out.usage = usage;
  return out;
}

/**
 * Reads one stream event: a completed image counts one image (with the usage it reports), a
 * partial image is progress and carries nothing to count. The type is the event's name or the
 * data's `type`.
 */
export function parseImagesEvent(event: SseEvent): Parsed | null {
  if (event.data === "" || event.data === "[DONE]") return null;
  const obj = expectObject(JSON.parse(event.data), "the event");
  const error = errorIn(obj);
  if (error) return { error };
  const type = event.event || (typeof obj.type === "string" ? obj.type : "");
  if (type === IMAGE_COMPLETED) {
    // A stream cut before its first finished image is truncated: this is its end marker.
    const out: Parsed = { answered: true, done: true, media: { images: 1 } };
    const usage = normalizeUsage(obj.usage);
    if (usage) out.usage = usage;
    return out;
  }
  if (type === IMAGE_PARTIAL) return null;
  // A server that streams whole answers (`data: [...]`) is read as such.
  return Array.isArray(obj.data) ? parseImagesBody(obj) : null;
}

/** The `image_generation` endpoint type. */
export const imageGenerationEndpoint: Endpoint = {
  type: "image_generation",
  path: "/v1/images/generations",
  supportsStreaming: true,
  metricsTitle: "Image Generation Metrics",
  producesTokens: false,
  expectsDoneMarker: true,
  formatPayload: formatImageGenerationPayload,
  parseResponse: parseImagesBody,
  parseEvent: parseImagesEvent,
};
