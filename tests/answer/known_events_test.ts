import assert from "node:assert/strict";
import { KnownEvents } from "../../src/answer/known_events.ts";
import { emptyResult, sealResult } from "../../src/answer/result.ts";
import { EventReader } from "../../src/answer/event_reader.ts";
import type { ReadState } from "../../src/answer/apply.ts";
import { setPlainPaths } from "../../src/util/fast_paths.ts";
import { SseParser } from "../../src/answer/sse.ts";
import { chatEndpoint } from "../../src/endpoints/chat.ts";
import { completionsEndpoint } from "../../src/endpoints/completions.ts";
import type { Endpoint, Parsed, StreamState } from "../../src/endpoints/types.ts";

const enc = new TextEncoder();

/** An event's bytes, whole, and the range the cache is given. */
function ev(json: string): [Uint8Array, number, number] {
  const b = enc.encode(`data: ${json}\n\n`);
  return [b, 0, b.length];
}

const role = (id: string, created: number) =>
  `{"id":"${id}","object":"chat.completion.chunk","created":${created},"model":"m",` +
  `"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`;

Deno.test("KnownEvents: an event equal to a known one but for its id and creation time means the same", () => {
  const known = new KnownEvents(["id", "created"]);
  const meaning: Parsed = {};
  known.learn(...ev(role("chatcmpl-aaaa", 1700000000)), meaning);
  assert.equal(known.match(...ev(role("chatcmpl-bbbb", 1700000999))), meaning);
  // Read where it lies in a larger buffer.
  const inside = enc.encode("xx" + `data: ${role("chatcmpl-cccc", 1700000001)}\n\n` + "yy");
  assert.equal(known.match(inside, 2, inside.length - 2), meaning);
});

Deno.test("KnownEvents.matchAt: a known event where it starts, its end found by matching it", () => {
  const known = new KnownEvents(["id", "created"]);
  const meaning: Parsed = {};
  known.learn(...ev(role("chatcmpl-aaaa", 1700000000)), meaning);
  known.learn(...ev("[DONE]"), { done: true });
  const first = `data: ${role("chatcmpl-bbbb", 1700000999)}\n\n`;
  const b = enc.encode("x" + first + "data: [DONE]\n\n" + "data: {}\n\n");
  // Followed by other events: it ends where its blank line does.
  assert.equal(known.matchAt(b, 1, b.length), meaning);
  assert.equal(known.matchedEnd, 1 + first.length);
  assert.deepEqual(known.matchAt(b, 1 + first.length, b.length), { done: true });
  assert.equal(known.matchedEnd, 1 + first.length + "data: [DONE]\n\n".length);
  // Cut short by the end of what was read, or not at an event's start: no match.
  assert.equal(known.matchAt(b, 1, first.length), null);
  assert.equal(known.matchAt(b, 0, b.length), null);
  assert.equal(known.matchAt(b, b.length - 10, b.length), null);
  // An id holding a line break, which would end the event early, is no match.
  const broken = enc.encode(`data: ${role("chatcmpl-a\nbb", 1700000999)}\n\n`);
  assert.equal(known.matchAt(broken, 0, broken.length), null);
  // `match` is for an event whose end is known: only that one.
  assert.equal(known.match(b, 1, 1 + first.length), meaning);
  assert.equal(known.match(b, 1, b.length), null);
});

Deno.test("KnownEvents: anything else that differs is another event", () => {
  const known = new KnownEvents(["id", "created"]);
  known.learn(...ev(role("chatcmpl-aaaa", 1700000000)), {});
  const misses = [
    // Another length of id or time: the rest no longer lines up.
    role("chatcmpl-aaaaa", 1700000000),
    role("chatcmpl-aaaa", 170000000),
    // An escape, a quote or a control character where the id was.
    role("chatcmpl-a\\na", 1700000000),
    role('chatcmpl-a\\"a', 1700000000),
    // Not a number where the time was.
    role("chatcmpl-aaaa", 1700000000).replace("1700000000", "17000000x0"),
    // A byte outside the two values: the model, the role, the content.
    role("chatcmpl-aaaa", 1700000000).replace('"m"', '"n"'),
    role("chatcmpl-aaaa", 1700000000).replace('"content":""', '"content":"x"').replace(
      '"assistant"',
      '"assistan"',
    ),
    role("chatcmpl-aaaa", 1700000000).replace("null", "stop"),
  ];
  for (const json of misses) {
    assert.equal(known.match(...ev(json)), null, json);
  }
});

