/**
 * `POST /generate` and `POST /generate_stream`: Hugging Face Text Generation Inference.
 * `parameters.max_new_tokens` sets the length; the last stream event carries `generated_text`.
 */

import {
  answerLength,
  answerReady,
  type Exchange,
  type MockContext,
  streamBody,
} from "./context.ts";
import { jsonReply, sseReply, tgiError } from "./reply.ts";
import type { StreamScript } from "./stream.ts";
import { tokenJson, tokensText } from "./tokens.ts";

/** The request's `inputs` and `parameters`, or an error answer. */
function read(ctx: MockContext, body: Record<string, unknown>) {
  if (typeof body.inputs !== "string") {
    return tgiError(422, "Input validation error: `inputs` must be a string");
  }
  const params = (body.parameters ?? {}) as Record<string, unknown>;
  const max = params.max_new_tokens;
  if (max !== undefined && max !== null && (!Number.isInteger(max) || (max as number) < 1)) {
    return tgiError(422, "Input validation error: `max_new_tokens` must be strictly positive");
  }
  const { count, limited } = answerLength(ctx, max);
  return {
    input: ctx.tokenizer.count(body.inputs),
    count,
    finish: limited ? "length" : "eos_token",
    details: params.details === true,
    seed: typeof params.seed === "number" ? params.seed : null,
  };
}

/** Answers `/generate`: `{generated_text}`, with `details` when asked for. */
export async function generate(ctx: MockContext, ex: Exchange): Promise<Response> {
  const req = read(ctx, ex.body);
  if (req instanceof Response) return req;
  await answerReady(ctx, ex, req.count);
  const details = req.details
    ? `,"details":{"finish_reason":"${req.finish}","generated_tokens":${req.count},"seed":${req.seed},"prefill":[],"tokens":[]}`
    : "";
  return jsonReply(`{"generated_text":${JSON.stringify(tokensText(0, req.count))}${details}}`);
}

/** Answers `/generate_stream`: one `data:` event per token, the last with the whole text. */
export function generateStream(ctx: MockContext, ex: Exchange): Response {
  const req = read(ctx, ex.body);
  if (req instanceof Response) return req;
  const { count } = req;
  const last = `,"generated_text":${
    JSON.stringify(tokensText(0, count))
  },"details":{"finish_reason":"${req.finish}","generated_tokens":${count},"seed":${req.seed},"input_length":${req.input}}}\n\n`;
  const script: StreamScript = {
    head: "",
    count,
    event: (k) =>
      `data:{"index":${k + 1},"token":{"id":${ctx.tokenizer.id(k)},"text":${
        tokenJson(k)
      },"logprob":-0.5,"special":false}${
        k === count - 1 ? last : `,"generated_text":null,"details":null}\n\n`
      }`,
    tail: "",
  };
  return sseReply(streamBody(ctx, ex, script));
}
