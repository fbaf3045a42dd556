import assert from "node:assert/strict";
import { emptyResult, sealResult } from "../../src/answer/result.ts";
import { EventReader } from "../../src/answer/event_reader.ts";
import type { ReadState } from "../../src/answer/apply.ts";
import { SseParser } from "../../src/answer/sse.ts";
import { chatEndpoint } from "../../src/endpoints/chat.ts";
import { completionsEndpoint } from "../../src/endpoints/completions.ts";
import { messagesEndpoint } from "../../src/endpoints/messages.ts";
import { responsesEndpoint } from "../../src/endpoints/responses.ts";
import { probeTemplate, TemplateSlot, textByTemplate } from "../../src/endpoints/chunk_template.ts";
import type { Endpoint, StreamState } from "../../src/endpoints/types.ts";
import { setPlainPaths } from "../../src/util/fast_paths.ts";

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

/**
 * Reads `text` (in pieces of `step` bytes, or code points when `asText`) with or without the
 * shortcuts: bytes go through `readRunBytes` (the WebAssembly scan), text through `readRun`.
 */
function read(
  text: string,
  shortcut: boolean,
  step: number,
  endpoint: Endpoint = chatEndpoint,
  asText = false,
) {
  const r = emptyResult();
  const state: ReadState = { done: false, answered: false };
  const events = new EventReader(r, state, endpoint);
  const parser = shortcut ? new SseParser(events) : new SseParser((e) => events.onEvent(e));
  const bytes = enc.encode(text);
  // Text is cut between code points (a lone surrogate would be pushed as U+FFFD).
  const chars = Array.from(text);
  const length = asText ? chars.length : bytes.length;
  // Each piece is stamped with the bytes read so far, so that bytes and text agree.
  let read = 0;
  for (let i = 0; i < length; i += step) {
    const piece = asText ? chars.slice(i, i + step).join("") : bytes.subarray(i, i + step);
    read += typeof piece === "string" ? enc.encode(piece).length : piece.length;
    events.at = read;
    parser.push(piece);
    if (events.stop) break;
  }
  if (!events.stop) parser.end();
  events.finish();
  sealResult(r);
  return { r, state };
}

/**
 * `endpoint`, counting the calls to its parseText (the events not read in place). Its volatile
 * keys are a copy: the events it knows start empty (they are kept per set of keys).
 */
function countingParseText(endpoint: Endpoint): Endpoint & { calls: number } {
  const f = endpoint.fast!;
  const counted = {
    ...endpoint,
    calls: 0,
    fast: {
      ...f,
      volatileKeys: f.volatileKeys && [...f.volatileKeys],
      parseText(data: string, state: StreamState, event: string) {
        counted.calls++;
        return f.parseText(data, state, event);
      },
    },
  };
  return counted;
}

/** `f` run with every fast path off (`--plain-paths all`): what the fast paths must agree with. */
function plainly<T>(f: () => T): T {
  setPlainPaths(["all"]);
  try {
    return f();
  } finally {
    setPlainPaths([]);
  }
}

/**
 * Asserts the shortcut reads every stream as the general path does, whatever the read size, and
 * as the same reader with every fast path turned off does.
 */
function assertShortcutAgrees(streams: string[], endpoint: Endpoint = chatEndpoint): void {
  for (const [i, text] of streams.entries()) {
    for (const step of [1, 7, 64, 1 << 16]) {
      const general = read(text, false, step, endpoint);
      const shortcut = read(text, true, step, endpoint);
      assert.deepEqual(shortcut, general, `stream ${i}, ${step}-byte reads`);
      assert.deepEqual(
        plainly(() => read(text, true, step, endpoint)),
        shortcut,
        `stream ${i}, ${step}-byte reads, plain paths`,
      );
      // The same cut as text: the parser's text path and `readRun`.
      assert.deepEqual(
        read(text, true, step, endpoint, true),
        read(text, false, step, endpoint, true),
        `stream ${i}, pieces of ${step} code points`,
      );
      assert.deepEqual(
        plainly(() => read(text, true, step, endpoint, true)),
        read(text, true, step, endpoint, true),
        `stream ${i}, pieces of ${step} code points, plain paths`,
      );
    }
  }
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
  assertShortcutAgrees(streams);
  // The streams above did exercise the shortcut's text path.
  assert.equal(read(streams[0], true, 1 << 16).r.outputText, " the of");
});

