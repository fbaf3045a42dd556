import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { MAX_HEAD, serveWire } from "../../src/mock/wire.ts";
import { post, readSse } from "./helpers.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const CHAT = { model: "m", messages: [{ role: "user", content: "hi" }] };

/**
 * Sends `parts` (written one by one) on a new connection and reads until the server closes.
 * With `hangUp`, the client stops writing after the last part.
 */
async function exchange(port: number, ...parts: (string | { hangUp: true })[]): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const deadline = setTimeout(() => conn.close(), 5000);
  let raw = "";
  try {
    for (const p of parts) {
      if (typeof p !== "string") {
        await conn.closeWrite();
        continue;
      }
      await conn.write(enc.encode(p));
      await new Promise((r) => setTimeout(r, 5));
    }
    const buf = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      raw += dec.decode(buf.subarray(0, n));
    }
  } catch {
    /* a reset ends it too */
  } finally {
    clearTimeout(deadline);
    try {
      conn.close();
    } catch { /* closed */ }
  }
  return raw;
}

/** A POST request's text. */
function postText(path: string, body: string, extra = ""): string {
  return `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${extra}` +
    `content-length: ${enc.encode(body).length}\r\n\r\n${body}`;
}

/** Splits raw answers: status line, lower-cased headers, and the bytes after the head. */
function answer(raw: string): { status: string; headers: Map<string, string>; rest: string } {
  const at = raw.indexOf("\r\n\r\n");
  assert.ok(at > 0, `no head in ${JSON.stringify(raw.slice(0, 200))}`);
  const [status, ...lines] = raw.slice(0, at).split("\r\n");
  const headers = new Map<string, string>();
  for (const l of lines) {
    const c = l.indexOf(":");
    headers.set(l.slice(0, c).toLowerCase(), l.slice(c + 1).trim());
  }
  return { status, headers, rest: raw.slice(at + 4) };
}

/** Decodes a chunked body at the start of `text`; returns it and what follows its last chunk. */
function unchunk(text: string): { body: string; after: string } {
  let body = "";
  let at = 0;
  for (;;) {
    const eol = text.indexOf("\r\n", at);
    const size = parseInt(text.slice(at, eol), 16);
    assert.ok(Number.isFinite(size), `bad chunk size at ${at}: ${text.slice(at, at + 20)}`);
    at = eol + 2;
    if (size === 0) {
      assert.equal(text.slice(at, at + 2), "\r\n");
      return { body, after: text.slice(at + 2) };
    }
    body += text.slice(at, at + size);
    assert.equal(text.slice(at + size, at + size + 2), "\r\n");
    at += size + 2;
  }
}

