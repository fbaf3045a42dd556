/**
 * `POST /v1/responses`: the OpenAI Responses API. Streaming sends typed events (`event: <type>`
 * plus JSON carrying `type` and `sequence_number`); reasoning goes in a `reasoning` output item
 * before the `message` item.
 */

import {
  answerLength,
  answerReady,
  contentText,
  type Exchange,
  type MockContext,
  streamBody,
  unixNow,
  useModel,
} from "./context.ts";
import { jsonReply, openaiError, sseReply } from "./reply.ts";
import type { StreamScript } from "./stream.ts";
import { REASONING_OFFSET, tokenJson, tokensText } from "./tokens.ts";

/** Prompt tokens of `input` (a string or a list of items) plus `instructions`; null if invalid. */
function inputTokens(ctx: MockContext, input: unknown, instructions: unknown): number | null {
  let n = typeof instructions === "string" ? ctx.tokenizer.count(instructions) : 0;
  if (typeof input === "string") return n + ctx.tokenizer.count(input);
  if (!Array.isArray(input)) return null;
  for (const item of input) {
    if (typeof item === "string") n += ctx.tokenizer.count(item);
    else if (item && typeof item === "object") {
      const it = item as Record<string, unknown>;
      n += ctx.tokenizer.count(contentText(it.content ?? it.text ?? it.output ?? ""));
    }
  }
  return n;
}

/** One SSE packet of the Responses stream. `fields` is JSON text after `type` and number. */
function packet(type: string, seq: number, fields: string): string {
  return `event: ${type}\ndata: {"type":"${type}","sequence_number":${seq}${fields}}\n\n`;
}

/** Answers a Responses API request. */
export async function responses(ctx: MockContext, ex: Exchange): Promise<Response> {
  const body = ex.body;
  const prompt = inputTokens(ctx, body.input, body.instructions);
  if (prompt === null) {
    return openaiError(
      400,
      "'input' is required: a string or a list of input items.",
      undefined,
      "input",
    );
  }
  const model = useModel(ctx, body);
  const { count } = answerLength(ctx, body.max_output_tokens);
  const reasoning = ctx.opts.reasoningTokens;
  const id = ctx.nextId();
  const msgId = `msg_${id}`;
  const rsId = `rs_${id}`;
  const answer = tokensText(0, count);
  const thought = tokensText(REASONING_OFFSET, reasoning);
  const usage = {
    input_tokens: prompt,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: count + reasoning,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: prompt + count + reasoning,
  };
  const reasoningPart = (text: string) => ({ type: "reasoning_text", text });
  const textPart = (text: string) => ({ type: "output_text", text, annotations: [], logprobs: [] });
  const reasoningItem = (status: string, text: string | null) => ({
    id: rsId,
    type: "reasoning",
    summary: [],
    content: text === null ? [] : [reasoningPart(text)],
    status,
  });
  const messageItem = (status: string, text: string | null) => ({
    id: msgId,
    type: "message",
    status,
    content: text === null ? [] : [textPart(text)],
    role: "assistant",
  });
  const output = [
    ...(reasoning > 0 ? [reasoningItem("completed", thought)] : []),
    messageItem("completed", answer),
  ];
  const response = (status: string, done: boolean) => ({
    id: `resp_${id}`,
    object: "response",
    created_at: unixNow(),
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: typeof body.instructions === "string" ? body.instructions : null,
    max_output_tokens: typeof body.max_output_tokens === "number" ? body.max_output_tokens : null,
    model,
    output: done ? output : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage: done ? usage : null,
    user: null,
    metadata: {},
  });

  if (body.stream !== true) {
    await answerReady(ctx, ex, reasoning + count, prompt);
    return jsonReply(JSON.stringify(response("completed", true)));
  }

  // Sequence numbers follow the event order: head 0-1, then the reasoning item (2 events, R
  // deltas, 3 closing events), then the message item (2 events, N deltas, 3 closing events).
  const msgIndex = reasoning > 0 ? 1 : 0;
  const msgBase = 2 + (reasoning > 0 ? reasoning + 5 : 0);
  const inProgress = JSON.stringify(response("in_progress", false));
  const head = packet("response.created", 0, `,"response":${inProgress}`) +
    packet("response.in_progress", 1, `,"response":${inProgress}`);
  const rsRef = `,"item_id":"${rsId}","output_index":0,"content_index":0`;
  const msgRef = `,"item_id":"${msgId}","output_index":${msgIndex},"content_index":0`;
  const reasoningOpen = packet(
    "response.output_item.added",
    2,
    `,"output_index":0,"item":${JSON.stringify(reasoningItem("in_progress", null))}`,
  ) +
    packet(
      "response.content_part.added",
      3,
      `${rsRef},"part":${JSON.stringify(reasoningPart(""))}`,
    );
  const reasoningClose = reasoning === 0 ? "" : (() => {
    const s = 4 + reasoning;
    return packet("response.reasoning_text.done", s, `${rsRef},"text":${JSON.stringify(thought)}`) +
      packet(
        "response.content_part.done",
        s + 1,
        `${rsRef},"part":${JSON.stringify(reasoningPart(thought))}`,
      ) +
      packet(
        "response.output_item.done",
        s + 2,
        `,"output_index":0,"item":${JSON.stringify(reasoningItem("completed", thought))}`,
      );
  })();
  const messageOpen = packet(
    "response.output_item.added",
    msgBase,
    `,"output_index":${msgIndex},"item":${JSON.stringify(messageItem("in_progress", null))}`,
  ) +
    packet(
      "response.content_part.added",
      msgBase + 1,
      `${msgRef},"part":${JSON.stringify(textPart(""))}`,
    );
  const end = msgBase + 2 + count;
  const messageClose =
    packet("response.output_text.done", end, `${msgRef},"text":${JSON.stringify(answer)}`) +
    packet(
      "response.content_part.done",
      end + 1,
      `${msgRef},"part":${JSON.stringify(textPart(answer))}`,
    ) +
    packet(
      "response.output_item.done",
      end + 2,
      `,"output_index":${msgIndex},"item":${JSON.stringify(messageItem("completed", answer))}`,
    ) +
    packet(
      "response.completed",
      end + 3,
      `,"response":${JSON.stringify(response("completed", true))}`,
    );

  const total = reasoning + count;
  const script: StreamScript = {
    head,
    count: total,
    event(k) {
      if (k < reasoning) {
        return (k === 0 ? reasoningOpen : "") +
          packet(
            "response.reasoning_text.delta",
            4 + k,
            `${rsRef},"delta":${tokenJson(REASONING_OFFSET + k)}`,
          );
      }
      const i = k - reasoning;
      return (i === 0 ? reasoningClose + messageOpen : "") +
        packet(
          "response.output_text.delta",
          msgBase + 2 + i,
          `${msgRef},"delta":${tokenJson(i)},"logprobs":[]`,
        );
    },
    tail: (reasoning > 0 && count === 0 ? reasoningClose : "") +
      (count === 0 ? messageOpen : "") + messageClose,
  };
  return sseReply(streamBody(ctx, ex, script, prompt));
}