Deno.test("EventReader: chunks that match the stream's template are read in place, as the general path reads them", () => {
  const raw = (content: string) => chunk({ content: "@" }).replace('"@"', `"${content}"`);
  const streams = [
    // ASCII, then text that is not (the collector switches to strings), then ASCII again.
    chunk({ content: "a" }) + chunk({ content: " b" }) + chunk({ content: "é" }) +
    chunk({ content: " c" }) + chunk({ content: "中文 text that is long enough" }) +
    chunk({ content: "" }) + chunk({ content: "d" }) + "data: [DONE]\n\n",
    // Between the template's ends: escapes, a raw tab, a quote that changes the JSON's shape.
    chunk({ content: "a" }) + chunk({ content: 'b"c' }) + raw("tab\there") + raw("x\\y") +
    raw('q","role":"user') + raw("é\tx") + chunk({ content: "z" }) + "data: [DONE]\n\n",
    // Ends that match a different chunk only in part.
    chunk({ content: "a" }) + chunk({ content: "b" }, { id: "chatcmpl-2" }) +
    chunk({ content: "c" }, {
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    }) +
    chunk({ content: "d" }) + "data: [DONE]\n\n",
    // A prefix of the template's length that says something else (a refusal is not text).
    chunk({ content: "a" }) + chunk({ content: "b" }) + chunk({ refusal: "no" }) +
    chunk({ content: "c" }) + ": ping\n\n" + chunk({ refusal: "no" }) + "data: [DONE]\n\n",
    // Runs broken by a comment, a typed event, an event of two data lines, CRLF line ends.
    chunk({ content: "a" }) + chunk({ content: "b" }) + ": ping\n\n" + chunk({ content: "c" }) +
    "event: x\n" + chunk({ content: "d" }) + chunk({ content: "e" }) +
    chunk({ content: "f" }).replace("\n\n", "\ndata: \n\n") + chunk({ content: "g" }) +
    chunk({ content: "h" }).replace("\n\n", "\r\n\r\n") + chunk({ content: "i" }) +
    "data: [DONE]\n\n",
    // A whole stream with CRLF line ends.
    (chunk({ content: "a" }) + chunk({ content: "b" }) + chunk({ content: "c" }) +
      "data: [DONE]\n\n").replaceAll("\n", "\r\n"),
  ];
  assertShortcutAgrees(streams);

  // Once the template is known, text chunks no longer reach parseText.
  const counted = countingParseText(chatEndpoint);
  const words = Array.from({ length: 50 }, (_, i) => ` w${i}`);
  const text = chunk({ role: "assistant", content: "" }) +
    words.map((w) => chunk({ content: w })).join("") +
    chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) + "data: [DONE]\n\n";
  const { r } = read(text, true, 1 << 16, counted);
  assert.equal(r.outputText, words.join(""));
  assert.equal(r.responsePerf.length, 50);
  // The role chunk, the first text chunk (another shape), the finish chunk and the end marker.
  assert.equal(counted.calls, 4);

  // Reads that end mid-event: the event's start waits as bytes, and is read in place once whole
  // (as text, each cut event would reach the endpoint's parsing).
  for (const step of [100, 333, 1000]) {
    let parsed = 0;
    const counting: Endpoint = {
      ...chatEndpoint,
      fast: {
        ...chatEndpoint.fast!,
        volatileKeys: undefined,
        parseText(data, state, event) {
          parsed++;
          return chatEndpoint.fast!.parseText(data, state, event);
        },
      },
      parseEvent(event, state) {
        parsed++;
        return chatEndpoint.parseEvent(event, state);
      },
    };
    const cut = read(text, true, step, counting);
    assert.equal(cut.r.outputText, words.join(""));
    assert.equal(cut.r.responsePerf.length, 50);
    assert.ok(parsed <= 6, `${step}-byte reads: ${parsed} events parsed`);
  }
});

