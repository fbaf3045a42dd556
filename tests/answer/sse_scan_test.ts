import assert from "node:assert/strict";
import { emptyResult, sealResult } from "../../src/answer/result.ts";
import { EventReader } from "../../src/answer/event_reader.ts";
import type { ReadState } from "../../src/answer/apply.ts";
import { setPlainPaths } from "../../src/util/fast_paths.ts";
import { SseParser } from "../../src/answer/sse.ts";
import { chatEndpoint } from "../../src/endpoints/chat.ts";
import type { Endpoint, StreamState } from "../../src/endpoints/types.ts";
import { SLOT_BYTES } from "../../src/answer/sse_scan.ts";

const enc = new TextEncoder();

/** A chat stream of `words` as text chunks, with an id of `idLength` characters. */
function chatStream(n: number, words: string[], idLength = 20): string {
  const id = `chatcmpl-${String(n).padStart(idLength, "0")}`;
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    `data: ${
      JSON.stringify({
        id,
        object: "chat.completion.chunk",
        model: "m",
        choices: [{ index: 0, delta, finish_reason: null }],
        ...extra,
      })
    }\n\n`;
  return chunk({ role: "assistant", content: "" }) +
    words.map((w) => chunk({ content: w })).join("") +
    chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) + "data: [DONE]\n\n";
}

interface Stream {
  r: ReturnType<typeof emptyResult>;
  state: ReadState;
  events: EventReader;
  parser: SseParser;
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

function open(shortcut: boolean, endpoint: Endpoint = chatEndpoint): Stream {
  const r = emptyResult();
  const state: ReadState = { done: false, answered: false };
  const events = new EventReader(r, state, endpoint);
  const parser = shortcut ? new SseParser(events) : new SseParser((e) => events.onEvent(e));
  return { r, state, events, parser };
}

function close(s: Stream) {
  s.parser.end();
  s.events.finish();
  sealResult(s.r);
  return { r: s.r, state: s.state };
}

Deno.test("readRunBytes: streams read side by side, as memory grows under them, read as the general path", () => {
  // 300 streams in flight at once (more joint slots than the scan starts with), read piece by
  // piece in turns; every tenth piece of stream 0 is a large read (its memory grows while the
  // other streams hold slots and have reads half scanned).
  const words = Array.from({ length: 400 }, (_, i) => ` w${i % 37}`);
  const texts = Array.from({ length: 300 }, (_, n) => enc.encode(chatStream(n, words)));
  const fast = texts.map(() => open(true));
  const slow = texts.map(() => open(false));
  // The same reader with every fast path off: flags are read when a reader is made.
  const plain = texts.map(() => plainly(() => open(true)));
  const offsets = texts.map(() => 0);
  let round = 0;
  for (let live = texts.length; live > 0; round++) {
    live = 0;
    for (let n = 0; n < texts.length; n++) {
      const bytes = texts[n];
      if (offsets[n] >= bytes.length) continue;
      live++;
      const size = n === 0 && round % 10 === 9 ? 1 << 20 : 97 + ((n * 31 + round * 17) % 900);
      const piece = bytes.subarray(offsets[n], offsets[n] + size);
      offsets[n] += piece.length;
      for (const s of [fast[n], slow[n], plain[n]]) {
        s.events.at = round;
        s.parser.push(piece);
      }
    }
  }
  for (let n = 0; n < texts.length; n++) {
    const got = close(fast[n]);
    assert.deepEqual(got, close(slow[n]), `stream ${n}`);
    assert.deepEqual(close(plain[n]), got, `stream ${n}, plain paths`);
    assert.equal(got.r.outputText, words.join(""));
  }
});

Deno.test("readRunBytes: a joint too long for its slot is read by readRun, as the general path reads it", () => {
  let parses = 0;
  const counted: Endpoint = {
    ...chatEndpoint,
    fast: {
      ...chatEndpoint.fast!,
      parseText(data: string, state: StreamState, event: string) {
        parses++;
        return chatEndpoint.fast!.parseText(data, state, event);
      },
    },
  };
  const words = Array.from({ length: 50 }, (_, i) => ` w${i}`);
  const text = chatStream(1, words, SLOT_BYTES);
  const fast = open(true, counted);
  fast.parser.push(enc.encode(text));
  const got = close(fast);
  const slow = open(false);
  slow.parser.push(enc.encode(text));
  assert.deepEqual(got, close(slow));
  assert.equal(got.r.outputText, words.join(""));
  // Still read in place, as text: the role chunk, the first text chunk, the finish chunk and the
  // end marker are the only events parsed one by one.
  assert.equal(parses, 4);
});
