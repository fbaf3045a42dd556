/** `POST /v1/completions`: OpenAI legacy text completions (`text_completion`), streamed or not. */

import { openaiUsageJson } from "./chat.ts";
import {
  answerLength,
  answerReady,
  type Exchange,
  type MockContext,
  streamBody,
  unixNow,
  useModel,
} from "./context.ts";
import { jsonReply, openaiError, sseReply } from "./reply.ts";
import type { StreamScript } from "./stream.ts";
import { tokenJson, tokensText } from "./tokens.ts";

/** Prompt tokens of `prompt`: a string, a list of strings, or token ids; null when invalid. */
function promptTokens(ctx: MockContext, prompt: unknown): number | null {
  if (typeof prompt === "string") return ctx.tokenizer.count(prompt);
  if (!Array.isArray(prompt)) return null;
  let n = 0;
  for (const p of prompt) {
    if (typeof p === "string") n += ctx.tokenizer.count(p);
    else if (typeof p === "number") n += 1;
    else if (Array.isArray(p)) n += p.length;
    else return null;
  }
  return n;
}

/** Answers a text completion request; the answer has no reasoning (the API has none). */
export async function completions(ctx: MockContext, ex: Exchange): Promise<Response> {
  const body = ex.body;
  const prompt = promptTokens(ctx, body.prompt);
  if (prompt === null) {
    return openaiError(
      400,
      "'prompt' is required: a string, a list of strings, or a list of token ids.",
      undefined,
      "prompt",
    );
  }
  const model = useModel(ctx, body);
  const { count, limited } = answerLength(ctx, body.max_tokens);
  const usage = openaiUsageJson(prompt, count, 0);
  const finish = limited ? "length" : "stop";
  const id = `cmpl-${ctx.nextId()}`;
  const open = `{"id":"${id}","object":"text_completion","created":${unixNow()},"model":${
    JSON.stringify(model)
  },"system_fingerprint":"fp_mock","choices":[`;

  if (body.stream === true) {
    const opts = body.stream_options as Record<string, unknown> | undefined;
    const includeUsage = opts?.include_usage === true;
    const usageNull = includeUsage ? `,"usage":null` : "";
    const pre = `data: ${open}{"text":`;
    const post = `,"index":0,"logprobs":null,"finish_reason":null}]${usageNull}}\n\n`;
    const script: StreamScript = {
      head: "",
      count,
      event: (k) => pre + tokenJson(k) + post,
      tail: `${pre}"","index":0,"logprobs":null,"finish_reason":"${finish}"}]${usageNull}}\n\n` +
        (includeUsage ? `data: ${open}],"usage":${usage}}\n\n` : "") +
        "data: [DONE]\n\n",
    };
    return sseReply(streamBody(ctx, ex, script, prompt));
  }

  await answerReady(ctx, ex, count, prompt);
  return jsonReply(
    `${open}{"text":${
      JSON.stringify(tokensText(0, count))
    },"index":0,"logprobs":null,"finish_reason":"${finish}"}],"usage":${usage}}`,
  );
}