const cmpl = (text: unknown, extra: Record<string, unknown> = {}) =>
  `data: ${
    JSON.stringify({
      id: "cmpl-1",
      object: "text_completion",
      created: 1,
      model: "m",
      choices: [{ text, index: 0, logprobs: null, finish_reason: null }],
      ...extra,
    })
  }\n\n`;

Deno.test("EventReader: the shortcut reads completions streams as the general path", () => {
  const streams = [
    cmpl(" the") + cmpl(" of") + cmpl("") + cmpl(" and") + "data: [DONE]\n\n",
    // Escapes, control characters, non-ASCII; a usage chunk; a chunk of another shape.
    cmpl("a") + cmpl('q"uote') + cmpl("tab\there") + cmpl("é 😀") + cmpl("\\") +
    cmpl("b", { usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }) +
    cmpl("c", { model: "other" }) + cmpl("d", { model: "other" }) + "data: [DONE]\n\n",
    // Reasoning beside the text, text that is not a string, a second "text" key.
    cmpl("a") + `data: {"choices":[{"text":"r","reasoning_content":"why"}]}\n\n` +
    `data: {"choices":[{"text":5}]}\n\n` + `data: {"choices":[{"text":"x","text":"y"}]}\n\n` +
    cmpl("z") + "data: [DONE]\n\n",
    // An error inside a 200, then unreadable JSON.
    cmpl("a") + 'data: {"error":{"message":"boom"}}\n\n' + cmpl("never"),
    cmpl("a") + "data: {not json\n\n" + cmpl("b"),
  ];
  assertShortcutAgrees(streams, completionsEndpoint);
  assert.equal(read(streams[0], true, 1 << 16, completionsEndpoint).r.outputText, " the of and");

  // Once the template is known, text chunks are read in place, without parseText.
  const counted = countingParseText(completionsEndpoint);
  const words = Array.from({ length: 30 }, (_, i) => ` w${i}`);
  const { r } = read(
    words.map((w) => cmpl(w)).join("") + "data: [DONE]\n\n",
    true,
    1 << 16,
    counted,
  );
  assert.equal(r.outputText, words.join(""));
  assert.equal(r.responsePerf.length, 30);
  // The first chunk (which gives the template) and the end marker.
  assert.equal(counted.calls, 2);
});

Deno.test("probeTemplate: only a chunk whose text string is the answer's text gets a template", () => {
  const data = JSON.stringify({ id: "c", choices: [{ text: "hi", index: 0 }] });
  const t = probeTemplate(data, '"text":"', readCompletionForTest);
  assert.ok(t);
  assert.equal(textByTemplate(data.replace('"hi"', '"other words"'), t), "other words");
  // Not the same ends: no text by this template.
  assert.equal(textByTemplate(data.replace('"c"', '"d"'), t), null);
  // Text that JSON would write differently is left to the full reading.
  assert.equal(textByTemplate(data.replace('"hi"', '"a\\nb"'), t), null);
  // The key twice, the key elsewhere than the text, usage beside it: no template.
  assert.equal(
    probeTemplate(`{"choices":[{"text":"a","text":"b"}]}`, '"text":"', readCompletionForTest),
    null,
  );
  assert.equal(
    probeTemplate(`{"x":{"text":"a"},"choices":[]}`, '"text":"', readCompletionForTest),
    null,
  );
  assert.equal(
    probeTemplate(
      `{"choices":[{"text":"a"}],"usage":{"prompt_tokens":1}}`,
      '"text":"',
      readCompletionForTest,
    ),
    null,
  );
});

/** What the completions endpoint reads from a chunk's data. */
function readCompletionForTest(data: string) {
  return completionsEndpoint.parseResponse(JSON.parse(data));
}

