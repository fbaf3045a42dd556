/**
 * One contract, every transport: the same cases run against fetch (`send`) and the HTTP/1.1
 * client, so either can be chosen without changing what a run reports.
 */
import assert from "node:assert/strict";
import { createHttp1Transport, send } from "../../src/answer/client.ts";
import type { SendOptions, SendResult } from "../../src/answer/result.ts";
import { chatEndpoint } from "../../src/endpoints/chat.ts";
import type { Endpoint } from "../../src/endpoints/types.ts";
import { bodyBytes, packBodies } from "../../src/load/packed.ts";
import { setPlainPaths } from "../../src/util/fast_paths.ts";
import { writeAll } from "../../src/util/bytes.ts";
import { selfSigned } from "./tls_pair.ts";

const enc = new TextEncoder();

/** A transport under test; `caCerts` trusts the test's self-signed certificate. */
interface Subject {
  name: string;
  make(caCerts: string[]): { send(o: SendOptions): Promise<SendResult>; close(): void };
}

const subjects: Subject[] = [
  {
    name: "fetch",
    make(caCerts) {
      // fetch takes its roots from an HttpClient; `send` calls the global fetch, so this suite
      // hands it one by wrapping fetch for the duration of a request.
      const client = Deno.createHttpClient({ caCerts });
      return {
        async send(o) {
          const original = globalThis.fetch;
          globalThis.fetch =
            ((input: RequestInfo | URL, init?: RequestInit) =>
              original(input, { ...init, client } as RequestInit)) as typeof fetch;
          try {
            return await send(o);
          } finally {
            globalThis.fetch = original;
          }
        },
        close: () => client.close(),
      };
    },
  },
  { name: "http1", make: (caCerts) => createHttp1Transport({ caCerts }) },
];

interface TestServer {
  url: string;
  /** Distinct client connections seen. */
  connections(): number;
  close(): Promise<void>;
}

function serve(
  handler: (req: Request) => Response | Promise<Response>,
  tls?: { cert: string; key: string },
): TestServer {
  const ac = new AbortController();
  const ports = new Set<number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {}, ...tls },
    (req, info) => {
      ports.add((info.remoteAddr as Deno.NetAddr).port);
      return handler(req);
    },
  );
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${server.addr.port}/v1/chat/completions`,
    connections: () => ports.size,
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}

/** A raw server for answers Deno.serve would not send: runs `answer` per accepted connection. */
function rawServer(answer: (conn: Deno.Conn) => Promise<void>): {
  url: string;
  close(): Promise<void>;
} {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const tasks: Promise<void>[] = [];
  const loop = (async () => {
    for await (const conn of listener) tasks.push(answer(conn).catch(() => {}));
  })();
  return {
    url: `http://127.0.0.1:${listener.addr.port}/v1/chat/completions`,
    async close() {
      listener.close();
      await loop.catch(() => {});
      await Promise.all(tasks);
    },
  };
}

/**
 * Reads one request (head, and a Content-Length or chunked body) off a raw connection; false at
 * EOF. Its head goes to `heads` when given.
 */
async function readRequest(conn: Deno.Conn, heads?: string[]): Promise<boolean> {
  const buf = new Uint8Array(65536);
  let got = "";
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) return false;
    got += new TextDecoder().decode(buf.subarray(0, n));
    const at = got.indexOf("\r\n\r\n");
    if (at === -1) continue;
    const head = got.slice(0, at);
    const done = /transfer-encoding: *chunked/i.test(head)
      ? got.indexOf("0\r\n\r\n", at + 4) !== -1
      : got.length - at - 4 >= Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (done) {
      heads?.push(head);
      return true;
    }
  }
}

function sseResponse(parts: string[], delays: number[], headers: HeadersInit = {}): Response {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (let i = 0; i < parts.length; i++) {
        if (delays[i]) await new Promise((r) => setTimeout(r, delays[i]));
        if (cancelled) return;
        controller.enqueue(enc.encode(parts[i]));
      }
      controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream", ...headers } });
}

