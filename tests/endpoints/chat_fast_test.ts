import assert from "node:assert/strict";
import { chatEndpoint, parseChunk, parseSimpleChunk } from "../../src/endpoints/chat.ts";
import { indexOfQuoted } from "../../src/endpoints/chunk_template.ts";
import type { StreamState } from "../../src/endpoints/types.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { post, readSse } from "../mock/helpers.ts";

/**
 * Asserts the fast path agrees with the full parse on `data`, with no stream state and with
 * `state` (one per stream, as the transport passes); returns whether the fast path was taken.
 */
function agrees(data: string, state: StreamState = {}): boolean {
  const full = parseChunk(data);
  const plain = parseSimpleChunk(data);
  if (plain !== null) assert.deepEqual(plain, full, data);
  const before = { ...state };
  const fast = parseSimpleChunk(data, state);
  if (fast !== null) assert.deepEqual(fast, full, data);
  assert.deepEqual(chatEndpoint.parseEvent({ event: "", data }, before), full, data);
  return fast !== null;
}

const chunk = (delta: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
    ...extra,
  });

Deno.test("chat fast path: the mock server's chunks read as the full parse reads them", async () => {
  const server = await startMockServer({ outputTokens: 300, reasoningTokens: 5 });
  try {
    for (const includeUsage of [true, false]) {
      const res = await post(`${server.url}/v1/chat/completions`, {
        model: "m",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
        ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
      });
      const events = await readSse(res);
      let fast = 0;
      let total = 0;
      const state: StreamState = {};
      for (const e of events) {
        if (e.data === "[DONE]") continue;
        total++;
        if (agrees(e.data, state)) fast++;
      }
      assert.ok(total >= 300, `${total} events`);
      // Content chunks take the fast path; reasoning and usage chunks fall back.
      assert.ok(fast >= 300, `${fast} of ${total} on the fast path`);
      assert.ok(fast < total);
    }
  } finally {
    await server.close();
  }
});

Deno.test("chat fast path: edge cases agree with the full parse", () => {
  const texts = [
    "plain",
    "",
    ' "quoted" ',
    'say \\"hi\\"',
    "back\\slash",
    "\\",
    'ends with quote"',
    "line\nbreak\ttab",
    "é ✓ 日本 🙂",
    "\u0000\u001f",
    "\ud800 lone surrogate",
    '"content":"inner"',
    '{"content":"x"}',
    "braces { } [ ]",
    '"usage":{"completion_tokens":3}',
    '"tool_calls"',
    '"error"',
  ];
  const state: StreamState = {};
  for (const text of texts) {
    // The shared state makes every chunk after the first compare ends with the one before.
    assert.ok(agrees(chunk({ content: text }), state), text);
    assert.ok(agrees(chunk({ content: text })), text);
    assert.ok(agrees(chunk({ role: "assistant", content: text, refusal: null })), text);
    agrees(chunk({ content: text }, { usage: null }), state);
    agrees(chunk({ reasoning_content: text, content: null }), state);
  }
  // Escapes written by hand, as some servers write them.
  for (const raw of ["\\u00e9t\\u00e9", "a\\/b", "\\ud83d\\ude00", 'q\\"', "\\\\"]) {
    const data = `{"choices":[{"index":0,"delta":{"content":"${raw}"}}]}`;
    assert.ok(agrees(data), data);
  }
  const shapes = [
    // role chunk, finish chunk, usage chunk, empty choices
    chunk({ role: "assistant", content: "" }),
    JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
    JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 5 } }),
    JSON.stringify({ choices: [] }),
    // what must fall back
    chunk({ content: null }),
    chunk({ content: [{ type: "text", text: "parts" }] }),
    chunk({ reasoning: "r", content: "c" }),
    chunk({ tool_calls: [{ function: { name: "f", arguments: "{}" } }] }),
    chunk({ content: "a" }, { usage: { completion_tokens: 1 } }),
    JSON.stringify({
      choices: [{ index: 0, delta: { content: "a" } }, { index: 1, delta: { content: "b" } }],
    }),
    JSON.stringify({ choices: [{ index: 1, x: { content: "no" }, delta: { content: "b" } }] }),
    JSON.stringify({ choices: [{ index: 0, delta: {} }], content: "outside" }),
    JSON.stringify({ choices: [{ index: 0, delta: { x: { content: "deep" } } }] }),
    JSON.stringify({ outer: { choices: [{ delta: { content: "nested" } }] } }),
    JSON.stringify({ choices: [{ delta: { content: "a" } }], error: { message: "boom" } }),
    JSON.stringify({ object: "error", message: "bad", code: 400 }),
    JSON.stringify({
      choices: [{ index: 0, delta: { content: "a" }, logprobs: { content: [{ token: "a" }] } }],
    }),
    '{"choices":[{"delta":{"content":"a","content":"b"}}]}',
    '{"choices":[{"delta":{"content":"a"}}],"us\\u0061ge":{"completion_tokens":2}}',
    '{"choices":[{"delta":{"\\u0063ontent":"escaped key"}}]}',
    '{"choices":[{"delta":{"content": "spaced"}}]}',
    '{"choices":[{"delta":{"content":"a"}}],"usage":null}',
  ];
  for (const data of shapes) {
    agrees(data);
    // After a simple chunk of the same stream, so the ends are compared first.
    const stream: StreamState = {};
    agrees(chunk({ content: "seen" }), stream);
    agrees('{"choices":[{"delta":{"content":"seen"}}]}', stream);
    agrees(data, stream);
  }
  // The simple shapes do take the fast path.
  assert.deepEqual(parseSimpleChunk(chunk({ content: "x" }, { usage: null })), { text: "x" });
  assert.deepEqual(parseSimpleChunk(shapes[0]), {});
  assert.deepEqual(parseSimpleChunk(shapes[1]), {});
  // And these do not: the full parse reads what the fast path cannot see.
  assert.equal(parseSimpleChunk(shapes[2]), null);
  assert.equal(parseSimpleChunk(shapes[8]), null);
  assert.equal(parseSimpleChunk(shapes[9]), null);
});