const typed = (event: string, data: unknown) =>
  `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const textDelta = (text: unknown) =>
  typed("content_block_delta", {
    type: "content_block_delta",
    index: 0,
    delta: { type: "text_delta", text },
  });

Deno.test("EventReader: the shortcut reads Anthropic message streams as the general path", () => {
  const start = typed("message_start", {
    type: "message_start",
    message: { id: "m", usage: { input_tokens: 5, output_tokens: 1 } },
  }) + typed("content_block_start", {
    type: "content_block_start",
    index: 0,
    content_block: { type: "text", text: "" },
  });
  const end = typed("content_block_stop", { type: "content_block_stop", index: 0 }) +
    typed("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn" },
      usage: { output_tokens: 4 },
    }) + typed("message_stop", { type: "message_stop" });
  const streams = [
    start + textDelta(" the") + typed("ping", { type: "ping" }) + textDelta(" of") +
    textDelta("") + textDelta(" and") + end,
    // Thinking, a tool call, escapes and control characters, a delta of another block.
    start +
    typed("content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "thinking_delta", thinking: "hm" },
    }) + textDelta("a") + textDelta('q"uote') + textDelta("tab\there") + textDelta("é 😀") +
    typed("content_block_start", {
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", name: "f" },
    }) +
    typed("content_block_delta", {
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: '{"x":1}' },
    }) + textDelta("b") + end,
    // The data's type decides, not the event line; an error event; data without a type.
    start + textDelta("a") +
    `event: ping\ndata: ${JSON.parse(JSON.stringify(textDelta("b").split("data: ")[1]))}` +
    `event: content_block_delta\ndata: {"index":0,"delta":{"type":"text_delta","text":"c"}}\n\n` +
    `event: other\ndata: {"index":0,"delta":{"type":"text_delta","text":"d"}}\n\n` +
    `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"busy"}}\n\n` +
    textDelta("never"),
    start + textDelta("a") + "event: content_block_delta\ndata: {not json\n\n" + textDelta("b"),
  ];
  assertShortcutAgrees(streams, messagesEndpoint);
  assert.equal(read(streams[0], true, 1 << 16, messagesEndpoint).r.outputText, " the of and");

  // Once the template is known, text deltas are read in place, event line and all.
  const counted = countingParseText(messagesEndpoint);
  const words = Array.from({ length: 30 }, (_, i) => ` w${i}`);
  const text = start + words.map(textDelta).join("") + end;
  const { r } = read(text, true, 1 << 16, counted);
  assert.equal(r.outputText, words.join(""));
  assert.equal(r.responsePerf.length, 30);
  // The two start events, the first delta (which gives the template) and the three end events.
  assert.equal(counted.calls, 6);
});

Deno.test("TemplateSlot: chunks that never repeat their shape stop being learnt from", () => {
  const slot = new TemplateSlot();
  let reads = 0;
  const read = (d: string) => {
    reads++;
    return completionsEndpoint.parseResponse(JSON.parse(d));
  };
  // A field that changes with every chunk: no template ever matches.
  for (let i = 0; i < 20; i++) {
    const data = JSON.stringify({ created: i, choices: [{ text: "w" }] });
    assert.equal(slot.text(data), null);
    slot.learn(data, '"text":"', read);
  }
  // Two probe readings per attempt, and attempts stopped after a few.
  assert.ok(reads <= 2 * 4, `${reads} probe readings`);
  // A stream whose chunks do repeat keeps its template.
  const steady = new TemplateSlot();
  const chunk = (t: string) => JSON.stringify({ id: "c", choices: [{ text: t }] });
  steady.learn(chunk("a"), '"text":"', read);
  for (const t of ["b", "c d", "e"]) assert.equal(steady.text(chunk(t)), t);
});

Deno.test("TemplateSlot: a template that read chunks in place was no failure", () => {
  const read = (d: string) => completionsEndpoint.parseResponse(JSON.parse(d));
  const chunk = (id: number, t: string) => JSON.stringify({ id, choices: [{ text: t }] });
  const learnt = (slot: TemplateSlot) => slot.template?.prefix;
  // Each template reads one chunk in place (as EventReader counts it), then the shape changes.
  const slot = new TemplateSlot();
  for (let id = 0; id < 6; id++) {
    slot.learn(chunk(id, "a"), '"text":"', read);
    assert.equal(learnt(slot), `{"id":${id},"choices":[{"text":"`, `template ${id}`);
    slot.template!.reads++;
  }
  // Templates that read nothing are wrong guesses: learning stops after a few.
  const idle = new TemplateSlot();
  for (let id = 0; id < 6; id++) idle.learn(chunk(id, "a"), '"text":"', read);
  assert.equal(learnt(idle), `{"id":3,"choices":[{"text":"`);
});