function chunk(content: string): string {
  return `data: ${
    JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] })
  }\n\n`;
}

const DONE = "data: [DONE]\n\n";

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

/**
 * A server in its own thread that answers `n` requests at once: it waits until all of them have
 * arrived (raising `flags[0]`), then writes `parts[0]` of the answer on every connection within a
 * few ms; each further part `k` follows on every connection once the test raises `flags[1]` to `k`.
 */
function burstServer(n: number, parts: string[]) {
  const flags = new Int32Array(new SharedArrayBuffer(8));
  const code = `
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    self.onmessage = async (e) => {
      const flags = e.data;
      const conns = [];
      while (conns.length < ${n}) {
        const conn = await listener.accept();
        const buf = new Uint8Array(65536);
        let got = "";
        for (;;) {
          got += new TextDecoder().decode(buf.subarray(0, await conn.read(buf)));
          const at = got.indexOf("\\r\\n\\r\\n");
          const len = Number(/content-length: *(\\d+)/i.exec(got)?.[1] ?? 0);
          if (at !== -1 && got.length - at - 4 >= len) break;
        }
        conns.push(conn);
      }
      Atomics.store(flags, 0, 1);
      const parts = ${JSON.stringify(parts)};
      for (let k = 0; k < parts.length; k++) {
        const until = Date.now() + 5000;
        while (Atomics.load(flags, 1) < k && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 1));
        }
        await new Promise((r) => setTimeout(r, k === 0 ? 50 : 20));
        const bytes = new TextEncoder().encode(parts[k]);
        for (const c of conns) await c.write(bytes);
      }
      await new Promise((r) => setTimeout(r, 1000));
      for (const c of conns) c.close();
      listener.close();
    };
    self.postMessage(listener.addr.port);
  `;
  const worker = new Worker(`data:text/javascript,${encodeURIComponent(code)}`, { type: "module" });
  const port = new Promise<number>((resolve) => {
    worker.onmessage = (e) => resolve(e.data);
  });
  worker.postMessage(flags);
  return { port, arrived: flags, close: () => worker.terminate() };
}

/**
 * Sends `streams` requests through `subject` to `srv`, waits for `ready` (then raises `srv`'s part
 * counter to `part` when given), and keeps this thread busy for 300 ms while the server writes:
 * every stream's next read is then waiting at once. Returns the results, each checked complete.
 */
async function sendBurst(
  subject: Subject,
  srv: ReturnType<typeof burstServer>,
  streams: number,
  endpoint: Endpoint,
  ready: () => Promise<void>,
  part?: number,
): Promise<SendResult[]> {
  const t = subject.make([]);
  // The fetch subject swaps the global fetch per request; requests in flight together restore
  // it in any order.
  const realFetch = globalThis.fetch;
  try {
    const url = `http://127.0.0.1:${await srv.port}/v1/chat/completions`;
    const sends = Array.from({ length: streams }, () => t.send(opts(url, { endpoint })));
    await ready();
    if (part !== undefined) Atomics.store(srv.arrived, 1, part);
    const until = performance.now() + 300;
    while (performance.now() < until) { /* busy */ }
    const results = await Promise.all(sends);
    for (const r of results) {
      assert.equal(r.error, null);
      assert.equal(r.outputText, "first second");
    }
    return results;
  } finally {
    globalThis.fetch = realFetch;
    t.close();
    srv.close();
  }
}

/** How far apart the `k`-th responses of `results` were stamped, in ms. */
function stampSpread(results: SendResult[], k: number): number {
  const at = results.map((r) => r.responsePerf[k]);
  return Math.max(...at) - Math.min(...at);
}

