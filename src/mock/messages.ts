/**
 * `POST /v1/messages`: the Anthropic Messages API. `max_tokens` is required and sets the answer
 * length; reasoning is a `thinking` block before the `text` block.
 */

import {
  answerReady,
  contentText,
  countMessages,
  type Exchange,
  type MockContext,
  streamBody,
  useModel,
} from "./context.ts";
import { anthropicError, jsonReply, sseReply } from "./reply.ts";
import type { StreamScript } from "./stream.ts";
import { REASONING_OFFSET, tokenJson, tokensText } from "./tokens.ts";

/** The signature a thinking block carries; clients pass it back, the mock never checks it. */
const SIGNATURE = "bW9jay1zaWduYXR1cmU=";

/** One SSE packet of the Messages stream. */
function packet(type: string, json: string): string {
  return `event: ${type}\ndata: ${json}\n\n`;
}

/** Answers an Anthropic Messages request. */
export async function messages(ctx: MockContext, ex: Exchange): Promise<Response> {
  const body = ex.body;
  const max = body.max_tokens;
  if (typeof max !== "number" || !Number.isInteger(max) || max < 1) {
    return anthropicError(400, "max_tokens: Field required (an integer of at least 1)");
  }
  if (!Array.isArray(body.messages)) return anthropicError(400, "messages: Field required");
  const model = useModel(ctx, body);
  const count = max;
  const reasoning = ctx.opts.reasoningTokens;
  const input = ctx.tokenizer.count(contentText(body.system)) + countMessages(ctx, body.messages);
  const id = `msg_${ctx.nextId()}`;
  const modelJson = JSON.stringify(model);
  const usageJson = (output: number) =>
    `{"input_tokens":${input},"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":${output}}`;

  if (body.stream !== true) {
    await answerReady(ctx, ex, reasoning + count, input);
    const thinking = reasoning > 0
      ? `{"type":"thinking","thinking":${
        JSON.stringify(tokensText(REASONING_OFFSET, reasoning))
      },"signature":"${SIGNATURE}"},`
      : "";
    return jsonReply(
      `{"id":"${id}","type":"message","role":"assistant","model":${modelJson},"content":[${thinking}{"type":"text","text":${
        JSON.stringify(tokensText(0, count))
      }}],"stop_reason":"max_tokens","stop_sequence":null,"usage":${usageJson(reasoning + count)}}`,
    );
  }

  const textIndex = reasoning > 0 ? 1 : 0;
  const ping = packet("ping", `{"type": "ping"}`);
  const thinkingOpen = packet(
    "content_block_start",
    `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
  ) + ping;
  const thinkingClose = packet(
    "content_block_delta",
    `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"${SIGNATURE}"}}`,
  ) + packet("content_block_stop", `{"type":"content_block_stop","index":0}`);
  const textOpen = packet(
    "content_block_start",
    `{"type":"content_block_start","index":${textIndex},"content_block":{"type":"text","text":""}}`,
  ) + (reasoning > 0 ? "" : ping);
  const textPre =
    `event: content_block_delta\ndata: {"type":"content_block_delta","index":${textIndex},"delta":{"type":"text_delta","text":`;
  const thinkPre =
    `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":`;
  const total = reasoning + count;
  const script: StreamScript = {
    head: packet(
      "message_start",
      `{"type":"message_start","message":{"id":"${id}","type":"message","role":"assistant","model":${modelJson},"content":[],"stop_reason":null,"stop_sequence":null,"usage":${
        usageJson(1)
      }}}`,
    ),
    count: total,
    event(k) {
      if (k < reasoning) {
        return (k === 0 ? thinkingOpen : "") + thinkPre + tokenJson(REASONING_OFFSET + k) +
          "}}\n\n";
      }
      const i = k - reasoning;
      return (i === 0 ? (reasoning > 0 ? thinkingClose : "") + textOpen : "") + textPre +
        tokenJson(i) + "}}\n\n";
    },
    tail: packet("content_block_stop", `{"type":"content_block_stop","index":${textIndex}}`) +
      packet(
        "message_delta",
        `{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":${total}}}`,
      ) +
      packet("message_stop", `{"type":"message_stop"}`),
  };
  return sseReply(streamBody(ctx, ex, script, input));
}