Deno.test("KnownEvents: a byte changed anywhere but in the volatile values is another event", () => {
  // Ids, objects and models of four lengths: every part compared ends at each place of a
  // four-byte word (the comparison reads four bytes at a time, then the rest one by one).
  for (let extra = 0; extra < 64; extra++) {
    const id = "chatcmpl-aaaa" + "a".repeat(extra & 3);
    const json = role(id, 1700000000)
      .replace('"model":"m"', `"model":"m${"m".repeat((extra >> 2) & 3)}"`)
      .replace("chat.completion.chunk", "chat.completion.chunk" + "k".repeat(extra >> 4));
    const known = new KnownEvents(["id", "created"]);
    known.learn(...ev(json), {});
    const [b] = ev(json);
    const text = new TextDecoder().decode(b);
    const idAt = text.indexOf(id);
    const createdAt = text.indexOf("1700000000");
    for (let i = 0; i < b.length; i++) {
      if (i >= idAt && i < idAt + id.length) continue;
      if (i >= createdAt && i < createdAt + 10) continue;
      // At each place in a larger buffer.
      for (let lead = 0; lead < 4; lead++) {
        const inside = new Uint8Array(lead + b.length);
        inside.set(b, lead);
        inside[lead + i] ^= 0x01;
        assert.equal(known.match(inside, lead, inside.length), null, `${json}: byte ${i}`);
        inside[lead + i] ^= 0x01;
        assert.notEqual(known.match(inside, lead, inside.length), null, `${json} unchanged`);
      }
    }
  }
});

Deno.test("KnownEvents: only top-level keys before the first nested value vary; other events are kept whole", () => {
  const known = new KnownEvents(["id"]);
  // `id` inside a nested object is no volatile value: the event is known as it is.
  const nested = `{"object":"x","choices":[{"id":"one"}]}`;
  known.learn(...ev(nested), { done: true });
  assert.deepEqual(known.match(...ev(nested)), { done: true });
  assert.equal(known.match(...ev(nested.replace("one", "two"))), null);
  // An event that is not a JSON object is kept as it is; events of more lines, typed ones, empty
  // ones, are not kept.
  const other = new KnownEvents(["id"]);
  const done = { done: true };
  other.learn(...ev("[DONE]"), done);
  assert.equal(other.match(...ev("[DONE]")), done);
  assert.equal(other.match(...ev("[DONE ]")), null);
  assert.equal(other.match(...ev("[DONF]")), null);
  const twoLines = enc.encode(`data: {"id":"a"}\ndata: {}\n\n`);
  const typed = enc.encode(`event: x\ndata: [DONE]\n\n`);
  const empty = enc.encode(`data: \n\n`);
  for (const b of [twoLines, typed, empty]) {
    other.learn(b, 0, b.length, {});
    assert.equal(other.match(b, 0, b.length), null);
  }
});

// Streams as a server sends them: every answer has its own id and time.
const chunk = (id: string, created: number, delta: object, extra: object = {}) =>
  `data: ${
    JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model: "m",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
      usage: null,
      ...extra,
    })
  }\n\n`;

