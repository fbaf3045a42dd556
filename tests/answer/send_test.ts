import assert from "node:assert/strict";
import { send } from "../../src/answer/client.ts";
import { recycleResult, type SendOptions, TimeLog } from "../../src/answer/result.ts";
import { Spares } from "../../src/answer/spares.ts";
import { TextCollector } from "../../src/answer/text_collector.ts";
import { chatEndpoint } from "../../src/endpoints/chat.ts";
import { getEndpoint } from "../../src/endpoints/mod.ts";

const enc = new TextEncoder();

interface TestServer {
  url: string;
  close(): Promise<void>;
}

/** A Deno.serve server on 127.0.0.1, a free port. */
function serve(handler: (req: Request) => Response | Promise<Response>): TestServer {
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} },
    handler,
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1/chat/completions`,
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}

/** An SSE response writing `parts` with `delays[i]` ms before each. */
function sseResponse(parts: string[], delays: number[], closeAtEnd = true): Response {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (let i = 0; i < parts.length; i++) {
        if (delays[i]) await new Promise((r) => setTimeout(r, delays[i]));
        if (cancelled) return;
        controller.enqueue(enc.encode(parts[i]));
      }
      if (closeAtEnd) controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

function chunk(content: string): string {
  return `data: ${
    JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] })
  }\n\n`;
}

function opts(url: string, extra: Partial<SendOptions> = {}): SendOptions {
  return {
    url,
    headers: { "content-type": "application/json", "x-request-id": "r1" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true }),
    streaming: true,
    endpoint: chatEndpoint,
    timeoutMs: 5000,
    ...extra,
  };
}

Deno.test("send: streamed chunks with delays are stamped in order", async () => {
  let seen: { body: string; id: string | null; ct: string | null } | null = null;
  const srv = serve(async (req) => {
    seen = {
      body: await req.text(),
      id: req.headers.get("x-request-id"),
      ct: req.headers.get("content-type"),
    };
    const usage = `data: ${
      JSON.stringify({
        choices: [],
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
      })
    }\n\n`;
    return sseResponse(
      [
        ": keep-alive\n\n",
        `data: ${
          JSON.stringify({ choices: [{ delta: { role: "assistant", reasoning_content: "hm" } }] })
        }\n\n`,
        chunk("Hel"),
        chunk("lo"),
        chunk("!") + usage + "data: [DONE]\n\n",
      ],
      [0, 60, 20, 20, 20],
    );
  });
  try {
    const o = opts(srv.url);
    const r = await send(o);
    assert.equal(r.error, null);
    assert.equal(r.httpStatus, 200);
    assert.equal(r.cancelled, false);
    assert.equal(r.outputText, "Hello!");
    assert.equal(r.reasoningText, "hm");
    assert.deepEqual(r.responseReasoning, [true, false, false, false]);
    assert.deepEqual(r.usage, { promptTokens: 5, completionTokens: 3, totalTokens: 8 });
    assert.equal(r.responsePerf.length, 4);
    assert.ok(r.ackPerf !== null && r.ackPerf >= r.startPerf);
    // The first content came after the server's 60 ms pause.
    assert.ok(r.responsePerf[0] - r.startPerf >= 55, `first at ${r.responsePerf[0] - r.startPerf}`);
    for (let i = 1; i < r.responsePerf.length; i++) {
      assert.ok(r.responsePerf[i] > r.responsePerf[i - 1]);
    }
    assert.ok(r.endPerf >= r.responsePerf[3]);
    assert.ok(seen !== null);
    const s = seen as { body: string; id: string | null; ct: string | null };
    assert.equal(s.body, o.body);
    assert.equal(s.id, "r1");
    assert.equal(s.ct, "application/json");
  } finally {
    await srv.close();
  }
});

Deno.test("send: events completed by one network chunk share its timestamp", async () => {
  const srv = serve(() =>
    sseResponse([chunk("a") + chunk("b"), chunk("c") + "data: [DONE]\n\n"], [0, 30])
  );
  try {
    const r = await send(opts(srv.url));
    assert.equal(r.error, null);
    assert.equal(r.outputText, "abc");
    assert.equal(r.responsePerf[0], r.responsePerf[1]);
    assert.ok(r.responsePerf[2] > r.responsePerf[1]);
  } finally {
    await srv.close();
  }
});

Deno.test("send: body bytes are sent as is", async () => {
  let got: Uint8Array | null = null;
  const srv = serve(async (req) => {
    got = new Uint8Array(await req.arrayBuffer());
    return Response.json({ choices: [{ message: { content: "ok" } }] });
  });
  try {
    const bytes = enc.encode('{"x":"é",  "y" : [1,2]}');
    const r = await send(opts(srv.url, { body: bytes, streaming: false }));
    assert.equal(r.error, null);
    assert.deepEqual(got, bytes);
  } finally {
    await srv.close();
  }
});

Deno.test("send: reasoning after text marks only the reasoning-only responses", async () => {
  const delta = (d: Record<string, string>) =>
    `data: ${JSON.stringify({ choices: [{ delta: d }] })}\n\n`;
  const srv = serve(() =>
    sseResponse([
      delta({ content: "a" }) + delta({ content: "b" }) + delta({ reasoning_content: "r" }) +
      delta({ content: "c" }) + "data: [DONE]\n\n",
    ], [0])
  );
  try {
    const r = await send(opts(srv.url));
    assert.equal(r.error, null);
    assert.equal(r.outputText, "abc");
    assert.deepEqual(r.responseReasoning, [false, false, true, false]);
    assert.equal(r.responsePerf.length, 4);
  } finally {
    await srv.close();
  }
});

Deno.test("send: non-streaming answer is one response at body end", async () => {
  const srv = serve(() =>
    Response.json({
      object: "chat.completion",
      choices: [{ message: { role: "assistant", content: "hi there", reasoning: "think" } }],
      usage: { prompt_tokens: 2, completion_tokens: 4 },
    })
  );
  try {
    const r = await send(opts(srv.url, { streaming: false }));
    assert.equal(r.error, null);
    assert.equal(r.outputText, "hi there");
    assert.equal(r.reasoningText, "think");
    assert.deepEqual([...r.responsePerf], [r.endPerf]);
    // No response carried reasoning only.
    assert.equal(r.responseReasoning, null);
    assert.deepEqual(r.usage, { promptTokens: 2, completionTokens: 4 });
  } finally {
    await srv.close();
  }
});

Deno.test("send: streaming request answered with one JSON body is read as a whole", async () => {
  const srv = serve(() => Response.json({ choices: [{ message: { content: "whole" } }] }));
  try {
    const r = await send(opts(srv.url));
    assert.equal(r.error, null);
    assert.equal(r.outputText, "whole");
  } finally {
    await srv.close();
  }
});

Deno.test("send: HTTP errors carry the status and the server's message", async (t) => {
  const bodies: Record<string, [number, string, string]> = {
    openai: [500, JSON.stringify({ error: { message: "boom", type: "server_error" } }), "boom"],
    message: [429, JSON.stringify({ message: "slow down" }), "slow down"],
    detail: [422, JSON.stringify({ detail: "bad field" }), "bad field"],
    text: [503, "upstream unavailable", "upstream unavailable"],
  };
  const srv = serve((req) => {
    const [status, body] = bodies[new URL(req.url).searchParams.get("k")!];
    return new Response(body, { status });
  });
  try {
    for (const [k, [status, , message]] of Object.entries(bodies)) {
      await t.step(k, async () => {
        const r = await send(opts(srv.url + "?k=" + k));
        assert.equal(r.httpStatus, status);
        assert.deepEqual(r.error, { code: status, type: "HTTPError", message });
        assert.ok(r.ackPerf !== null);
      });
    }
    await t.step("long text is truncated", async () => {
      bodies.long = [500, "x".repeat(2000), ""];
      const r = await send(opts(srv.url + "?k=long"));
      assert.ok(r.error !== null && r.error.message.length <= 501);
    });
  } finally {
    await srv.close();
  }
});

Deno.test("send: invalid JSON is an InvalidResponse with an excerpt", async (t) => {
  const srv = serve((req) => {
    if (new URL(req.url).searchParams.has("stream")) {
      return sseResponse([chunk("ok"), "data: {not json\n\n", chunk("never")], [0, 0, 0]);
    }
    return new Response("<html>oops</html>", { headers: { "content-type": "text/html" } });
  });
  try {
    await t.step("stream event", async () => {
      const r = await send(opts(srv.url + "?stream"));
      assert.equal(r.error?.type, "InvalidResponse");
      assert.equal(r.error?.code, 502);
      assert.match(r.error!.message, /\{not json/);
      assert.equal(r.outputText, "ok");
    });
    await t.step("whole body", async () => {
      const r = await send(opts(srv.url, { streaming: false }));
      assert.equal(r.error?.type, "InvalidResponse");
      assert.match(r.error!.message, /<html>oops/);
      assert.equal(r.httpStatus, 200);
    });
  } finally {
    await srv.close();
  }
});

Deno.test("send: a stream without [DONE] is truncated, keeping what was read", async () => {
  const srv = serve(() => sseResponse([chunk("par"), chunk("tial")], [0, 10]));
  try {
    const r = await send(opts(srv.url));
    assert.equal(r.error?.type, "StreamTruncated");
    assert.equal(r.outputText, "partial");
    assert.equal(r.responsePerf.length, 2);
  } finally {
    await srv.close();
  }
});

Deno.test("send: connection closed mid-stream is truncated", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    const conn = await listener.accept();
    const buf = new Uint8Array(65536);
    await conn.read(buf);
    const event = chunk("cut");
    await conn.write(enc.encode(
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n" +
        event.length.toString(16) + "\r\n" + event + "\r\n" +
        '40\r\ndata: {"choi',
    ));
    await new Promise((r) => setTimeout(r, 20));
    conn.close();
  })();
  try {
    const r = await send(opts(`http://127.0.0.1:${listener.addr.port}/v1/chat/completions`));
    assert.equal(r.error?.type, "StreamTruncated");
    assert.equal(r.outputText, "cut");
    assert.equal(r.httpStatus, 200);
  } finally {
    await served;
    listener.close();
  }
});

