import assert from "node:assert/strict";
import { emptyResult, EventReader, type ReadState } from "../../src/transport/send.ts";
import { SseParser } from "../../src/transport/sse.ts";
import { chatEndpoint } from "../../src/endpoints/chat.ts";

const enc = new TextEncoder();
const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${
    JSON.stringify({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1,
      model: "m",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
      usage: null,
      ...extra,
    })
  }\n\n`;

/** Reads `text` (in pieces of `step` bytes) with or without the single-line data shortcut. */
function read(text: string, shortcut: boolean, step: number) {
  const r = emptyResult();
  const state: ReadState = { done: false, answered: false };
  const events = new EventReader(r, state, chatEndpoint);
  const parser = shortcut
    ? new SseParser(events.onEvent, events.onData)
    : new SseParser(events.onEvent);
  const bytes = enc.encode(text);
  let at = 0;
  for (let i = 0; i < bytes.length; i += step) {
    events.at = ++at;
    parser.push(bytes.subarray(i, i + step));
    if (events.stop) break;
  }
  if (!events.stop) parser.end();
  events.finish();
  return { r, state };
}

Deno.test("EventReader: the single-line data shortcut reads chat streams as the general path", () => {
  const streams = [
    // The common shape: a role chunk, text chunks, a finish chunk, usage, the end marker.
    chunk({ role: "assistant", content: "" }) + chunk({ content: " the" }) +
    chunk({ content: " of" }) +
    chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) +
    chunk({}, { choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }) +
    "data: [DONE]\n\n",
    // Escapes, non-ASCII, quotes and line breaks inside the text.
    chunk({ content: "a" }) + chunk({ content: 'say "hi"\n' }) + chunk({ content: "héllo 😀" }) +
    chunk({ content: "\\" }) + "data: [DONE]\n\n",
    // Reasoning between text, and a tool call.
    chunk({ content: "x" }) + chunk({ reasoning_content: "think" }) + chunk({ content: "y" }) +
    chunk({ tool_calls: [{ index: 0, function: { name: "f", arguments: "{}" } }] }) +
    "data: [DONE]\n\n",
    // A chunk whose other fields change mid-stream, and an error inside a 200.
    chunk({ content: "a" }) + chunk({ content: "b" }, { model: "other" }) +
    'data: {"error":{"message":"boom","code":500}}\n\n' + chunk({ content: "never" }),
    // Typed and commented events next to plain ones; a keep-alive.
    ": keep-alive\n\n" + chunk({ content: "a" }) + "event: ping\ndata: {}\n\n" +
    chunk({ content: "b" }) + "data: [DONE]\n\n",
    // Unreadable JSON after good chunks.
    chunk({ content: "a" }) + "data: {not json\n\n" + chunk({ content: "b" }),
  ];
  for (const [i, text] of streams.entries()) {
    for (const step of [1, 7, 64, 1 << 16]) {
      const general = read(text, false, step);
      const shortcut = read(text, true, step);
      assert.deepEqual(shortcut, general, `stream ${i}, ${step}-byte reads`);
    }
  }
  // The streams above did exercise the shortcut's text path.
  assert.equal(read(streams[0], true, 1 << 16).r.outputText, " the of");
});