/** A Responses API event, its fields in the order given. */
const rev = (type: string, fields: Record<string, unknown>, typedLine = true) =>
  `${typedLine ? `event: ${type}\n` : ""}data: ${JSON.stringify({ type, ...fields })}\n\n`;

Deno.test("EventReader: the shortcut reads Responses streams as the general path", () => {
  const part = { item_id: "msg_1", output_index: 0, content_index: 0 };
  // sequence_number before the text (as the mock sends it) and after it (as OpenAI does).
  const deltaFirst = (seq: number, delta: string, p = part, typedLine = true) =>
    rev("response.output_text.delta", { sequence_number: seq, ...p, delta }, typedLine);
  const deltaLast = (seq: number, delta: string, p = part) =>
    rev("response.output_text.delta", { ...p, delta, logprobs: [], sequence_number: seq });
  const done = (seq: number, text: string, p = part) =>
    rev("response.output_text.done", { sequence_number: seq, ...p, text });
  const completed = (seq: number) =>
    rev("response.completed", {
      sequence_number: seq,
      response: { usage: { input_tokens: 3, output_tokens: 9 } },
    });
  const other = { item_id: "msg_2", output_index: 1, content_index: 0 };
  const streams = [
    deltaFirst(1, "Hi") + deltaFirst(2, " there") + deltaFirst(13, ",") + deltaFirst(140, " you") +
    done(141, "Hi there, you") + completed(142),
    deltaLast(1, "Hi") + deltaLast(2, " there") + deltaLast(3, "!") + deltaLast(1000, "?") +
    done(1001, "Hi there!?") + completed(1002),
    // After the text, a field of the same length as the template's that says something else: a
    // second `delta`, which JSON.parse takes.
    deltaLast(1, "a") + deltaLast(2, "b") +
    deltaLast(3, "c").replace(',"logprobs":[],', ',"delta":"xyz",') + deltaLast(4, "d") +
    completed(5),
    // A second part: its deltas are noted, so its done event does not count twice; a part with
    // no deltas counts its done text; escapes; data without the event line.
    deltaFirst(1, "a") + deltaFirst(2, "b") + deltaFirst(3, "c", other) +
    deltaFirst(4, "d", other) +
    done(5, "ab") + done(6, "cd", other) +
    done(7, "whole", { item_id: "msg_3", output_index: 2, content_index: 0 }) +
    deltaFirst(8, 'q"uote') + deltaFirst(9, "é 😀") + deltaFirst(10, "e", part, false) +
    deltaFirst(11, "f", part, false) + completed(12),
    // A counter that is not a number, a failure.
    deltaFirst(1, "a") + deltaFirst(2, "b") +
    'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",' +
    '"sequence_number":"x","item_id":"msg_1","output_index":0,"content_index":0,"delta":"c"}\n\n' +
    rev("response.failed", { sequence_number: 4, response: { error: { message: "boom" } } }),
  ];
  assertShortcutAgrees(streams, responsesEndpoint);
  const first = read(streams[0], true, 1 << 16, responsesEndpoint).r;
  assert.equal(first.outputText, "Hi there, you");
  assert.equal(first.responsePerf.length, 4);
  assert.equal(read(streams[1], true, 1 << 16, responsesEndpoint).r.outputText, "Hi there!?");
  assert.equal(read(streams[2], true, 1 << 16, responsesEndpoint).r.outputText, "abxyzd");
  assert.equal(
    read(streams[3], true, 1 << 16, responsesEndpoint).r.outputText,
    'abcdwholeq"uoteé 😀ef',
  );

  // Once the template is known, deltas are read in place, the counter before or after the text.
  const words = Array.from({ length: 30 }, (_, i) => ` w${i}`);
  for (const delta of [deltaFirst, deltaLast]) {
    const counted = countingParseText(responsesEndpoint);
    const text = words.map((w, i) => delta(i + 1, w)).join("") + completed(31);
    const { r } = read(text, true, 1 << 16, counted);
    assert.equal(r.outputText, words.join(""));
    assert.equal(r.responsePerf.length, 30);
    // The first delta (which gives the template) and the completion.
    assert.equal(counted.calls, 2);
  }
});