Deno.test("chat fast path: random strings round-trip like the full parse", () => {
  const alphabet = [
    '"',
    "\\",
    "/",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "a",
    " ",
    "\n",
    "é",
    "🙂",
    "\u0001",
  ];
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const state: StreamState = {};
  for (let i = 0; i < 2000; i++) {
    let text = "";
    for (let k = rand(12); k > 0; k--) text += alphabet[rand(alphabet.length)];
    const data = chunk({ content: text }, rand(2) ? { usage: null } : {});
    assert.ok(agrees(data, state), data);
  }
});

Deno.test("chat fast path: invalid JSON still throws on the shapes a cut stream leaves", () => {
  for (
    const data of [
      '{"choices":[{"delta":{"content":"ab',
      '{"choices":[{"delta":{"content":"ab"}}',
      '{"choices":[{"delta":{"content":"a\\',
    ]
  ) {
    assert.throws(() => chatEndpoint.parseEvent({ event: "", data }));
    // Also when the stream's earlier chunk had the same opening.
    const state: StreamState = {};
    chatEndpoint.parseEvent({ event: "", data: '{"choices":[{"delta":{"content":"x"}}]}' }, state);
    assert.throws(() => chatEndpoint.parseEvent({ event: "", data }, state));
  }
});

Deno.test("indexOfQuoted finds what indexOf finds with the quote put back", () => {
  const pieces = ['"', "usage", 'usage"', 'content":', "a", ":", '""', '"usage"', "sage"];
  let seed = 11;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let i = 0; i < 5000; i++) {
    let data = "";
    for (let k = rand(10); k > 0; k--) data += pieces[rand(pieces.length)];
    const bare = ['usage"', 'content":', "a", 'sage"'][rand(4)];
    const from = rand(data.length + 4) - 2;
    assert.equal(
      indexOfQuoted(data, bare, from),
      data.indexOf('"' + bare, from),
      `${data} ${from}`,
    );
  }
});

Deno.test("chat fast path: key names inside other keys and values read as the full parse", () => {
  const variants = [
    { id: "usage" },
    { id: "content", model: "choices" },
    { xusage: null },
    { usage_x: 1 },
    { "content_x": "y" },
    { meta: { delta: { content: "z" } } },
    { model: 'a"content":"b' },
    { choices_extra: [] },
  ];
  const state: StreamState = {};
  for (const extra of variants) {
    for (const delta of [{ content: "hi" }, { role: "assistant", content: "" }, {}]) {
      const data = chunk(delta, extra);
      agrees(data, state);
    }
  }
});