Deno.test("send: timeout keeps what was read", async () => {
  const srv = serve(() => sseResponse([chunk("slow"), chunk("never")], [0, 3000]));
  try {
    const r = await send(opts(srv.url, { timeoutMs: 150 }));
    assert.deepEqual(r.error?.type, "Timeout");
    assert.equal(r.error?.code, 408);
    assert.equal(r.cancelled, false);
    assert.equal(r.outputText, "slow");
  } finally {
    await srv.close();
  }
});

Deno.test("send: timeout before headers", async () => {
  const srv = serve(async () => {
    await new Promise((r) => setTimeout(r, 400));
    return Response.json({});
  });
  try {
    const r = await send(opts(srv.url, { timeoutMs: 100 }));
    assert.equal(r.error?.type, "Timeout");
    assert.equal(r.ackPerf, null);
    assert.equal(r.httpStatus, null);
  } finally {
    await srv.close();
  }
});

Deno.test("send: external abort is a cancellation", async () => {
  const srv = serve(() => sseResponse([chunk("a"), chunk("b")], [0, 3000]));
  try {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 100);
    const r = await send(opts(srv.url, { signal: ac.signal }));
    clearTimeout(timer);
    assert.equal(r.cancelled, true);
    assert.deepEqual(r.error, { code: 499, type: "Cancelled", message: "request cancelled" });
    assert.equal(r.outputText, "a");
  } finally {
    await srv.close();
  }
});

