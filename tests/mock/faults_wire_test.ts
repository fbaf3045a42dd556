/** Wire faults of the mock's own HTTP/1.1 server, each checked byte by byte on a raw connection. */

import assert from "node:assert/strict";
import type { Io } from "../../src/cli/io.ts";
import { main } from "../../src/cli/main.ts";
import { type MockOptions, startMockServer } from "../../src/mock/server.ts";
import {
  completeByLength,
  dechunk,
  exchange,
  GUARD_MS,
  parse,
  postBytes,
  RawConn,
  sseEvents,
  text,
  values,
} from "./raw.ts";

const CHAT = { messages: [{ role: "user", content: "hi" }] };
const STREAM = { ...CHAT, stream: true };
const PATH = "/v1/chat/completions";

/** Runs `fn` against a mock (its own server) started with `opts`, closing it after. */
async function withMock(
  opts: MockOptions,
  fn: (server: Awaited<ReturnType<typeof startMockServer>>) => Promise<void>,
): Promise<void> {
  const server = await startMockServer({ http: "direct", seed: 7, outputTokens: 6, ...opts });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

/** A request selecting `kind` by its header. */
const faulted = (kind: string, body: unknown = CHAT) =>
  postBytes(PATH, body, { "x-mock-fault": kind });

/** The SSE text of a complete stream ends with [DONE]. */
function assertWholeStream(body: string): void {
  const events = sseEvents(body);
  assert.ok(events.length > 3, body);
  assert.equal(events.at(-1)!.data, "[DONE]");
}

/** A whole chat answer. */
function assertWholeJson(body: string): void {
  assert.equal(JSON.parse(body).object, "chat.completion");
}

Deno.test("reset-before-head: the connection closes right after the request, no byte sent", async () => {
  await withMock({}, async (server) => {
    for (const body of [CHAT, STREAM]) {
      const r = await exchange(server.port, faulted("reset-before-head", body));
      assert.equal(r.bytes.length, 0);
      assert.notEqual(r.ended, "guard");
    }
    assert.deepEqual(server.stats().faults, { "reset-before-head": 2 });
  });
});

Deno.test("close-delimited: no Content-Length, no chunking, Connection: close, body to EOF", async () => {
  await withMock({}, async (server) => {
    for (const body of [CHAT, STREAM]) {
      const r = await exchange(server.port, faulted("close-delimited", body));
      const p = parse(r.bytes);
      assert.match(p.statusLine, /^HTTP\/1\.1 200 /);
      assert.deepEqual(values(p, "content-length"), []);
      assert.deepEqual(values(p, "transfer-encoding"), []);
      assert.deepEqual(values(p, "connection"), ["close"]);
      assert.equal(r.ended, "eof");
      if (body === STREAM) assertWholeStream(text(p.body));
      else assertWholeJson(text(p.body));
    }
  });
});

Deno.test("http10: an HTTP/1.0 answer; a stream is close-delimited, a whole body has a length", async () => {
  await withMock({}, async (server) => {
    const s = await exchange(server.port, faulted("http10", STREAM));
    const ps = parse(s.bytes);
    assert.match(ps.statusLine, /^HTTP\/1\.0 200 OK$/);
    assert.deepEqual(values(ps, "transfer-encoding"), []);
    assert.deepEqual(values(ps, "content-length"), []);
    assert.equal(s.ended, "eof");
    assertWholeStream(text(ps.body));
    const w = await exchange(server.port, faulted("http10"));
    const pw = parse(w.bytes);
    assert.match(pw.statusLine, /^HTTP\/1\.0 200 /);
    assert.equal(Number(values(pw, "content-length")[0]), pw.body.length);
    assert.equal(w.ended, "eof", "and the connection closes after it");
    assertWholeJson(text(pw.body));
  });
});

Deno.test("chunk-ext: every chunk size carries an extension; the body is whole", async () => {
  await withMock({}, async (server) => {
    for (const body of [CHAT, STREAM]) {
      const c = await RawConn.open(server.port);
      try {
        await c.send(faulted("chunk-ext", body));
        await c.readUntil((b) =>
          text(b).endsWith("0;ext=1\r\n\r\n") || text(b).endsWith("0\r\n\r\n")
        );
        const p = parse(c.bytes);
        assert.deepEqual(values(p, "transfer-encoding"), ["chunked"]);
        const d = dechunk(p.body);
        assert.ok(d.complete);
        assert.ok(d.sizeLines.length >= 2);
        for (const line of d.sizeLines.slice(0, -1)) assert.match(line, /^[0-9a-f]+;ext=1$/);
        if (body === STREAM) assertWholeStream(text(d.data));
        else assertWholeJson(text(d.data));
        assert.equal(c.ended, null, "the connection stays open");
      } finally {
        c.close();
      }
    }
  });
});

Deno.test("slow-head: the head comes a byte at a time over --fault-head-ms, then the answer", async () => {
  const headMs = 200;
  await withMock({ faultHeadMs: headMs }, async (server) => {
    const c = await RawConn.open(server.port);
    try {
      const sent = performance.now();
      await c.send(faulted("slow-head"));
      await c.readUntil(completeByLength);
      const p = parse(c.bytes);
      assert.match(p.statusLine, /^HTTP\/1\.1 200 /);
      assertWholeJson(text(p.body));
      // The head's last byte cannot come before the whole delay has passed.
      let got = 0;
      const headDone = c.reads.find((r) => (got += r.n) >= p.headLength)!.at;
      assert.ok(headDone - sent >= headMs - 20, `head done after ${headDone - sent} ms`);
      assert.ok(c.reads.length > 1, "the head came in pieces");
    } finally {
      c.close();
    }
  });
});

Deno.test("Content-Length faults: duplicate and differing, shorter and longer than the body", async () => {
  await withMock({}, async (server) => {
    for (const body of [CHAT, STREAM]) {
      const dup = await exchange(server.port, faulted("dup-content-length", body));
      const pd = parse(dup.bytes);
      const lengths = values(pd, "content-length").map(Number);
      assert.equal(lengths.length, 2);
      assert.deepEqual(lengths, [pd.body.length, pd.body.length + 1]);
      assert.deepEqual(values(pd, "transfer-encoding"), [], "a stream is sent whole");
      assert.equal(dup.ended, "eof");

      const short = await exchange(server.port, faulted("content-length-short", body));
      const ps = parse(short.bytes);
      assert.equal(Number(values(ps, "content-length")[0]), ps.body.length >> 1);
      assert.equal(short.ended, "eof");

      const long = await exchange(server.port, faulted("content-length-long", body));
      const pl = parse(long.bytes);
      assert.equal(Number(values(pl, "content-length")[0]), pl.body.length + 100);
      assert.equal(long.ended, "eof", "the connection ends before the announced length");

      for (const p of [pd, ps, pl]) {
        if (body === STREAM) assertWholeStream(text(p.body));
        else assertWholeJson(text(p.body));
      }
    }
  });
});

Deno.test("close and close-unannounced: the connection ends after the answer, said or not", async () => {
  await withMock({}, async (server) => {
    for (const body of [CHAT, STREAM]) {
      const said = await exchange(server.port, faulted("close", body));
      const ps = parse(said.bytes);
      assert.deepEqual(values(ps, "connection"), ["close"]);
      assert.equal(said.ended, "eof");
      const quiet = await exchange(server.port, faulted("close-unannounced", body));
      const pq = parse(quiet.bytes);
      assert.deepEqual(values(pq, "connection"), []);
      assert.equal(quiet.ended, "eof");
      for (const p of [ps, pq]) {
        const bytes = body === STREAM ? dechunk(p.body) : { data: p.body, complete: true };
        assert.ok(bytes.complete);
        if (body === STREAM) assertWholeStream(text(bytes.data));
        else assertWholeJson(text(bytes.data));
      }
    }
  });
});

Deno.test("idle-close: a kept-alive connection is closed once idle for --fault-idle-ms", async () => {
  const idleMs = 150;
  await withMock({ faultIdleMs: idleMs }, async (server) => {
    const c = await RawConn.open(server.port);
    try {
      await c.send(faulted("idle-close"));
      await c.readUntil(completeByLength);
      const p = parse(c.bytes);
      assert.deepEqual(values(p, "connection"), [], "announced as kept alive");
      assertWholeJson(text(p.body));
      c.take(c.bytes.length);
      // A request in time is served on the same connection...
      await c.send(faulted("idle-close"));
      await c.readUntil(completeByLength);
      assertWholeJson(text(parse(c.bytes).body));
      const again = performance.now();
      c.take(c.bytes.length);
      // ...then, idle, the connection is closed by the server.
      await c.readToEnd();
      assert.equal(c.ended, "eof");
      assert.equal(c.bytes.length, 0);
      const idle = performance.now() - again;
      assert.ok(idle >= idleMs - 20, `closed after ${idle} ms idle`);
    } finally {
      c.close();
    }
  });
});

Deno.test("reset-reused: the second request on a connection gets a close before any byte", async () => {
  await withMock({ fault: ["reset-reused"] }, async (server) => {
    const c = await RawConn.open(server.port);
    try {
      await c.send(postBytes(PATH, STREAM));
      await c.readUntil((b) => text(b).endsWith("0\r\n\r\n"));
      const p = parse(c.bytes);
      assert.match(p.statusLine, /^HTTP\/1\.1 200 /);
      assertWholeStream(text(dechunk(p.body).data));
      c.take(c.bytes.length);
      await c.send(postBytes(PATH, CHAT));
      await c.readToEnd();
      assert.equal(c.bytes.length, 0);
      assert.notEqual(c.ended, "guard");
    } finally {
      c.close();
    }
    assert.deepEqual(server.stats(), {
      requests: 2,
      byPath: { [PATH]: 2 },
      faults: { "reset-reused": 2 },
    });
  });
});

Deno.test("--fault selects the mock's own server; --http deno with a wire fault is a usage error", async () => {
  const err: string[] = [];
  const io: Io = {
    stdout: () => {},
    stderr: (s: string) => err.push(s),
    env: () => undefined,
    isTerminal: false,
  };
  const code = await main(
    ["mock-server", "--port", "0", "--fault", "close", "--http", "deno"],
    io,
  );
  assert.equal(code, 2);
  assert.match(err.join(""), /--http deno cannot inject wire faults \(close\)/);

  const ac = new AbortController();
  const { promise: listening, resolve } = Promise.withResolvers<string>();
  const running = main(["mock-server", "--port", "0", "--fault", "close=1"], {
    ...io,
    stderr: (s: string) => resolve(s),
    signal: ac.signal,
  });
  const url = (await listening).match(/listening on (http:\/\/\S+)/)![1];
  const r = await exchange(Number(new URL(url).port), postBytes(PATH, CHAT), GUARD_MS);
  assert.deepEqual(values(parse(r.bytes), "connection"), ["close"]);
  ac.abort();
  assert.equal(await running, 0);
});