Deno.test("probeTemplate: a counter may change, nothing else around the text", () => {
  const read = (d: string) => responsesEndpoint.parseEvent({ event: "", data: d }, {});
  const key = '"delta":"';
  const counter = '"sequence_number":';
  const at = (seq: number | string, delta: string, item = "msg_1") =>
    `{"type":"response.output_text.delta","sequence_number":${seq},"item_id":"${item}",` +
    `"output_index":0,"content_index":0,"delta":"${delta}"}`;
  const t = probeTemplate(at(5, "a"), key, read, counter);
  assert.ok(t?.counter?.inPrefix);
  assert.equal(textByTemplate(at(6, "b c"), t!), "b c");
  assert.equal(textByTemplate(at(123456, "d"), t!), "d");
  // Not a number, no digits, another item, escaped text: not by the template.
  assert.equal(textByTemplate(at('"6"', "b"), t!), null);
  assert.equal(textByTemplate(at("", "b"), t!), null);
  assert.equal(textByTemplate(at(6, "b", "msg_2"), t!), null);
  assert.equal(textByTemplate(at(6, 'b\\"'), t!), null);
  // Without the counter key the counter is part of the template: another number does not match.
  const fixed = probeTemplate(at(5, "a"), key, read);
  assert.equal(fixed?.counter, undefined);
  assert.equal(textByTemplate(at(6, "b"), fixed!), null);
  // The counter after the text.
  const last = (seq: number, delta: string) =>
    `{"type":"response.output_text.delta","item_id":"m","delta":"${delta}","sequence_number":${seq}}`;
  const t2 = probeTemplate(last(1, "a"), key, read, counter);
  assert.equal(t2?.counter?.inPrefix, false);
  assert.equal(textByTemplate(last(99, "zz"), t2!), "zz");
  assert.equal(textByTemplate(last(99, "zz") + " ", t2!), null);
  assert.equal(textByTemplate(last(99, "zz").replace("}", ',"x":1}'), t2!), null);
});

Deno.test("responses parseText: text deltas after the first are read without parsing JSON", () => {
  const state = {};
  const delta = (seq: number, text: string) =>
    JSON.stringify({
      type: "response.output_text.delta",
      sequence_number: seq,
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      delta: text,
    });
  const parseText = responsesEndpoint.fast!.parseText;
  assert.equal(parseText(delta(1, "a"), state, "response.output_text.delta"), "a");
  const parse = JSON.parse;
  let parses = 0;
  JSON.parse = (...args: Parameters<typeof JSON.parse>) => {
    parses++;
    return parse(...args);
  };
  try {
    for (let i = 2; i < 50; i++) {
      assert.equal(parseText(delta(i, `w${i}`), state, "response.output_text.delta"), `w${i}`);
    }
    assert.equal(parses, 0);
    // Another event type is read in full.
    assert.deepEqual(
      parseText(
        JSON.stringify({ type: "response.completed", response: { usage: { output_tokens: 2 } } }),
        state,
        "response.completed",
      ),
      { done: true, usage: { completionTokens: 2 } },
    );
    assert.equal(parses, 1);
  } finally {
    JSON.parse = parse;
  }
});

