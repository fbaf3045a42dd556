/**
 * `POST /v1/images/generations` and `POST /v1/images/edits`: OpenAI's images API. Every image is
 * the same tiny PNG, given after the answer's time (a token's time per image). Generation takes
 * JSON and may stream: `partial_images` (0-3) `image_generation.partial_image` events per image,
 * then one `image_generation.completed` event each. Edits take a multipart form whose `image`
 * (or `image[]`) file part must decode as an image, or SGLang's `url` field.
 */

import {
  completionTime,
  type Exchange,
  type MockContext,
  streamBody,
  unixNow,
  useModel,
} from "./context.ts";
import { imageBytesProblem, TINY_PNG } from "./image_check.ts";
import { jsonReply, openaiError, sseReply } from "./reply.ts";
import { sleepUntil } from "./schedule.ts";

/** Most images one request may ask for, as OpenAI allows. */
const MAX_IMAGES = 10;

/** The request's `n` (default 1), or an error answer. */
function imageCount(n: unknown): number | Response {
  if (n === undefined || n === null) return 1;
  if (typeof n === "string" && /^\d+$/.test(n)) n = Number(n);
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > MAX_IMAGES) {
    return openaiError(400, `'n' must be an integer from 1 to ${MAX_IMAGES}.`, undefined, "n");
  }
  return n;
}

/** The answer's settings, echoed as OpenAI echoes them. */
function settings(body: Record<string, unknown>): Record<string, unknown> {
  return {
    size: typeof body.size === "string" ? body.size : "1024x1024",
    quality: typeof body.quality === "string" ? body.quality : "auto",
    background: typeof body.background === "string" ? body.background : "auto",
    output_format: "png",
  };
}

/** The usage an images answer reports: the prompt's tokens in, a fixed count per image out. */
function usage(ctx: MockContext, prompt: string, n: number): Record<string, unknown> {
  const input = ctx.tokenizer.count(prompt);
  const output = 16 * n;
  return {
    total_tokens: input + output,
    input_tokens: input,
    output_tokens: output,
    input_tokens_details: { text_tokens: input, image_tokens: 0 },
  };
}

/** The whole answer: `{created, data: [{b64_json}], usage, …settings}`. */
async function wholeAnswer(
  ctx: MockContext,
  ex: Exchange,
  prompt: string,
  n: number,
): Promise<Response> {
  const b64 = ex.body.response_format !== "url";
  await sleepUntil(completionTime(ctx, ex, n), ctx.signal);
  const data = Array.from(
    { length: n },
    () => (b64 ? { b64_json: TINY_PNG } : { url: `data:image/png;base64,${TINY_PNG}` }),
  );
  return jsonReply(JSON.stringify({
    created: unixNow(),
    data,
    ...settings(ex.body),
    usage: usage(ctx, prompt, n),
  }));
}

/** Answers an image generation request, streamed when it asks (`stream: true`). */
export function imageGenerations(ctx: MockContext, ex: Exchange): Response | Promise<Response> {
  const body = ex.body;
  if (typeof body.prompt !== "string" || body.prompt === "") {
    return openaiError(400, "'prompt' is required.", undefined, "prompt");
  }
  const n = imageCount(body.n);
  if (n instanceof Response) return n;
  useModel(ctx, body);
  if (body.stream !== true) return wholeAnswer(ctx, ex, body.prompt, n);
  const partials = body.partial_images ?? 0;
  if (typeof partials !== "number" || !Number.isInteger(partials) || partials < 0 || partials > 3) {
    return openaiError(
      400,
      "'partial_images' must be an integer from 0 to 3.",
      undefined,
      "partial_images",
    );
  }
  const echo = settings(body);
  const per = partials + 1;
  const promptText = body.prompt;
  return sseReply(streamBody(ctx, ex, {
    head: "",
    count: n * per,
    event(k) {
      const last = k % per === per - 1;
      const type = last ? "image_generation.completed" : "image_generation.partial_image";
      const data: Record<string, unknown> = {
        type,
        b64_json: TINY_PNG,
        created_at: unixNow(),
        ...echo,
      };
      if (last) data.usage = usage(ctx, promptText, 1);
      else data.partial_image_index = k % per;
      return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
    },
    tail: "",
  }, ctx.tokenizer.count(promptText)));
}

/** Reads an image edit's form: its fields and the reference image, or an error answer. */
async function readEditForm(req: Request): Promise<Record<string, unknown> | Response> {
  const type = req.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data")) {
    return openaiError(400, "The image edit body must be multipart/form-data.");
  }
  let form: FormData;
  try {
    form = await req.formData();
  } catch (e) {
    return openaiError(400, `We could not parse the multipart body: ${(e as Error).message}`);
  }
  const fields: Record<string, unknown> = {};
  let images = 0;
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") {
      fields[name] = value;
      continue;
    }
    if (name !== "image" && name !== "image[]" && name !== "mask") continue;
    const problem = imageBytesProblem(new Uint8Array(await value.arrayBuffer()));
    if (problem !== null) return openaiError(400, `'${name}': ${problem}.`, undefined, name);
    if (name !== "mask") images++;
  }
  if (images === 0 && typeof fields.url !== "string") {
    return openaiError(
      400,
      "'image' is required: a file part (or SGLang's 'url').",
      undefined,
      "image",
    );
  }
  return fields;
}

/**
 * `POST /v1/images/edits`: checks the form, then answers as generation does (never streamed:
 * the form's `stream` is ignored).
 */
export async function imageEdits(
  ctx: MockContext,
  req: Request,
  arrival: number,
): Promise<Response> {
  const fields = await readEditForm(req);
  if (fields instanceof Response) return fields;
  if (typeof fields.prompt !== "string" || fields.prompt === "") {
    return openaiError(400, "'prompt' is required.", undefined, "prompt");
  }
  const n = imageCount(fields.n);
  if (n instanceof Response) return n;
  useModel(ctx, fields);
  const ex: Exchange = {
    body: fields,
    arrival,
    truncate: false,
    requestId: req.headers.get("x-request-id"),
  };
  return await wholeAnswer(ctx, ex, fields.prompt, n);
}
