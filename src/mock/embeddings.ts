/** `POST /v1/embeddings`: OpenAI embeddings, as float lists or base64 (the SDK's default). */

import {
  completionTime,
  contentText,
  type Exchange,
  type MockContext,
  useModel,
} from "./context.ts";
import { jsonReply, openaiError } from "./reply.ts";
import { imageTextProblem, messageImagesProblem } from "./image_check.ts";
import { hashString, seededRandom } from "./rng.ts";
import { sleepUntil } from "./schedule.ts";

/** Vector length when the request sets no `dimensions`. */
export const DEFAULT_DIMENSIONS = 384;

/** A unit vector determined by `text`: the same input always embeds the same way. */
export function embed(text: string, dimensions: number): Float32Array {
  const random = seededRandom(hashString(text));
  const v = new Float32Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    v[i] = random() * 2 - 1;
    norm += v[i] * v[i];
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dimensions; i++) v[i] /= norm;
  return v;
}

/** Little-endian float32 bytes in base64, as OpenAI's `encoding_format: "base64"` sends them. */
function base64Floats(v: Float32Array): string {
  const view = new DataView(new ArrayBuffer(v.length * 4));
  for (let i = 0; i < v.length; i++) view.setFloat32(i * 4, v[i], true);
  const bytes = new Uint8Array(view.buffer);
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return btoa(s);
}

/** The inputs as texts (token-id lists become their ids joined) and their token count. */
function readInputs(ctx: MockContext, input: unknown): { texts: string[]; tokens: number } | null {
  if (typeof input === "string") return { texts: [input], tokens: ctx.tokenizer.count(input) };
  if (!Array.isArray(input) || input.length === 0) return null;
  if (input.every((x) => typeof x === "number")) {
    return { texts: [input.join(" ")], tokens: input.length };
  }
  const texts: string[] = [];
  let tokens = 0;
  for (const x of input) {
    if (typeof x === "string") {
      texts.push(x);
      // An image (NIM's data URLs) is embedded too, but is no text to count.
      if (!x.startsWith("data:")) tokens += ctx.tokenizer.count(x);
    } else if (Array.isArray(x) && x.every((t) => typeof t === "number")) {
      texts.push(x.join(" "));
      tokens += x.length;
    } else return null;
  }
  return { texts, tokens };
}

/** Answers an embeddings request after the time to first token (the prefill). */
export async function embeddings(ctx: MockContext, ex: Exchange): Promise<Response> {
  const body = ex.body;
  // Images (NIM: data URLs among the inputs; chat-style: image_url parts) must decode.
  const imageProblem = Array.isArray(body.input)
    ? body.input.filter((x) => typeof x === "string" && x.startsWith("data:"))
      .map(imageTextProblem).find((p) => p !== null) ?? null
    : messageImagesProblem(body.messages);
  if (imageProblem !== null) return openaiError(400, `${imageProblem}.`, undefined, "input");
  // vLLM's chat-style embeddings send `messages` instead of `input`: each message is one text.
  const inputs = body.input === undefined && Array.isArray(body.messages)
    ? readInputs(
      ctx,
      body.messages.map((m) => contentText((m as Record<string, unknown> | null)?.content)),
    )
    : readInputs(ctx, body.input);
  if (inputs === null) {
    return openaiError(
      400,
      "'input' must be a string, a list of strings, or token ids (a list or a list of lists).",
      undefined,
      "input",
    );
  }
  const dims = body.dimensions;
  if (dims !== undefined && (!Number.isInteger(dims) || (dims as number) < 1)) {
    return openaiError(400, "'dimensions' must be a positive integer.", undefined, "dimensions");
  }
  const dimensions = (dims as number | undefined) ?? DEFAULT_DIMENSIONS;
  const b64 = body.encoding_format === "base64";
  const model = useModel(ctx, body);
  await sleepUntil(completionTime(ctx, ex, 1), ctx.signal);
  const data = inputs.texts.map((text, index) => {
    const v = embed(text, dimensions);
    const embedding = b64 ? JSON.stringify(base64Floats(v)) : `[${v.join(",")}]`;
    return `{"object":"embedding","index":${index},"embedding":${embedding}}`;
  });
  return jsonReply(
    `{"object":"list","data":[${data.join(",")}],"model":${
      JSON.stringify(model)
    },"usage":{"prompt_tokens":${inputs.tokens},"total_tokens":${inputs.tokens}}}`,
  );
}
