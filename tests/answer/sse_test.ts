import assert from "node:assert/strict";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { parseSse, SseParser, sseTransform } from "../../src/answer/sse.ts";
import type { SseEvent } from "../../src/endpoints/types.ts";

const enc = new TextEncoder();

/** Deterministic PRNG (mulberry32) so a failing chunking can be replayed from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Splits `bytes` at random byte offsets (so UTF-8 characters get cut too). */
function chop(bytes: Uint8Array, rand: () => number, maxLen: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let i = 0;
  while (i < bytes.length) {
    const n = 1 + Math.floor(rand() * maxLen);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}

function byteChunks(text: string, sizes: number[]): Uint8Array[] {
  const bytes = enc.encode(text);
  const out: Uint8Array[] = [];
  let i = 0;
  for (const n of sizes) {
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  if (i < bytes.length) out.push(bytes.subarray(i));
  return out;
}

Deno.test("SseParser: basic fields", async (t) => {
  await t.step("data with and without the space after the colon", () => {
    assert.deepEqual(parseSse(["data: a\n\ndata:b\n\ndata:  c\n\n"]), [
      { event: "", data: "a" },
      { event: "", data: "b" },
      { event: "", data: " c" },
    ]);
  });
  await t.step("event, id and multi-line data", () => {
    assert.deepEqual(parseSse(["event: delta\nid: 7\ndata: one\ndata: two\n\n"]), [
      { event: "delta", id: "7", data: "one\ntwo" },
    ]);
  });
  await t.step("a field with no colon is an empty value", () => {
    assert.deepEqual(parseSse(["data\ndata\n\n"]), [{ event: "", data: "\n" }]);
  });
  await t.step("retry and unknown fields are ignored", () => {
    assert.deepEqual(parseSse(["retry: 10\nfoo: bar\ndata: x\n\n"]), [{ event: "", data: "x" }]);
  });
  await t.step("events without data or type are not dispatched", () => {
    assert.deepEqual(parseSse(["\n\n: ping\n\nid: 3\n\n"]), []);
  });
  await t.step("[DONE] is an ordinary event", () => {
    assert.deepEqual(parseSse(["data: {}\n\ndata: [DONE]\n\n"]), [
      { event: "", data: "{}" },
      { event: "", data: "[DONE]" },
    ]);
  });
  await t.step("a leading BOM is dropped", () => {
    assert.deepEqual(
      parseSse([
        new Uint8Array([0xef, 0xbb]),
        new Uint8Array([0xbf, ...enc.encode("data: x\n\n")]),
      ]),
      [
        { event: "", data: "x" },
      ],
    );
    assert.deepEqual(parseSse(["\ufeffdata: y\n\n"]), [{ event: "", data: "y" }]);
  });
});

Deno.test("SseParser: line ends", async (t) => {
  const expected = [{ event: "e", data: "1\n2" }, { event: "", data: "3" }];
  for (const [name, nl] of [["LF", "\n"], ["CRLF", "\r\n"], ["CR", "\r"]]) {
    await t.step(name, () => {
      const text = `event: e${nl}data: 1${nl}data: 2${nl}${nl}data: 3${nl}${nl}`;
      assert.deepEqual(parseSse([text]), expected);
      // Every two-way split, including between \r and \n.
      for (let i = 1; i < text.length; i++) {
        assert.deepEqual(parseSse([text.slice(0, i), text.slice(i)]), expected, `split at ${i}`);
      }
    });
  }
  await t.step("mixed in one stream", () => {
    assert.deepEqual(parseSse(["data: a\r\n\rdata: b\n\r\ndata: c\r\r"]), [
      { event: "", data: "a" },
      { event: "", data: "b" },
      { event: "", data: "c" },
    ]);
  });
  await t.step("CR at a chunk end followed by a non-LF chunk", () => {
    assert.deepEqual(parseSse(["data: a\r", "\r", "data: b\r", "\n\r\n"]), [
      { event: "", data: "a" },
      { event: "", data: "b" },
    ]);
  });
});

Deno.test("SseParser: comments", () => {
  assert.deepEqual(parseSse([": keep-alive\n\n:x\ndata: 1\n: two\n\n"]), [
    { event: "", data: "1", comment: "x\ntwo" },
  ]);
});

Deno.test("SseParser: split UTF-8 characters", () => {
  const text = 'data: {"t":"héllo 日本 😀"}\n\n';
  const bytes = enc.encode(text);
  for (let i = 1; i < bytes.length; i++) {
    const got = parseSse([bytes.subarray(0, i), bytes.subarray(i)]);
    assert.deepEqual(got, [{ event: "", data: '{"t":"héllo 日本 😀"}' }], `split at byte ${i}`);
  }
  // One byte at a time.
  assert.deepEqual(parseSse(byteChunks(text, new Array(bytes.length).fill(1))), [
    { event: "", data: '{"t":"héllo 日本 😀"}' },
  ]);
});

Deno.test("SseParser: an error event without data is still dispatched", () => {
  assert.deepEqual(parseSse(["data: 1\n\nevent: error\n: engine failed\n\n"]), [
    { event: "", data: "1" },
    { event: "error", data: "", comment: "engine failed" },
  ]);
  assert.deepEqual(parseSse(['event: error\ndata: {"error":{"message":"x"}}\n\n']), [
    { event: "error", data: '{"error":{"message":"x"}}' },
  ]);
});

Deno.test("SseParser: end of stream", async (t) => {
  await t.step("a complete event missing its blank line is dispatched", () => {
    assert.deepEqual(parseSse(["data: a\n\ndata: [DONE]\n"]), [
      { event: "", data: "a" },
      { event: "", data: "[DONE]" },
    ]);
  });
  await t.step("a line cut off mid-way is dropped", () => {
    assert.deepEqual(parseSse(['data: a\n\ndata: {"cho']), [{ event: "", data: "a" }]);
  });
  await t.step("a dangling partial UTF-8 character does not throw", () => {
    assert.deepEqual(parseSse([new Uint8Array([...enc.encode("data: a\n\ndata: "), 0xe6])]), [
      { event: "", data: "a" },
    ]);
  });
});

Deno.test("SseParser: events are delivered during push, chunk by chunk", () => {
  const got: string[] = [];
  const p = new SseParser((e) => got.push(e.data));
  p.push("data: 1\n\ndata: ");
  assert.deepEqual(got, ["1"]);
  p.push("2\n");
  assert.deepEqual(got, ["1"]);
  p.push("\n");
  assert.deepEqual(got, ["1", "2"]);
  p.end();
  assert.deepEqual(got, ["1", "2"]);
});

Deno.test("sseTransform: a stream of bytes to a stream of events", async () => {
  const body = ReadableStream.from(
    byteChunks("data: a\r\n\r\nevent: x\ndata: b\n\n", [3, 5, 2, 7]),
  );
  const events: SseEvent[] = [];
  for await (const e of body.pipeThrough(sseTransform())) events.push(e);
  assert.deepEqual(events, [{ event: "", data: "a" }, { event: "x", data: "b" }]);
});

/** A random but valid stream where every event has data (the reference then agrees exactly). */
function randomStream(rand: () => number): string {
  const words = ["a", "hello", "日本", "é", "😀", '{"k":[1,2]}', ":", "data: x", " ", "\t", ""];
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const mixed = rand() < 0.3;
  const streamNl = pick(["\n", "\r\n", "\r"]);
  const nl = () => mixed ? pick(["\n", "\r\n", "\r"]) : streamNl;
  let s = "";
  const events = 1 + Math.floor(rand() * 12);
  for (let e = 0; e < events; e++) {
    if (rand() < 0.2) s += ": comment " + pick(words) + nl();
    if (rand() < 0.3) s += "event: " + pick(["message", "delta", "error", "x.y"]) + nl();
    if (rand() < 0.2) s += "id: " + Math.floor(rand() * 100) + nl();
    if (rand() < 0.1) s += "retry: 1000" + nl();
    const lines = 1 + Math.floor(rand() * 3);
    for (let l = 0; l < lines; l++) {
      const value = Array.from({ length: Math.floor(rand() * 4) }, () => pick(words)).join(" ");
      s += (rand() < 0.2 ? "data:" : "data: ") + value + nl();
    }
    s += nl();
    if (rand() < 0.1) s += nl(); // extra blank lines dispatch nothing
  }
  return s;
}

function reference(chunks: Uint8Array[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent(m: EventSourceMessage) {
      const e: SseEvent = { event: m.event ?? "", data: m.data };
      if (m.id !== undefined) e.id = m.id;
      events.push(e);
    },
  });
  const decoder = new TextDecoder();
  for (const c of chunks) parser.feed(decoder.decode(c, { stream: true }));
  // A final bare CR is only known to end a line once more input comes: give it one.
  parser.feed(decoder.decode() + "\n");
  return events;
}

Deno.test("SseParser agrees with eventsource-parser on random chunkings", () => {
  for (let seed = 1; seed <= 300; seed++) {
    const rand = rng(seed);
    const bytes = enc.encode(randomStream(rand));
    const chunks = chop(bytes, rand, 1 + Math.floor(rand() * 40));
    const expected = reference(chunks);
    const got = parseSse(chunks).map(({ comment: _c, ...e }) => e);
    assert.deepEqual(got, expected, `seed ${seed}`);
    assert.ok(expected.length > 0);
  }
});

Deno.test("SseParser: single-line events read at once agree with the line-by-line rules", () => {
  // Each case mixes the common `data: …` + blank line shape with what must not take that path.
  const cases: [string, { event: string; data: string; id?: string; comment?: string }[]][] = [
    ["data: a\n\ndata: b\n\n", [{ event: "", data: "a" }, { event: "", data: "b" }]],
    // A lone CR ends a line: these two lines are one event.
    ["data: a\rdata: b\n\n", [{ event: "", data: "a\nb" }]],
    // Fields before the data line belong to the same event.
    ["id: 7\ndata: a\n\ndata: b\n\n", [{ event: "", data: "a", id: "7" }, {
      event: "",
      data: "b",
    }]],
    ["event: x\ndata: a\n\n", [{ event: "x", data: "a" }]],
    [": hi\ndata: a\n\n", [{ event: "", data: "a", comment: "hi" }]],
    // Without the space after the colon, and a data line followed by another data line.
    ["data:a\n\ndata: a\ndata: b\n\n", [{ event: "", data: "a" }, { event: "", data: "a\nb" }]],
    // Typed events: one event line and one data line, and the shapes that are not that.
    ["event: x\ndata: a\n\nevent: \ndata: b\n\n", [{ event: "x", data: "a" }, {
      event: "",
      data: "b",
    }]],
    ["event: x\ndata: a\ndata: b\n\n", [{ event: "x", data: "a\nb" }]],
    ["event: x\rdata: a\n\n", [{ event: "x", data: "a" }]],
    ["event: x\ndata:a\n\nevent:y\ndata: b\n\n", [{ event: "x", data: "a" }, {
      event: "y",
      data: "b",
    }]],
    ["event: x\nid: 3\ndata: a\n\n", [{ event: "x", data: "a", id: "3" }]],
  ];
  for (const [text, expected] of cases) {
    assert.deepEqual(parseSse([text]), expected, JSON.stringify(text));
    // The same bytes in one-byte pieces take the line-by-line path throughout.
    assert.deepEqual(parseSse([...enc.encode(text)].map((b) => new Uint8Array([b]))), expected);
  }
});

Deno.test("SseParser: a sink's readRun reads lone data events in place, up to where it stops", () => {
  const runs: string[] = [];
  const offered: string[] = [];
  const typed: string[] = [];
  const other: SseEvent[] = [];
  const parser = new SseParser({
    onEvent: (e) => other.push(e),
    onTyped: (event, data) => typed.push(`${event}|${data}`),
    readRun(text, at) {
      offered.push(text.slice(at, at + 6));
      // Reads events whose data starts with "t", as many as follow each other.
      let pos = at;
      while (text.startsWith("data: t", pos)) {
        const end = text.indexOf("\n", pos);
        if (end === -1 || text[end + 1] !== "\n" || text.slice(pos, end).includes("\r")) break;
        runs.push(text.slice(pos + 6, end));
        pos = end + 2;
      }
      return pos;
    },
  });
  parser.push(
    "data: take\n\ndata: two\n\ndata: leave\n\nevent: x\ndata: typed\n\ndata: then\n\n" +
      "id: 1\ndata: t with id\n\ndata: t\r\n\r\ndata: t2\n\ndata: t, cut",
  );
  parser.push(" here\n\n");
  parser.end();
  // Offered at the start of every `data: ` or `event: ` line between events (not inside one,
  // nor for the rest of a line cut by the chunk's end); what it leaves, the parser reads.
  assert.deepEqual(offered, ["data: ", "event:", "data: ", "data: ", "data: "]);
  assert.deepEqual(runs, ["take", "two", "then", "t2"]);
  assert.deepEqual(typed, ["|leave", "x|typed"]);
  assert.deepEqual(other.map((e) => e.data), ["t with id", "t", "t, cut here"]);
});

Deno.test("SseParser: what waits for the next chunk does not keep the chunk alive", async () => {
  // Measured in a process of its own with a forced collection: 400 streams, each left, after a
  // 64 KiB event, with the start of a line, or with an event's type and id whose data is still to
  // come. Kept as slices of their chunks, they would hold the 400 chunks' text (26 MB).
  const code = (tail: string) => `
    import { SseParser } from ${
    JSON.stringify(new URL("../../src/answer/sse.ts", import.meta.url).href)
  };
    const sink = { onEvent() {}, onTyped() {} };
    const chunk = new TextEncoder().encode("data: " + "x".repeat(65536) + "\\n\\n" + ${
    JSON.stringify(tail)
  });
    gc();
    const before = Deno.memoryUsage().heapUsed;
    const parsers = [];
    for (let i = 0; i < 400; i++) {
      const p = new SseParser(sink);
      p.push(chunk.slice());
      parsers.push(p);
    }
    gc();
    console.log(Deno.memoryUsage().heapUsed - before, parsers.length);
  `;
  for (const tail of ['data: {"choices":[{"delta"', "event: content_block_delta\nid: 17\n"]) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--v8-flags=--expose-gc", code(tail)],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const [grown, kept] = new TextDecoder().decode(out.stdout).trim().split(" ").map(Number);
    assert.equal(kept, 400);
    assert.ok(grown < 4_000_000, `${JSON.stringify(tail)}: 400 streams hold ${grown} bytes`);
  }
  // What waited is still there, whole, when the rest arrives.
  const events: SseEvent[] = [];
  const p = new SseParser((e) => events.push(e));
  p.push(enc.encode("data: " + "x".repeat(100) + '\n\ndata: {"choices":[{"delta"'));
  p.push(enc.encode(':{"content":"hi"}}]}\n\nevent: content_block_delta\nid: 17\n'));
  p.push(enc.encode('data: {"n":1}\n\n'));
  assert.deepEqual(events.slice(1), [
    { event: "", data: '{"choices":[{"delta":{"content":"hi"}}]}' },
    { event: "content_block_delta", data: '{"n":1}', id: "17" },
  ]);
});
