/** `POST /v1/chat/completions`: OpenAI chat completions, streamed (`chat.completion.chunk`) or not. */

import {
  answerLength,
  answerReady,
  countMessages,
  type Exchange,
  type MockContext,
  streamBody,
  unixNow,
  useModel,
} from "./context.ts";
import { jsonReply, openaiError, sseReply } from "./reply.ts";
import type { StreamScript } from "./stream.ts";
import { REASONING_OFFSET, tokenJson, tokensText } from "./tokens.ts";

/** OpenAI's `usage` object as JSON text; `completion` includes `reasoning`. */
export function openaiUsageJson(prompt: number, completion: number, reasoning: number): string {
  return `{"prompt_tokens":${prompt},"completion_tokens":${completion},"total_tokens":${
    prompt + completion
  },"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":${reasoning},"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}`;
}

/** Answers a chat completion request. */
export async function chatCompletions(ctx: MockContext, ex: Exchange): Promise<Response> {
  const body = ex.body;
  if (!Array.isArray(body.messages)) {
    return openaiError(400, "'messages' is required and must be an array.", undefined, "messages");
  }
  const model = useModel(ctx, body);
  const { count, limited } = answerLength(ctx, body.max_completion_tokens, body.max_tokens);
  const reasoning = ctx.opts.reasoningTokens;
  const prompt = ctx.countPrompt?.(body) ?? countMessages(ctx, body.messages);
  const usage = openaiUsageJson(prompt, count + reasoning, reasoning);
  const finish = limited ? "length" : "stop";
  const id = `chatcmpl-${ctx.nextId()}`;
  const created = unixNow();
  const modelJson = JSON.stringify(model);

  if (body.stream === true) {
    const opts = body.stream_options as Record<string, unknown> | undefined;
    const includeUsage = opts?.include_usage === true;
    const usageNull = includeUsage ? `,"usage":null` : "";
    const open =
      `data: {"id":"${id}","object":"chat.completion.chunk","created":${created},"model":${modelJson},"system_fingerprint":"fp_mock","choices":[`;
    const pre = `${open}{"index":0,"delta":`;
    const post = `,"logprobs":null,"finish_reason":null}]${usageNull}}\n\n`;
    const role = `${pre}{"role":"assistant","content":"","refusal":null}${post}`;
    const total = reasoning + count;
    const script: StreamScript = {
      head: "",
      count: total,
      event(k) {
        const delta = k < reasoning
          ? `{"reasoning_content":${tokenJson(REASONING_OFFSET + k)}}`
          : `{"content":${tokenJson(k - reasoning)}}`;
        return (k === 0 ? role : "") + pre + delta + post;
      },
      tail: (total === 0 ? role : "") +
        `${pre}{},"logprobs":null,"finish_reason":"${finish}"}]${usageNull}}\n\n` +
        (includeUsage ? `${open}],"usage":${usage}}\n\n` : "") +
        "data: [DONE]\n\n",
    };
    return sseReply(streamBody(ctx, ex, script, prompt));
  }

  await answerReady(ctx, ex, reasoning + count, prompt);
  const reasoningField = reasoning > 0
    ? `,"reasoning_content":${JSON.stringify(tokensText(REASONING_OFFSET, reasoning))}`
    : "";
  return jsonReply(
    `{"id":"${id}","object":"chat.completion","created":${created},"model":${modelJson},"choices":[{"index":0,"message":{"role":"assistant","content":${
      JSON.stringify(tokensText(0, count))
    }${reasoningField},"refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"${finish}"}],"usage":${usage},"service_tier":"default","system_fingerprint":"fp_mock"}`,
  );
}