Deno.test("send: an already aborted signal cancels before sending", async () => {
  const srv = serve(() => Response.json({}));
  try {
    const r = await send(opts(srv.url, { signal: AbortSignal.abort() }));
    assert.equal(r.cancelled, true);
    assert.equal(r.error?.code, 499);
  } finally {
    await srv.close();
  }
});

Deno.test("send: event: error ends the stream with an SSEError", async (t) => {
  const srv = serve((req) => {
    const k = new URL(req.url).searchParams.get("k");
    const err = k === "json"
      ? `event: error\ndata: ${JSON.stringify({ error: { message: "overloaded" } })}\n\n`
      : k === "text"
      ? "event: error\ndata: engine died\n\n"
      : "event: error\n: out of memory\n\n";
    return sseResponse([chunk("x"), err, chunk("y"), "data: [DONE]\n\n"], [0, 0, 0, 0]);
  });
  try {
    for (
      const [k, message] of [["json", "overloaded"], ["text", "engine died"], [
        "comment",
        "out of memory",
      ]]
    ) {
      await t.step(k, async () => {
        const r = await send(opts(srv.url + "?k=" + k));
        assert.deepEqual(r.error, { code: 502, type: "SSEError", message });
        assert.equal(r.outputText, "x");
      });
    }
  } finally {
    await srv.close();
  }
});

Deno.test("send: an error object inside a stream event is an SSEError", async () => {
  const srv = serve(() =>
    sseResponse([
      chunk("x"),
      `data: ${JSON.stringify({ object: "error", message: "context too long", code: 400 })}\n\n`,
    ], [0, 0])
  );
  try {
    const r = await send(opts(srv.url));
    assert.deepEqual(r.error, { code: 400, type: "SSEError", message: "context too long" });
  } finally {
    await srv.close();
  }
});