Deno.test("EventReader: text kept until the answer ends does not keep its chunks alive", async () => {
  // In a process of its own with a forced collection: 400 streams, each read one chunk holding a
  // 64 KiB event and a text piece that is not ASCII (kept as a string, not as bytes). As slices,
  // the pieces would keep the 400 chunks' text alive (26 MB) for as long as the streams last.
  const src = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
  const code = `
    import { emptyResult } from ${src("../../src/answer/result.ts")};
    import { EventReader } from ${src("../../src/answer/event_reader.ts")};
    import { SseParser } from ${src("../../src/answer/sse.ts")};
    import { chatEndpoint } from ${src("../../src/endpoints/chat.ts")};
    const event = (o) => "data: " + JSON.stringify(o) + "\\n\\n";
    const chunk = new TextEncoder().encode(
      event({ choices: [{ index: 0, delta: {} }], pad: "x".repeat(65536) }) +
        event({ choices: [{ index: 0, delta: { content: "Grüße aus Köln, schön!" } }] }),
    );
    gc();
    const before = Deno.memoryUsage().heapUsed;
    const streams = [];
    for (let i = 0; i < 400; i++) {
      const r = emptyResult();
      const events = new EventReader(r, { done: false, answered: false }, chatEndpoint);
      new SseParser(events).push(chunk.slice());
      streams.push([r, events]);
    }
    gc();
    console.log(Deno.memoryUsage().heapUsed - before, streams.length, streams[0][0].times.length);
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--expose-gc", code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const [grown, kept, responses] = new TextDecoder().decode(out.stdout).trim().split(" ").map(
    Number,
  );
  assert.equal(kept, 400);
  assert.equal(responses, 1);
  assert.ok(grown < 4_000_000, `400 streams hold ${grown} bytes`);
  // The text is whole when the answer ends.
  const r = emptyResult();
  const events = new EventReader(r, { done: false, answered: false }, chatEndpoint);
  new SseParser(events).push(enc.encode(chunk({ content: "Grüße aus Köln, schön!" })));
  events.finish();
  assert.equal(r.outputText, "Grüße aus Köln, schön!");
});

Deno.test("EventReader: each fast path turned off by name is not taken", () => {
  const text = chunk({ content: "a" }) + chunk({ content: "b" }) + chunk({ content: "c" }) +
    "data: [DONE]\n\n";
  /** A reader that counts the calls to its scan of bytes. */
  class CountingReader extends EventReader {
    scans = 0;
    override readRunBytes(b: Uint8Array, from: number, at: number, to: number, fresh: boolean) {
      this.scans++;
      return super.readRunBytes(b, from, at, to, fresh);
    }
  }
  const readWith = (plain: string[]) => {
    setPlainPaths(plain);
    try {
      const endpoint = countingParseText(chatEndpoint);
      const r = emptyResult();
      const events = new CountingReader(r, { done: false, answered: false }, endpoint);
      const parser = new SseParser(events);
      parser.push(enc.encode(text));
      parser.end();
      events.finish();
      return { text: r.outputText, parsed: endpoint.calls, scans: events.scans };
    } finally {
      setPlainPaths([]);
    }
  };
  const fastRead = readWith([]);
  assert.equal(fastRead.text, "abc");
  assert.ok(fastRead.scans > 0);
  // The scan off: the read is parsed as text, its bytes never scanned.
  const noScan = readWith(["wasm-scan"]);
  assert.equal(noScan.text, "abc");
  assert.equal(noScan.scans, 0);
  // Text templates off: every event through parseEvent, none through parseText.
  const noTemplate = readWith(["text-template"]);
  assert.equal(noTemplate.text, "abc");
  assert.equal(noTemplate.parsed, 0);
});