Deno.test("direct mock: pipelined requests on one connection, streamed and whole answers", async () => {
  const server = await startMockServer({ http: "direct", outputTokens: 3, seed: 1 });
  try {
    const stream = JSON.stringify({ ...CHAT, stream: true });
    const raw = await exchange(
      server.port,
      // Two requests in one write, then a third asking to close.
      postText("/v1/chat/completions", stream) + postText("/v1/chat/completions", "{}"),
      "GET /v1/models HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
    );
    const first = answer(raw);
    assert.match(first.status, /^HTTP\/1\.1 200 /);
    assert.equal(first.headers.get("transfer-encoding"), "chunked");
    assert.match(first.headers.get("content-type")!, /^text\/event-stream/);
    assert.equal(first.headers.has("connection"), false, "kept alive");
    const sse = unchunk(first.rest);
    assert.equal((sse.body.match(/"content":" /g) ?? []).length, 3);
    assert.ok(sse.body.endsWith("data: [DONE]\n\n"));

    const second = answer(sse.after);
    assert.match(second.status, /^HTTP\/1\.1 400 /, "the body {} has no messages");
    const length = Number(second.headers.get("content-length"));
    const error = second.rest.slice(0, length);
    assert.equal(JSON.parse(error).error.param, "messages");

    const third = answer(second.rest.slice(length));
    assert.match(third.status, /^HTTP\/1\.1 200 /);
    assert.equal(third.headers.get("connection"), "close");
    const models = third.rest;
    assert.equal(models.length, Number(third.headers.get("content-length")));
    assert.equal(JSON.parse(models).data[0].id, "m", "the model of the first request");
    assert.deepEqual(server.stats(), {
      requests: 3,
      byPath: { "/v1/chat/completions": 2, "/v1/models": 1 },
      faults: {},
    });
  } finally {
    await server.close();
  }
});

Deno.test("direct mock: chunked request bodies, HTTP/1.0, and heads split across reads", async () => {
  const server = await startMockServer({ http: "direct", outputTokens: 2 });
  try {
    const body = JSON.stringify(CHAT);
    const half = body.length >> 1;
    const chunked = await exchange(
      server.port,
      "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ntransfer-en",
      "coding: chunked\r\nconnection: close\r\n\r\n",
      `${half.toString(16)};ext=1\r\n${body.slice(0, half)}\r\n`,
      `${(body.length - half).toString(16)}\r\n${body.slice(half)}\r\n0\r\nx-trailer: 1\r\n\r\n`,
    );
    const a = answer(chunked);
    assert.match(a.status, /^HTTP\/1\.1 200 /);
    assert.equal(JSON.parse(a.rest).usage.completion_tokens, 2);

    // A HEAD answer has no body: the next answer follows its head at once.
    const heads = await exchange(
      server.port,
      "HEAD /v1/models HTTP/1.1\r\nhost: x\r\n\r\n" +
        "GET /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
    );
    const h = answer(heads);
    assert.match(h.status, /^HTTP\/1\.1 200 /);
    assert.equal(h.headers.get("content-type"), "application/json");
    assert.match(answer(h.rest).status, /^HTTP\/1\.1 200 /);
    assert.equal(answer(h.rest).rest, "");

    // HTTP/1.0 closes after the answer without asking.
    const old = await exchange(server.port, "GET /health HTTP/1.0\r\n\r\n");
    assert.match(answer(old).status, /^HTTP\/1\.1 200 /);
    assert.equal(answer(old).headers.get("connection"), "close");
  } finally {
    await server.close();
  }
});

Deno.test("direct mock: malformed requests get a 4xx/5xx answer and the connection closes", async () => {
  const server = await startMockServer({ http: "direct" });
  try {
    const cases: [string, number][] = [
      ["GARBAGE\r\n\r\n", 400],
      ["GET / HTTP/2.0\r\n\r\n", 400],
      ["GET /health HTTP/1.1\r\nno colon here\r\n\r\n", 400],
      ["POST /v1/completions HTTP/1.1\r\ncontent-length: ten\r\n\r\n", 400],
      ["POST /v1/completions HTTP/1.1\r\ntransfer-encoding: gzip\r\n\r\n", 501],
      ["POST /v1/completions HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n", 400],
      [`GET /health HTTP/1.1\r\nx-big: ${"a".repeat(MAX_HEAD)}\r\n\r\n`, 431],
    ];
    for (const [request, status] of cases) {
      const raw = await exchange(server.port, request);
      const a = answer(raw);
      assert.match(a.status, new RegExp(`^HTTP/1\\.1 ${status} `), request.slice(0, 60));
      assert.equal(a.headers.get("connection"), "close");
      assert.equal(a.rest.length, Number(a.headers.get("content-length")));
    }
    // A client that hangs up in the middle of a body gets no answer; the server carries on.
    const cut = postText("/v1/completions", "{}").slice(0, -1);
    assert.equal(await exchange(server.port, cut, { hangUp: true }), "");
    const res = await fetch(`${server.url}/health`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("direct mock: a chunk is on the wire while the server's JavaScript keeps running", async () => {
  const busyMs = 300;
  let enqueuedAt = 0;
  let busyEndedAt = 0;
  const server = serveWire({ hostname: "127.0.0.1", port: 0 }, () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          // Two timers due together, as a busy mock's are: the first sends a token, the second
          // keeps the thread busy. The chunk must not wait for the second to end.
          setTimeout(() => {
            enqueuedAt = performance.timeOrigin + performance.now();
            controller.enqueue(enc.encode("data: 1\n\n"));
          }, 20);
          setTimeout(() => {
            const until = performance.now() + busyMs;
            while (performance.now() < until) { /* busy */ }
            busyEndedAt = performance.timeOrigin + performance.now();
            controller.close();
          }, 20);
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    ));
  // The reader runs on its own thread, so it reads while this one is busy.
  const code = `
    self.onmessage = async (e) => {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: e.data });
      await conn.write(new TextEncoder().encode("GET / HTTP/1.1\\r\\nhost: x\\r\\n\\r\\n"));
      const buf = new Uint8Array(4096);
      let got = "";
      while (!got.includes("data: 1")) {
        const n = await conn.read(buf);
        if (n === null) break;
        got += new TextDecoder().decode(buf.subarray(0, n));
      }
      self.postMessage(performance.timeOrigin + performance.now());
      conn.close();
    };
  `;
  const worker = new Worker(`data:text/javascript,${encodeURIComponent(code)}`, { type: "module" });
  try {
    const arrived = new Promise<number>((resolve) => worker.onmessage = (e) => resolve(e.data));
    worker.postMessage(server.addr.port);
    const at = await arrived;
    assert.ok(enqueuedAt > 0);
    // Order, not a time window: the reader had the chunk before the busy timer let go.
    assert.ok(busyEndedAt > 0, "the busy timer never ran");
    assert.ok(
      at < busyEndedAt,
      `the chunk arrived ${(at - enqueuedAt).toFixed(1)} ms after it was enqueued, ` +
        `${(at - busyEndedAt).toFixed(1)} ms after the thread was free`,
    );
  } finally {
    worker.terminate();
    await server.shutdown();
  }
});

Deno.test("direct mock: a client leaving mid-stream cancels the answer, which is logged", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "timing.jsonl");
  const server = await startMockServer({
    http: "direct",
    ttftMs: 0,
    itlMs: 30,
    outputTokens: 100,
    timingLog: path,
  });
  try {
    const res = await post(`${server.url}/v1/chat/completions`, { ...CHAT, stream: true }, {
      headers: { "content-type": "application/json", "x-request-id": "gone" },
    });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    // The next write fails and cancels the body, which logs what it sent.
    const deadline = performance.now() + 3000;
    let text = "";
    while (!text.includes('"gone"') && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      text = await Deno.readTextFile(path).catch(() => "");
    }
    const line = JSON.parse(text.trim());
    assert.equal(line.request_id, "gone");
    assert.ok(line.tokens >= 1 && line.tokens < 100, `tokens ${line.tokens}`);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("direct mock: close ends streams, closes idle connections and resolves", async () => {
  const server = await startMockServer({ http: "direct", itlMs: 1000, outputTokens: 50 });
  const idle = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  await idle.write(enc.encode("GET /health HTTP/1.1\r\nhost: x\r\n\r\n"));
  const buf = new Uint8Array(4096);
  assert.match(dec.decode(buf.subarray(0, (await idle.read(buf))!)), /^HTTP\/1\.1 200 /);
  const res = await post(`${server.url}/v1/chat/completions`, { ...CHAT, stream: true });
  const events = readSse(res).catch(() => []);
  await new Promise((r) => setTimeout(r, 50));
  const t0 = performance.now();
  await Promise.all([server.close(), server.close()]);
  assert.ok(performance.now() - t0 < 5000);
  assert.ok((await events).length < 50, "the stream ended early");
  assert.equal(await idle.read(buf), null, "the idle connection was closed");
  idle.close();
  await assert.rejects(() => fetch(`${server.url}/health`), TypeError, "no longer listening");
});