Deno.test("send: a 200 with no content is an EmptyResponse", async (t) => {
  const srv = serve((req) => {
    if (new URL(req.url).searchParams.has("stream")) {
      return sseResponse([
        `data: ${JSON.stringify({ choices: [{ delta: { content: "" } }] })}\n\ndata: [DONE]\n\n`,
      ], [0]);
    }
    return Response.json({ choices: [{ message: { content: null } }] });
  });
  try {
    await t.step("stream", async () => {
      const r = await send(opts(srv.url + "?stream"));
      assert.equal(r.error?.type, "EmptyResponse");
    });
    await t.step("whole", async () => {
      const r = await send(opts(srv.url, { streaming: false }));
      assert.equal(r.error?.type, "EmptyResponse");
    });
  } finally {
    await srv.close();
  }
});

Deno.test("send: answers that are not tokens count as one response", async () => {
  const srv = serve(() =>
    Response.json({
      object: "list",
      data: [{ object: "embedding", index: 0, embedding: [0.1, 0.2] }],
      usage: { prompt_tokens: 3, total_tokens: 3 },
    })
  );
  try {
    const r = await send(opts(srv.url, { streaming: false, endpoint: getEndpoint("embeddings") }));
    assert.equal(r.error, null);
    assert.deepEqual([...r.responsePerf], [r.endPerf]);
    assert.deepEqual(r.usage, { promptTokens: 3, totalTokens: 3 });
  } finally {
    await srv.close();
  }
});

Deno.test("send: a refused connection is a ConnectionError", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  const r = await send(opts(`http://127.0.0.1:${port}/v1/chat/completions`));
  assert.equal(r.error?.type, "ConnectionError");
  assert.equal(r.error?.code, 0);
  assert.ok(r.error!.message.length > 0);
  assert.equal(r.httpStatus, null);
  assert.equal(r.ackPerf, null);
  assert.ok(r.endPerf >= r.startPerf);
});

Deno.test("send: no timeout (Infinity) and a huge one do not fire early", async () => {
  const srv = serve(() => sseResponse([chunk("a"), "data: [DONE]\n\n"], [0, 30]));
  try {
    for (const timeoutMs of [Infinity, 1e12]) {
      const r = await send(opts(srv.url, { timeoutMs }));
      assert.equal(r.error, null, `timeoutMs ${timeoutMs}`);
      assert.equal(r.outputText, "a");
    }
  } finally {
    await srv.close();
  }
});

Deno.test("send: a shared signal aborted after the request finished changes nothing", async () => {
  const srv = serve(() => Response.json({ choices: [{ message: { content: "x" } }] }));
  try {
    const ac = new AbortController();
    const r = await send(opts(srv.url, { streaming: false, signal: ac.signal }));
    ac.abort();
    assert.equal(r.error, null);
    assert.equal(r.cancelled, false);
  } finally {
    await srv.close();
  }
});

Deno.test("TextCollector: pieces come back joined, whatever characters they hold", () => {
  const c = new TextCollector();
  assert.equal(c.take(), "");
  for (const piece of [" the", " of", "", " and"]) c.add(piece);
  assert.equal(c.take(), " the of and");
  // Taking starts over.
  c.add("x");
  assert.equal(c.take(), "x");
  // Non-ASCII mid-way, and a surrogate pair split over two pieces, as a stream may cut them.
  const pieces = ["Hel", "lo ", "wörld ", "\ud83d", "\ude00", " 日本", "!"];
  for (const piece of pieces) c.add(piece);
  assert.equal(c.take(), pieces.join(""));
  // Long ASCII answers grow the buffer.
  const long = Array.from({ length: 5000 }, (_, i) => ` w${i}`);
  for (const piece of long) c.add(piece);
  assert.equal(c.take(), long.join(""));
});

Deno.test("TextCollector: answers collected side by side keep their own text as buffers are reused", () => {
  const a = new TextCollector();
  const b = new TextCollector();
  const c = new TextCollector();
  a.add("hello");
  b.add("world");
  assert.equal(a.take(), "hello");
  // `c` may now write where `a` did: `b` is not disturbed, and no byte of "hello" shows.
  c.add("xy");
  b.add("!");
  assert.equal(b.take(), "world!");
  assert.equal(c.take(), "xy");
  // A buffer outgrown mid-answer is free for others while the answer goes on in a bigger one.
  const long = "0123456789".repeat(100);
  a.add(long.slice(0, 200));
  a.add(long.slice(200));
  b.add("short");
  a.add("|end");
  assert.equal(b.take(), "short");
  assert.equal(a.take(), long + "|end");
  // Text read in place, plain or not, after the buffers changed hands.
  c.add("é");
  assert.equal(c.addPlain('say "hi"', 0, 8), false);
  assert.equal(c.addPlain("x tail y", 1, 6), true);
  assert.equal(c.take(), "é tail");
});