function answer(id: string, created: number, words: string[], usage = { a: 3, b: 2 }): string {
  return chunk(id, created, { role: "assistant", content: "" }) +
    words.map((w) => chunk(id, created, { content: w })).join("") +
    chunk(id, created, {}, { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) +
    chunk(id, created, {}, {
      choices: [],
      usage: {
        prompt_tokens: usage.a,
        completion_tokens: usage.b,
        total_tokens: usage.a + usage.b,
      },
    }) + "data: [DONE]\n\n";
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

/** Reads `text` through the byte path (`shortcut`) or the general one; counts parseText calls. */
function read(text: string, endpoint: Endpoint, shortcut: boolean, step = 1 << 16) {
  let calls = 0;
  const counted: Endpoint = {
    ...endpoint,
    fast: {
      ...endpoint.fast!,
      parseText(data: string, state: StreamState, event: string) {
        calls++;
        return endpoint.fast!.parseText(data, state, event);
      },
    },
  };
  const r = emptyResult();
  const state: ReadState = { done: false, answered: false };
  const events = new EventReader(r, state, counted);
  const parser = shortcut ? new SseParser(events) : new SseParser((e) => events.onEvent(e));
  const bytes = enc.encode(text);
  for (let i = 0; i < bytes.length; i += step) {
    events.at = i;
    parser.push(bytes.subarray(i, i + step));
  }
  parser.end();
  events.finish();
  sealResult(r);
  return { r, state, calls };
}

Deno.test("EventReader: a later answer's opening and closing events are known, and read as the first answer's were", () => {
  // Volatile keys of this test's own: the events it knows start empty.
  const endpoint: Endpoint = {
    ...chatEndpoint,
    fast: { ...chatEndpoint.fast!, volatileKeys: ["id", "created"] },
  };
  const words = [" a", " b", " c"];
  const first = read(answer("chatcmpl-1111", 1700000000, words), endpoint, true);
  // The role, first text, finish and usage chunks and the end marker.
  assert.equal(first.calls, 5);
  for (const step of [1 << 16, 64, 7]) {
    const text = answer("chatcmpl-2222", 1700000042, words);
    const later = read(text, endpoint, true, step);
    const general = read(text, endpoint, false, step);
    assert.deepEqual({ r: later.r, state: later.state }, { r: general.r, state: general.state });
    const plain = plainly(() => read(text, endpoint, true, step));
    assert.deepEqual({ r: plain.r, state: plain.state }, { r: later.r, state: later.state });
    assert.equal(later.r.outputText, " a b c");
    assert.deepEqual(later.r.usage, { promptTokens: 3, completionTokens: 2, totalTokens: 5 });
    // None: the first text chunk is an instance of the first answer's template, the other
    // events are known (the end marker too).
    if (step === 1 << 16) assert.equal(later.calls, 0);
  }
  // Known events off: a later answer's events are all read again, as the first answer's were.
  setPlainPaths(["known-events"]);
  try {
    const unknown = read(answer("chatcmpl-4444", 1700000044, words), endpoint, true);
    assert.equal(unknown.calls, 5);
    assert.equal(unknown.r.outputText, " a b c");
  } finally {
    setPlainPaths([]);
  }
  // Other counts in the usage chunk: another event, read for what it says.
  const other = read(answer("chatcmpl-3333", 1700000043, words, { a: 7, b: 3 }), endpoint, true);
  assert.deepEqual(other.r.usage, { promptTokens: 7, completionTokens: 3, totalTokens: 10 });
  assert.equal(other.calls, 1);
});

Deno.test("EventReader: completions streams know their closing events too", () => {
  const endpoint: Endpoint = {
    ...completionsEndpoint,
    fast: { ...completionsEndpoint.fast!, volatileKeys: ["id", "created"] },
  };
  const cmpl = (id: string, text: string | null, extra: object = {}) =>
    `data: ${
      JSON.stringify({
        id,
        object: "text_completion",
        created: 5,
        model: "m",
        choices: text === null ? [] : [{ text, index: 0, logprobs: null, finish_reason: null }],
        ...extra,
      })
    }\n\n`;
  const stream = (id: string) =>
    cmpl(id, " x") + cmpl(id, " y") +
    cmpl(id, "", { choices: [{ text: "", index: 0, logprobs: null, finish_reason: "length" }] }) +
    cmpl(id, null, { usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }) +
    "data: [DONE]\n\n";
  read(stream("cmpl-aaaa"), endpoint, true);
  const later = read(stream("cmpl-bbbb"), endpoint, true);
  const general = read(stream("cmpl-bbbb"), endpoint, false);
  assert.deepEqual({ r: later.r, state: later.state }, { r: general.r, state: general.state });
  const plain = plainly(() => read(stream("cmpl-bbbb"), endpoint, true));
  assert.deepEqual({ r: plain.r, state: plain.state }, { r: later.r, state: later.state });
  assert.equal(later.r.outputText, " x y");
  assert.deepEqual(later.r.usage, { promptTokens: 1, completionTokens: 2, totalTokens: 3 });
});

/** A chat text chunk as servers send it, and where its text starts in the event's bytes. */
const textChunk = (id: string, created: number, text: string) =>
  `{"id":"${id}","object":"chat.completion.chunk","created":${created},"model":"m",` +
  `"choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]}`;
const EMPTY = textChunk("chatcmpl-aaaa", 1700000000, "");
const PREFIX_END = EMPTY.indexOf('"}');
const SUFFIX_LENGTH = EMPTY.length - PREFIX_END;

/** The template a text chunk of `textChunk`'s shape sets. */
function templateOf(json: string) {
  return {
    prefix: json.slice(0, PREFIX_END),
    suffix: json.slice(json.length - SUFFIX_LENGTH),
    reads: 0,
    event: "",
  };
}

Deno.test("KnownEvents: a text chunk of a learned template is recognized, whatever its id, time and plain text", () => {
  const known = new KnownEvents(["id", "created"]);
  const learned = textChunk("chatcmpl-aaaa", 1700000000, " hello");
  known.learnTemplate(...ev(learned), templateOf(learned));
  for (const text of ["x", " world, again!", "~", "a".repeat(300)]) {
    const [b, from, end] = ev(textChunk("chatcmpl-bbbb", 1700000777, text));
    const t = known.matchTemplate(b, from, end);
    assert.ok(t !== null, text);
    const textFrom = from + t.bytes.length;
    assert.equal(new TextDecoder().decode(b.subarray(textFrom, known.textEnd)), text);
    assert.equal(t.suffix, templateOf(learned).suffix);
    // Where it lies in a larger buffer.
    const inside = enc.encode("zz" + new TextDecoder().decode(b));
    assert.ok(known.matchTemplate(inside, 2, inside.length) !== null);
  }
  const misses = [
    // Text that is not plain ASCII JSON text stands for something else, or is read as text.
    textChunk("chatcmpl-bbbb", 1700000777, 'a\\"b'),
    textChunk("chatcmpl-bbbb", 1700000777, "a\\nb"),
    textChunk("chatcmpl-bbbb", 1700000777, "é"),
    textChunk("chatcmpl-bbbb", 1700000777, "tab\there"),
    // Volatile values of another length, or not of their kind; other bytes anywhere else.
    textChunk("chatcmpl-bbbbb", 1700000777, "x"),
    textChunk("chatcmpl-bbbb", 1700000777, "x").replace("1700000777", "17000007x7"),
    textChunk("chatcmpl-bbbb", 1700000777, "x").replace('"m"', '"n"'),
    textChunk("chatcmpl-bbbb", 1700000777, "x").replace("null", "stop"),
    textChunk("chatcmpl-bbbb", 1700000777, "x").replace('"content"', '"contenu"'),
  ];
  for (const json of misses) assert.equal(known.matchTemplate(...ev(json)), null, json);
  // Not an event's end: no blank line.
  const open = enc.encode(`data: ${textChunk("chatcmpl-bbbb", 1700000777, "x")}\n`);
  assert.equal(known.matchTemplate(open, 0, open.length), null);
});

Deno.test("KnownEvents: only untyped, uncounted ASCII templates of the event itself are learned", () => {
  const json = textChunk("chatcmpl-aaaa", 1700000000, " hello");
  const other = textChunk("chatcmpl-bbbb", 1700000001, " there");
  const t = templateOf(json);
  const cases = [
    { ...t, event: "content_block_delta" },
    { ...t, counter: { inPrefix: true, rest: "x" } },
    // A template that is not this event's: another prefix, another suffix, non-ASCII.
    { ...t, prefix: t.prefix.replace('"m"', '"n"') },
    { ...t, suffix: t.suffix + " " },
    { ...t, prefix: t.prefix.replace('"m"', '"é"') },
  ];
  for (const c of cases) {
    const known = new KnownEvents(["id", "created"]);
    const [b, from, end] = ev(c.prefix === t.prefix ? json : c.prefix + " hello" + t.suffix);
    known.learnTemplate(b, from, end, c);
    assert.equal(known.matchTemplate(...ev(other)), null, JSON.stringify(c));
  }
  // The text of the event it is learned from must be plain too.
  const known = new KnownEvents(["id", "created"]);
  const quoted = textChunk("chatcmpl-aaaa", 1700000000, 'say \\"hi\\"');
  known.learnTemplate(...ev(quoted), templateOf(quoted));
  assert.equal(known.matchTemplate(...ev(other)), null);
  // Learned, it is recognized.
  known.learnTemplate(...ev(json), t);
  assert.ok(known.matchTemplate(...ev(other)) !== null);
});

Deno.test("EventReader: a later answer's first text chunk of another shape is read as text", () => {
  const endpoint: Endpoint = {
    ...chatEndpoint,
    fast: { ...chatEndpoint.fast!, volatileKeys: ["id", "created"] },
  };
  read(answer("chatcmpl-1111", 1700000000, [" a", " b"]), endpoint, true);
  // Non-ASCII or escaped first texts, and a first chunk with other keys: each read as text, each
  // the same as the general path reads it.
  for (const words of [["é", " b"], ['\\"', " b"], [" a", " b"]]) {
    const text = answer("chatcmpl-2222", 1700000042, words).replace(
      `"delta":{"content":"${words[0]}"},"logprobs":null`,
      `"delta":{"content":"${words[0]}"},"logprobs":${words[0] === " a" ? "{}" : "null"}`,
    );
    const later = read(text, endpoint, true);
    const general = read(text, endpoint, false);
    assert.deepEqual({ r: later.r, state: later.state }, { r: general.r, state: general.state });
    const plain = plainly(() => read(text, endpoint, true));
    assert.deepEqual({ r: plain.r, state: plain.state }, { r: later.r, state: later.state });
    assert.ok(later.calls >= 1, `${words}: the first text chunk was read as text`);
  }
});