/** The contract holds with the fast paths on, and with every one off (`--plain-paths all`). */
for (const plain of [false, true]) {
  for (const subject of subjects) {
    const paths = plain ? ", plain paths" : "";
    const name = (s: string) => `transport contract (${subject.name}${paths}): ${s}`;
    /** A test of the contract, run with the fast paths of this round. */
    const test = (n: string, fn: (t: Deno.TestContext) => Promise<void>) =>
      Deno.test(n, async (t) => {
        setPlainPaths(plain ? ["all"] : []);
        try {
          await fn(t);
        } finally {
          setPlainPaths([]);
        }
      });

    test(name("a burst of first tokens is stamped before any of them is parsed"), async () => {
      const streams = 8;
      const burnMs = 20;
      const events = enc.encode(chunk("first") + chunk(" second") + DONE);
      const answer = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n" +
        `content-length: ${events.length}\r\n\r\n` + new TextDecoder().decode(events);
      const srv = burstServer(streams, [answer]);
      // Reading a stream's first event costs `burnMs`: one stream's parsing must not delay the
      // stamps of the others, which arrived at the same moment.
      const burn = (state: Record<string, unknown>) => {
        if (state.burnt === undefined) {
          state.burnt = true;
          const until = performance.now() + burnMs;
          while (performance.now() < until) { /* parsing */ }
        }
      };
      // Read by parseText on the fast path, by parseEvent on the plain one.
      const slowFirst: Endpoint = {
        ...chatEndpoint,
        parseEvent(event, state = {}) {
          burn(state);
          return chatEndpoint.parseEvent(event, state);
        },
        fast: {
          ...chatEndpoint.fast!,
          parseText(data: string, state: Record<string, unknown>, event: string) {
            burn(state);
            return chatEndpoint.fast!.parseText(data, state, event);
          },
        },
      };
      const results = await sendBurst(subject, srv, streams, slowFirst, async () => {
        while (Atomics.load(srv.arrived, 0) === 0) await new Promise((r) => setTimeout(r, 5));
      });
      const spread = stampSpread(results, 0);
      // Stamped in turn after each other's parsing, they would spread over (streams - 1) * burnMs.
      assert.ok(spread < (streams - 1) * burnMs / 3, `first tokens stamped over ${spread} ms`);
    });

    test(name("a burst of later tokens is stamped before any of them is parsed"), async () => {
      const streams = 8;
      const burnMs = 20;
      const first = chunk("first");
      const rest = chunk(" second") + DONE;
      const head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n" +
        `content-length: ${enc.encode(first + rest).length}\r\n\r\n`;
      // Every stream's first token comes alone; their second tokens come later, together.
      const srv = burstServer(streams, [head + first, rest]);
      // Reading a stream's second event costs `burnMs`: one stream's parsing must not delay the
      // stamps of the others, which arrived at the same moment.
      let firsts = 0;
      const count = (state: Record<string, unknown>) => {
        const calls = ((state.calls as number | undefined) ?? 0) + 1;
        state.calls = calls;
        if (calls === 1) firsts++;
        if (calls === 2) {
          const until = performance.now() + burnMs;
          while (performance.now() < until) { /* parsing */ }
        }
      };
      // Read by parseText on the fast path, by parseEvent on the plain one.
      const slowSecond: Endpoint = {
        ...chatEndpoint,
        parseEvent(event, state = {}) {
          count(state);
          return chatEndpoint.parseEvent(event, state);
        },
        fast: {
          ...chatEndpoint.fast!,
          // Every first token read by parseText, which counts them (not recognized in place as an
          // instance of an earlier answer's template).
          adoptTemplate: undefined,
          parseText(data: string, state: Record<string, unknown>, event: string) {
            count(state);
            return chatEndpoint.fast!.parseText(data, state, event);
          },
        },
      };
      // Once every first token is read, the server writes the second tokens together.
      const results = await sendBurst(subject, srv, streams, slowSecond, async () => {
        const deadline = performance.now() + 5000;
        while (firsts < streams && performance.now() < deadline) {
          await new Promise((r) => setTimeout(r, 5));
        }
        assert.equal(firsts, streams, "every first token was read");
      }, 1);
      const spread = stampSpread(results, 1);
      // Stamped in turn after each other's parsing, they would spread over (streams - 1) * burnMs.
      assert.ok(spread < (streams - 1) * burnMs / 3, `second tokens stamped over ${spread} ms`);
    });

    test(
      name("SSE events are stamped per read, in order, after the server's delays"),
      async () => {
        const t = subject.make([]);
        let seen: { body: string; id: string | null } | null = null;
        const srv = serve(async (req) => {
          seen = { body: await req.text(), id: req.headers.get("x-request-id") };
          return sseResponse([chunk("Hel"), chunk("lo") + chunk("!"), DONE], [60, 20, 20]);
        });
        try {
          const o = opts(srv.url);
          const r = await t.send(o);
          assert.equal(r.error, null);
          assert.equal(r.httpStatus, 200);
          assert.equal(r.outputText, "Hello!");
          assert.equal(r.responsePerf.length, 3);
          assert.ok(
            r.responsePerf[0] - r.startPerf >= 55,
            `first at ${r.responsePerf[0] - r.startPerf}`,
          );
          assert.ok(r.responsePerf[1] > r.responsePerf[0]);
          // Two events written at once arrive in one read and share its stamp.
          assert.equal(r.responsePerf[2], r.responsePerf[1]);
          assert.ok(r.endPerf >= r.responsePerf[2]);
          assert.deepEqual(seen, { body: o.body, id: "r1" });
        } finally {
          t.close();
          await srv.close();
        }
      },
    );

    test(name("a body on shared memory is sent byte for byte"), async () => {
      const t = subject.make([]);
      let seen = "";
      const srv = serve(async (req) => {
        seen = await req.text();
        return sseResponse([chunk("ok"), DONE], [0, 0]);
      });
      try {
        // As the Workers send them: a view into the run's packed bodies, between two others.
        const text = JSON.stringify({ model: "m", messages: [{ role: "user", content: "é" }] });
        const packed = packBodies(["before", text, "after"]);
        const r = await t.send(opts(srv.url, { body: bodyBytes(packed, 1) }));
        assert.equal(r.error, null);
        assert.equal(r.outputText, "ok");
        assert.equal(seen, text);
      } finally {
        t.close();
        await srv.close();
      }
    });

    test(name("an SSE answer is read as a stream even when none was asked for"), async () => {
      const t = subject.make([]);
      const srv = serve(() => sseResponse([chunk("a"), chunk("b"), DONE], [0, 5, 0]));
      try {
        const r = await t.send(opts(srv.url, { streaming: false }));
        assert.equal(r.error, null);
        assert.equal(r.outputText, "ab");
        assert.equal(r.responsePerf.length, 2);
      } finally {
        t.close();
        await srv.close();
      }
    });

    test(name("length-delimited and chunked bodies, streamed or whole"), async (t) => {
      const tr = subject.make([]);
      const json = JSON.stringify({ choices: [{ message: { content: "whole answer" } }] });
      const srv = serve((req) => {
        const k = new URL(req.url).searchParams.get("k");
        if (k === "length-json") {
          return new Response(json, { headers: { "content-type": "application/json" } });
        }
        if (k === "chunked-json") {
          return new Response(
            ReadableStream.from([enc.encode(json.slice(0, 10)), enc.encode(json.slice(10))]),
            {
              headers: { "content-type": "application/json" },
            },
          );
        }
        // An SSE answer with a Content-Length instead of chunks.
        return new Response(chunk("sized") + DONE, {
          headers: { "content-type": "text/event-stream" },
        });
      });
      try {
        for (const k of ["length-json", "chunked-json"]) {
          await t.step(k, async () => {
            const r = await tr.send(opts(`${srv.url}?k=${k}`, { streaming: false }));
            assert.equal(r.error, null);
            assert.equal(r.outputText, "whole answer");
            assert.deepEqual([...r.responsePerf], [r.endPerf]);
          });
        }
        await t.step("length-sse", async () => {
          const r = await tr.send(opts(`${srv.url}?k=length-sse`));
          assert.equal(r.error, null);
          assert.equal(r.outputText, "sized");
        });
      } finally {
        tr.close();
        await srv.close();
      }
    });

    test(name("HTTP error statuses carry the status and the server's message"), async () => {
      const t = subject.make([]);
      const srv = serve((req) => {
        const status = Number(new URL(req.url).searchParams.get("s"));
        return new Response(JSON.stringify({ error: { message: `nope ${status}` } }), { status });
      });
      try {
        for (const status of [400, 404, 429, 500, 503]) {
          const r = await t.send(opts(`${srv.url}?s=${status}`));
          assert.equal(r.httpStatus, status);
          assert.deepEqual(r.error, { code: status, type: "HTTPError", message: `nope ${status}` });
        }
        // The connection stays usable after error answers.
        const ok = await t.send(opts(srv.url + "?s=200", { streaming: false }));
        assert.equal(ok.httpStatus, 200);
      } finally {
        t.close();
        await srv.close();
      }
    });

    test(name("sequential requests reuse one kept-alive connection"), async () => {
      const t = subject.make([]);
      const srv = serve(() => sseResponse([chunk("a"), DONE], [0, 0]));
      try {
        for (let i = 0; i < 5; i++) {
          const r = await t.send(opts(srv.url));
          assert.equal(r.error, null);
        }
        assert.equal(srv.connections(), 1);
      } finally {
        t.close();
        await srv.close();
      }
    });

    test(name("a server closing mid-stream truncates, keeping what was read"), async () => {
      const t = subject.make([]);
      const srv = rawServer(async (conn) => {
        await readRequest(conn);
        const event = chunk("cut");
        await conn.write(enc.encode(
          "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n" +
            event.length.toString(16) + "\r\n" + event + "\r\n" + '40\r\ndata: {"choi',
        ));
        await new Promise((r) => setTimeout(r, 20));
        conn.close();
      });
      try {
        const r = await t.send(opts(srv.url));
        assert.equal(r.error?.type, "StreamTruncated");
        assert.equal(r.error?.code, 502);
        assert.equal(r.outputText, "cut");
        assert.equal(r.httpStatus, 200);
      } finally {
        t.close();
        await srv.close();
      }
    });

    test(name("a whole body cut short is a ConnectionReset"), async () => {
      const t = subject.make([]);
      const srv = rawServer(async (conn) => {
        await readRequest(conn);
        await conn.write(enc.encode(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"cho',
        ));
        await new Promise((r) => setTimeout(r, 20));
        conn.close();
      });
      try {
        const r = await t.send(opts(srv.url, { streaming: false }));
        assert.equal(r.error?.type, "ConnectionReset");
        assert.equal(r.httpStatus, 200);
      } finally {
        t.close();
        await srv.close();
      }
    });

    test(
      name(
        "one request on the wire: a kept-alive connection reset after the request was read fails it, never resends it",
      ),
      async () => {
        let requests = 0;
        const json = JSON.stringify({ choices: [{ message: { content: "x" } }] });
        const srv = rawServer(async (conn) => {
          // The first request is answered and the connection kept; the second is read, then the
          // connection closed without a byte.
          if (!await readRequest(conn)) return;
          requests++;
          await conn.write(enc.encode(
            `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${json.length}\r\n\r\n${json}`,
          ));
          if (await readRequest(conn)) requests++;
          conn.close();
        });
        const t = subject.make([]);
        try {
          const first = await t.send(opts(srv.url, { streaming: false }));
          assert.equal(first.error, null);
          const second = await t.send(opts(srv.url, { streaming: false }));
          assert.equal(second.error?.type, "ConnectionReset", JSON.stringify(second.error));
          // Nothing that differs from one connection to the next is in the message.
          assert.doesNotMatch(second.error!.message, /127\.0\.0\.1|:\d{4,5}\b/);
          await new Promise((r) => setTimeout(r, 50));
          assert.equal(requests, 2);
        } finally {
          t.close();
          await srv.close();
        }
      },
    );

    test(name("an idle kept-alive connection the server closed is not written on"), async () => {
      let requests = 0;
      const json = JSON.stringify({ choices: [{ message: { content: "x" } }] });
      const srv = rawServer(async (conn) => {
        if (!await readRequest(conn)) return;
        requests++;
        // Keep-alive claimed, then closed once idle (as uvicorn does after 5 s).
        await conn.write(enc.encode(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${json.length}\r\n\r\n${json}`,
        ));
        await new Promise((r) => setTimeout(r, 10));
        conn.close();
      });
      const t = subject.make([]);
      try {
        for (let i = 0; i < 3; i++) {
          const r = await t.send(opts(srv.url, { streaming: false }));
          assert.equal(r.error, null, `request ${i}: ${JSON.stringify(r.error)}`);
          await new Promise((r) => setTimeout(r, 60));
        }
        assert.equal(requests, 3);
      } finally {
        t.close();
        await srv.close();
      }
    });

    test(name("a redirect is not followed: the 3xx is an HTTPError"), async () => {
      let requests = 0;
      const srv = serve((req) => {
        requests++;
        return new Response(null, {
          status: 307,
          headers: { location: new URL(req.url).pathname },
        });
      });
      const t = subject.make([]);
      try {
        const r = await t.send(opts(srv.url, { streaming: false }));
        assert.equal(r.error?.type, "HTTPError");
        assert.equal(r.error?.code, 307);
        assert.equal(requests, 1);
      } finally {
        t.close();
        await srv.close();
      }
    });

    test(name("identity is asked for, and an encoded answer is an InvalidResponse"), async () => {
      const heads: string[] = [];
      const srv = rawServer(async (conn) => {
        if (!await readRequest(conn, heads)) return;
        await conn.write(enc.encode(
          "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\n" +
            "content-length: 4\r\nconnection: close\r\n\r\nabcd",
        ));
        conn.close();
      });
      const t = subject.make([]);
      try {
        const r = await t.send(opts(srv.url, { streaming: false }));
        assert.equal(r.error?.type, "InvalidResponse", JSON.stringify(r.error));
        assert.match(r.error!.message, /Content-Encoding: gzip/);
        assert.match(heads[0], /accept-encoding: identity/i);
      } finally {
        t.close();
        await srv.close();
      }
    });

    test(name("a single 10 MB event, in 1 KB chunks, is read whole"), async () => {
      const text = "token ".repeat(10 * 1024 * 1024 / 6);
      const body = enc.encode(chunk(text) + DONE);
      const srv = rawServer(async (conn) => {
        if (!await readRequest(conn)) return;
        await writeAll(
          conn,
          enc.encode(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
          ),
        );
        for (let i = 0; i < body.length; i += 1024) {
          const part = body.subarray(i, i + 1024);
          await writeAll(conn, enc.encode(`${part.length.toString(16)}\r\n`));
          await writeAll(conn, part);
          await writeAll(conn, enc.encode("\r\n"));
        }
        await writeAll(conn, enc.encode("0\r\n\r\n"));
        await readRequest(conn);
        conn.close();
      });
      const t = subject.make([]);
      try {
        // The timeout only catches a hang: reading costs time linear in the event's size.
        const r = await t.send(opts(srv.url, { timeoutMs: 60_000 }));
        assert.equal(r.error, null, JSON.stringify(r.error));
        assert.equal(r.outputText.length, text.length);
        assert.ok(r.outputText === text);
      } finally {
        t.close();
        await srv.close();
      }
    });

    test(name("timeout mid-stream keeps what was read"), async () => {
      const t = subject.make([]);
      const srv = serve(() => sseResponse([chunk("slow"), chunk("never")], [0, 3000]));
      try {
        const r = await t.send(opts(srv.url, { timeoutMs: 150 }));
        assert.equal(r.error?.type, "Timeout");
        assert.equal(r.error?.code, 408);
        assert.equal(r.cancelled, false);
        assert.equal(r.outputText, "slow");
        assert.ok(r.endPerf - r.startPerf < 2000);
      } finally {
        t.close();
        await srv.close();
      }
    });

    test(name("timeout before the headers"), async () => {
      const t = subject.make([]);
      const srv = serve(async () => {
        await new Promise((r) => setTimeout(r, 400));
        return Response.json({});
      });
      try {
        const r = await t.send(opts(srv.url, { timeoutMs: 100 }));
        assert.equal(r.error?.type, "Timeout");
        assert.equal(r.httpStatus, null);
        assert.equal(r.ackPerf, null);
      } finally {
        t.close();
        await srv.close();
      }
    });

    test(
      name(
        "requests with deadlines in flight together: those answered end well, the others time out",
      ),
      async () => {
        const t = subject.make([]);
        const slow = serve(() => sseResponse([chunk("s"), chunk("never"), DONE], [0, 3000, 0]));
        const quick = serve(() => sseResponse([chunk("q"), DONE], [0, 0]));
        const realFetch = globalThis.fetch;
        try {
          const started = performance.now();
          // Interleaved, so requests leave the deadlines' list from its middle as well as its end.
          const urls = [slow.url, quick.url, slow.url, quick.url, quick.url, slow.url];
          const rs = await Promise.all(urls.map((u) => t.send(opts(u, { timeoutMs: 300 }))));
          // Before the slow server's second chunk (3 s): the deadlines, not the server, ended them.
          assert.ok(performance.now() - started < 2900);
          for (const [i, r] of rs.entries()) {
            if (urls[i] === quick.url) {
              assert.equal(r.error, null, `request ${i}`);
              assert.equal(r.outputText, "q");
            } else {
              assert.equal(r.error?.type, "Timeout", `request ${i}`);
              assert.equal(r.outputText, "s");
            }
          }
          // The deadlines left with their requests: a later one ends on its own terms.
          const later = await t.send(opts(quick.url, { timeoutMs: 300 }));
          assert.equal(later.error, null);
        } finally {
          globalThis.fetch = realFetch;
          t.close();
          await slow.close();
          await quick.close();
        }
      },
    );

    test(name("external abort cancels, keeping what was read"), async () => {
      const t = subject.make([]);
      const srv = serve(() => sseResponse([chunk("a"), chunk("b")], [0, 3000]));
      try {
        const ac = new AbortController();
        const timer = setTimeout(() => ac.abort(), 100);
        const r = await t.send(opts(srv.url, { signal: ac.signal }));
        clearTimeout(timer);
        assert.equal(r.cancelled, true);
        assert.deepEqual(r.error, { code: 499, type: "Cancelled", message: "request cancelled" });
        assert.equal(r.outputText, "a");
        const pre = await t.send(opts(srv.url, { signal: AbortSignal.abort() }));
        assert.equal(pre.cancelled, true);
      } finally {
        t.close();
        await srv.close();
      }
    });

    test(
      name(
        "one signal under several requests cancels every one in flight, also after others ended",
      ),
      async () => {
        const t = subject.make([]);
        const slow = serve(() => sseResponse([chunk("a"), chunk("b"), DONE], [0, 3000, 0]));
        const quick = serve(() => sseResponse([chunk("q"), DONE], [0, 0]));
        // The fetch subject swaps the global fetch per request; requests in flight together
        // restore it in any order.
        const realFetch = globalThis.fetch;
        try {
          const ac = new AbortController();
          // A request under the signal that ends before it aborts.
          const before = await t.send(opts(quick.url, { signal: ac.signal }));
          assert.equal(before.error, null);
          assert.equal(before.outputText, "q");
          const timer = setTimeout(() => ac.abort(), 150);
          const started = performance.now();
          const inFlight = await Promise.all(
            [0, 1, 2].map(() => t.send(opts(slow.url, { signal: ac.signal }))),
          );
          clearTimeout(timer);
          assert.ok(performance.now() - started < 2000);
          for (const r of inFlight) {
            assert.equal(r.cancelled, true);
            assert.deepEqual(r.error, {
              code: 499,
              type: "Cancelled",
              message: "request cancelled",
            });
            assert.equal(r.outputText, "a");
          }
          const after = await t.send(opts(quick.url, { signal: ac.signal }));
          assert.equal(after.cancelled, true);
        } finally {
          globalThis.fetch = realFetch;
          t.close();
          await slow.close();
          await quick.close();
        }
      },
    );

    test(name("a refused connection is a ConnectionError"), async () => {
      const t = subject.make([]);
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = listener.addr.port;
      listener.close();
      try {
        const r = await t.send(opts(`http://127.0.0.1:${port}/v1/chat/completions`));
        assert.equal(r.error?.type, "ConnectionError");
        assert.equal(r.error?.code, 0);
        assert.equal(r.httpStatus, null);
      } finally {
        t.close();
      }
    });

    test(name("TLS with a self-signed certificate"), async () => {
      const pair = await selfSigned();
      const t = subject.make([pair.ca]);
      const srv = serve(() => sseResponse([chunk("secure"), DONE], [0, 10]), {
        cert: pair.cert,
        key: pair.key,
      });
      try {
        for (let i = 0; i < 3; i++) {
          const r = await t.send(opts(srv.url));
          assert.equal(r.error, null);
          assert.equal(r.outputText, "secure");
        }
        assert.equal(srv.connections(), 1);
        // Without the certificate trusted, the connection is refused.
        const untrusted = subject.make([]);
        try {
          const r = await untrusted.send(opts(srv.url));
          assert.equal(r.error?.type, "ConnectionError");
        } finally {
          untrusted.close();
        }
      } finally {
        t.close();
        await srv.close();
      }
    });
  }
}

for (const subject of subjects) {
  Deno.test(`transport contract (${subject.name}): the fast paths and the plain ones give the same records`, async () => {
    // Chunks in the shape servers send (an id and a time that change between answers), many of
    // them, with usage: the shape every fast path reads (in place, by the scan, known events).
    const answer = (n: number) => {
      const c = (delta: object, extra: object = {}) =>
        `data: ${
          JSON.stringify({
            id: `chatcmpl-${1000 + n}`,
            object: "chat.completion.chunk",
            created: 1700000000 + n,
            model: "m",
            choices: [{ index: 0, delta, finish_reason: null }],
            ...extra,
          })
        }\n\n`;
      const words = Array.from({ length: 200 }, (_, i) => i % 17 === 0 ? " é" : ` w${i}`);
      return [
        c({ role: "assistant", content: "" }),
        words.slice(0, 100).map((w) => c({ content: w })).join(""),
        words.slice(100).map((w) => c({ content: w })).join("") +
        c({ reasoning_content: "hm" }) +
        c({}, {
          choices: [],
          usage: { prompt_tokens: 3, completion_tokens: 200, total_tokens: 203 },
        }) +
        DONE,
      ];
    };
    let n = 0;
    const srv = serve(() => sseResponse(answer(n++), [0, 5, 5]));
    /** What a record keeps of an answer, but for its times' values. */
    const facts = (r: SendResult) => ({
      error: r.error,
      httpStatus: r.httpStatus,
      outputText: r.outputText,
      reasoningText: r.reasoningText,
      usage: r.usage,
      responses: r.responsePerf.length,
      reasoning: r.responseReasoning,
    });
    const readAll = async (plain: boolean) => {
      setPlainPaths(plain ? ["all"] : []);
      const t = subject.make([]);
      try {
        const got = [];
        for (let i = 0; i < 3; i++) got.push(facts(await t.send(opts(srv.url))));
        return got;
      } finally {
        t.close();
        setPlainPaths([]);
      }
    };
    try {
      const fastRecords = await readAll(false);
      const plainRecords = await readAll(true);
      assert.deepEqual(plainRecords, fastRecords);
      assert.equal(fastRecords[2].responses, 201);
      assert.equal(fastRecords[2].error, null);
    } finally {
      await srv.close();
    }
  });
}