Deno.test("TimeLog: logs filled side by side keep their own times as arrays are reused", () => {
  const a = new TimeLog();
  const b = new TimeLog();
  for (let i = 0; i < 200; i++) a.push(i);
  assert.deepEqual([...a.view()], Array.from({ length: 200 }, (_, i) => i));
  a.recycle();
  assert.equal(a.length, 0);
  // `b` may get `a`'s array.
  for (let i = 0; i < 500; i++) {
    b.push(-i);
    if (i === 100) a.push(1000);
  }
  a.push(1001);
  assert.deepEqual([...a.view()], [1000, 1001]);
  assert.deepEqual([...b.view()], Array.from({ length: 500 }, (_, i) => -i));
});

Deno.test("TimeLog: an answer as long as the last one, on the same array, gets the same view", () => {
  const log = new TimeLog();
  for (let i = 0; i < 16; i++) log.push(i);
  const first = log.view();
  log.clear();
  for (let i = 0; i < 16; i++) log.push(100 + i);
  const second = log.view();
  assert.equal(second, first);
  assert.deepEqual([...second], Array.from({ length: 16 }, (_, i) => 100 + i));
  // Another length, or the array outgrown: a view of what the log holds now.
  log.clear();
  for (let i = 0; i < 15; i++) log.push(200 + i);
  const shorter = log.view();
  assert.notEqual(shorter, first);
  assert.deepEqual([...shorter], Array.from({ length: 15 }, (_, i) => 200 + i));
  for (let i = 15; i < 300; i++) log.push(200 + i);
  log.clear();
  for (let i = 0; i < 15; i++) log.push(300 + i);
  const grown = log.view();
  assert.notEqual(grown.buffer, shorter.buffer);
  assert.deepEqual([...grown], Array.from({ length: 15 }, (_, i) => 300 + i));
  // Given back and taken again: what it holds now.
  log.recycle();
  assert.equal(log.view().length, 0);
  log.push(7);
  assert.deepEqual([...log.view()], [7]);
});

Deno.test("Spares: the largest array kept is taken first, and a new one fits the last answer", () => {
  const made: number[] = [];
  const spares = new Spares<Uint8Array>(
    (n) => {
      made.push(n);
      return new Uint8Array(n);
    },
    16,
    1024,
  );
  // Nothing kept and no answer given back yet: the first length.
  const first = spares.take();
  assert.equal(first.length, 16);
  // Kept by size, handed out largest first, whatever the order they came back in.
  const small = new Uint8Array(32);
  const large = new Uint8Array(256);
  const middle = new Uint8Array(128);
  spares.give(small);
  spares.give(large);
  spares.give(middle);
  assert.equal(spares.take(), large);
  assert.equal(spares.take(), middle);
  assert.equal(spares.take(), small);
  // An answer that needed 100 elements: the next new array holds it without growing (16 doubled
  // to 128), and that answer's own array, too long to keep, is left to the collector.
  spares.give(new Uint8Array(2048), 100);
  assert.equal(spares.take().length, 128);
  assert.deepEqual(made, [16, 128]);
  // Beyond the longest kept, a new array stops doubling at it.
  spares.give(new Uint8Array(0), 5000);
  assert.equal(spares.take().length, 1024);
});

Deno.test("recycleResult: a result's times serve later requests once given back", async () => {
  const body = chunk("a") + chunk("b") + chunk("c") + "data: [DONE]\n\n";
  const srv = serve(() => new Response(body, { headers: { "content-type": "text/event-stream" } }));
  try {
    const one = await send(opts(srv.url));
    assert.equal(one.responsePerf.length, 3);
    const kept = [...one.responsePerf];
    recycleResult(one);
    assert.equal(one.responsePerf.length, 0, "a given-back result has no times to read");
    const two = await send(opts(srv.url));
    assert.equal(two.responsePerf.length, 3);
    assert.ok(two.responsePerf[0] > kept[2], "the second request's own times");
  } finally {
    await srv.close();
  }
});
