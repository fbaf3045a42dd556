/** What only the HTTP/1.1 client does: framing edge cases and connection handling. */
import assert from "node:assert/strict";
import { createHttp1Transport } from "../../src/answer/client.ts";
import { Deadlines, type Timed } from "../../src/transport/deadlines.ts";
import type { SendOptions } from "../../src/answer/result.ts";
import { chatEndpoint } from "../../src/endpoints/chat.ts";

import { rawServer } from "./raw_server.ts";
import { BODY_APART } from "../../src/transport/http1.ts";

const enc = new TextEncoder();

function chunk(content: string): string {
  return `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
}

function opts(url: string, extra: Partial<SendOptions> = {}): SendOptions {
  return {
    url,
    headers: { "content-type": "application/json" },
    body: '{"stream":true}',
    streaming: true,
    endpoint: chatEndpoint,
    timeoutMs: 5000,
    ...extra,
  };
}

const SSE_HEAD =
  "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";

function chunked(text: string): string {
  return enc.encode(text).length.toString(16) + "\r\n" + text + "\r\n";
}

/** A chunked SSE body with one token, "ok", and the end marker. */
const OK_BODY = chunked(chunk("ok") + "data: [DONE]\n\n") + "0\r\n\r\n";

/** A raw server answering every request with `OK_BODY`; `seen` holds the requests, in order. */
function recordingServer() {
  const seen: string[] = [];
  const srv = rawServer(async (conn, request) => {
    seen.push(request);
    await conn.write(enc.encode(SSE_HEAD + OK_BODY));
    return true;
  });
  return { srv, seen };
}

Deno.test("http1: request line, Host, Content-Length and the given headers are written", async () => {
  const { srv, seen: requests } = recordingServer();
  const t = createHttp1Transport();
  try {
    const r = await t.send(opts(srv.url, { headers: { "X-Api": "k", "content-length": "999" } }));
    assert.equal(r.error, null);
    assert.equal(requests.length, 1);
    const seen = requests[0];
    const port = new URL(srv.url).port;
    assert.match(seen, /^POST \/v1\/chat\/completions\?x=1 HTTP\/1\.1\r\n/);
    assert.match(seen, new RegExp(`\r\nhost: 127\\.0\\.0\\.1:${port}\r\n`));
    assert.match(seen, /\r\nX-Api: k\r\n/);
    assert.match(seen, /\r\ncontent-length: 15\r\n/);
    // The caller's own length is not written (the port in Host may hold "999": not that).
    assert.doesNotMatch(seen, /\r\ncontent-length: 999\r\n/i);
    assert.ok(seen.endsWith('\r\n\r\n{"stream":true}'));
  } finally {
    t.close();
    await srv.close();
  }
});

Deno.test("http1: events that come with the head take its time; later reads their own", async () => {
  const srv = rawServer(async (conn) => {
    // The head and the first event in one write; the rest 30 ms later.
    await conn.write(enc.encode(SSE_HEAD + chunked(chunk("a"))));
    await new Promise((r) => setTimeout(r, 30));
    await conn.write(enc.encode(chunked(chunk("b") + "data: [DONE]\n\n") + "0\r\n\r\n"));
    return true;
  });
  const t = createHttp1Transport();
  try {
    const r = await t.send(opts(srv.url));
    assert.equal(r.error, null);
    assert.equal(r.outputText, "ab");
    assert.equal(r.responsePerf.length, 2);
    assert.equal(r.responsePerf[0], r.ackPerf);
    assert.ok(r.responsePerf[1] - r.ackPerf! >= 25, `second at ${r.responsePerf[1] - r.ackPerf!}`);
    assert.ok(r.endPerf >= r.responsePerf[1]);
  } finally {
    t.close();
    await srv.close();
  }
});

Deno.test("http1: requests of the same, longer and shorter lengths are each sent whole", async () => {
  const { srv, seen } = recordingServer();
  // One at a time on one transport: each request's message is written where the last one was.
  const t = createHttp1Transport();
  const ids = ["aaa", "bbb", "cccccc", "dd", "ee"];
  const bodies = ['{"n":1}', '{"n":2}', '{"n":3}', '{"n":44444}', '{"n":5}'];
  try {
    for (let i = 0; i < ids.length; i++) {
      const r = await t.send(
        opts(srv.url, { headers: { "X-Request-ID": ids[i] }, body: bodies[i] }),
      );
      assert.equal(r.error, null);
    }
    assert.equal(seen.length, ids.length);
    for (let i = 0; i < ids.length; i++) {
      assert.match(seen[i], new RegExp(`\r\nX-Request-ID: ${ids[i]}\r\n`));
      assert.match(seen[i], new RegExp(`\r\ncontent-length: ${bodies[i].length}\r\n`));
      assert.ok(seen[i].endsWith(`\r\n\r\n${bodies[i]}`), seen[i]);
    }
  } finally {
    t.close();
    await srv.close();
  }
});

Deno.test("http1: a large body of bytes, written after its head from shared memory, arrives byte for byte", async () => {
  const { srv, seen } = recordingServer();
  const t = createHttp1Transport();
  // Above BODY_APART, of an odd length, each byte telling its place; a short body in between.
  const shared = new Uint8Array(new SharedArrayBuffer(2 * BODY_APART + 7777));
  for (let i = 0; i < shared.length; i++) shared[i] = 0x21 + (i * 7 + (i >> 9)) % 90;
  const big = shared.subarray(3, shared.length - 1);
  const bodies: (string | Uint8Array)[] = [big, '{"n":1}', shared, '{"n":22}'];
  try {
    for (let i = 0; i < bodies.length; i++) {
      const r = await t.send(
        opts(srv.url, { headers: { "X-Request-ID": `id${i}` }, body: bodies[i] }),
      );
      assert.equal(r.error, null);
    }
    assert.equal(seen.length, bodies.length);
    for (let i = 0; i < bodies.length; i++) {
      const b = bodies[i];
      const text = typeof b === "string" ? b : new TextDecoder().decode(b);
      assert.match(seen[i], new RegExp(`\r\nX-Request-ID: id${i}\r\n`));
      assert.match(seen[i], new RegExp(`\r\ncontent-length: ${text.length}\r\n`));
      assert.equal(seen[i].length - seen[i].indexOf("\r\n\r\n") - 4, text.length);
      assert.ok(seen[i].endsWith(`\r\n\r\n${text}`));
    }
  } finally {
    t.close();
    await srv.close();
  }
});
Deno.test("http1: header values are byte strings; the URL's credentials become Basic authentication", async () => {
  const { srv, seen } = recordingServer();
  const t = createHttp1Transport();
  try {
    const url = new URL(srv.url);
    url.username = "user";
    url.password = "pa ss";
    // "é" is U+00E9: one byte on the wire, as fetch sends it (the server decodes it as UTF-8,
    // where a lone 0xE9 is not a character: U+FFFD). Sent as UTF-8 it would read back "é".
    let r = await t.send(opts(url.href, { headers: { "X-Name": "café", "X-Other": "2" } }));
    assert.equal(r.error, null);
    assert.match(seen[0], /\r\nX-Name: caf\uFFFD\r\nX-Other: 2\r\n/);
    assert.match(seen[0], new RegExp(`\r\nauthorization: Basic ${btoa("user:pa ss")}\r\n`));
    assert.ok(seen[0].endsWith('\r\n\r\n{"stream":true}'));
    // The caller's own Host and Authorization replace the transport's.
    r = await t.send(
      opts(url.href, { headers: { Host: "example.test", Authorization: "Bearer k" } }),
    );
    assert.equal(r.error, null);
    assert.match(seen[1], /\r\nHost: example\.test\r\nAuthorization: Bearer k\r\n/);
    assert.doesNotMatch(seen[1], /\r\nhost:|Basic/);
    // A character past U+00FF has no byte: refused, as fetch refuses it.
    r = await t.send(opts(url.href, { headers: { "X-Name": "日本" } }));
    assert.equal(r.error?.type, "ConnectionError");
    assert.match(r.error!.message, /X-Name.*invalid name or value/);
    assert.equal(seen.length, 2);
    // Each value is checked as it comes, whatever was sent under the name before.
    r = await t.send(opts(url.href, { headers: { "X-Name": "café" } }));
    assert.equal(r.error, null);
    r = await t.send(opts(url.href, { headers: { "X-Name": "a\r\nb" } }));
    assert.match(r.error!.message, /X-Name.*invalid name or value/);
    assert.equal(seen.length, 3);
  } finally {
    t.close();
    await srv.close();
  }
});

Deno.test(`http1: chunk framing split byte by byte across reads is decoded`, async () => {
  const body = chunked(chunk("a") + chunk("é")) + chunked(chunk("c")) +
    chunked("data: [DONE]\n\n") + "0\r\n\r\n";
  const srv = rawServer(async (conn) => {
    const bytes = enc.encode(SSE_HEAD + body);
    for (let i = 0; i < bytes.length; i += 3) {
      await conn.write(bytes.subarray(i, i + 3));
      await new Promise((r) => setTimeout(r, 0));
    }
    return true;
  });
  const t = createHttp1Transport({ readBufferBytes: 16 });
  try {
    const r = await t.send(opts(srv.url));
    assert.equal(r.error, null);
    assert.equal(r.outputText, "aéc");
    // The connection ended cleanly and is reused.
    const again = await t.send(opts(srv.url));
    assert.equal(again.error, null);
    assert.equal(srv.accepted(), 1);
  } finally {
    t.close();
    await srv.close();
  }
});

Deno.test(`http1: Connection: close and bodies read until close are not reused`, async () => {
  const srv = rawServer(async (conn, _req, n) => {
    const json = JSON.stringify({ choices: [{ message: { content: `n${n}` } }] });
    await conn.write(enc.encode(
      n % 2 === 0
        ? `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${json.length}\r\n\r\n${json}`
        : `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n${json}`,
    ));
    return false;
  });
  const t = createHttp1Transport();
  try {
    for (let i = 0; i < 4; i++) {
      const r = await t.send(opts(srv.url, { streaming: false }));
      assert.equal(r.error, null);
      assert.equal(r.outputText, `n${i}`);
    }
    assert.equal(srv.accepted(), 4);
  } finally {
    t.close();
    await srv.close();
  }
});

Deno.test("http1: each answer is read by its own head, also when heads repeat and then change", async () => {
  const json = (n: number) => JSON.stringify({ choices: [{ message: { content: `n${n}` } }] });
  // Per request: the same SSE head twice, a JSON body by length, a 503, then SSE again.
  const answers = [
    () => SSE_HEAD + chunked(chunk("a0") + "data: [DONE]\n\n") + "0\r\n\r\n",
    () => SSE_HEAD + chunked(chunk("a1") + "data: [DONE]\n\n") + "0\r\n\r\n",
    () =>
      `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${
        json(2).length
      }\r\n\r\n${json(2)}`,
    () => `HTTP/1.1 503 Busy\r\ncontent-type: text/plain\r\ncontent-length: 4\r\n\r\nbusy`,
    () => SSE_HEAD + chunked(chunk("a4") + "data: [DONE]\n\n") + "0\r\n\r\n",
    // The last head again, cut in two reads.
    () => [
      SSE_HEAD.slice(0, 30),
      SSE_HEAD.slice(30) + chunked(chunk("a5") + "data: [DONE]\n\n") + "0\r\n\r\n",
    ],
    // The last head's lines and one more: the same bytes up to its blank line, then not.
    () =>
      SSE_HEAD.slice(0, -2) + "x-extra: 1\r\n\r\n" + chunked(chunk("a6") + "data: [DONE]\n\n") +
      "0\r\n\r\n",
    // An interim answer, then the first SSE head again.
    () =>
      "HTTP/1.1 100 Continue\r\n\r\n" + SSE_HEAD + chunked(chunk("a7") + "data: [DONE]\n\n") +
      "0\r\n\r\n",
  ];
  const srv = rawServer(async (conn, _req, n) => {
    const pieces = answers[n]();
    for (const piece of typeof pieces === "string" ? [pieces] : pieces) {
      await conn.write(enc.encode(piece));
      await new Promise((r) => setTimeout(r, 20));
    }
    return true;
  });
  const t = createHttp1Transport();
  try {
    const got = [];
    for (let i = 0; i < answers.length; i++) {
      const r = await t.send(opts(srv.url));
      got.push([r.httpStatus, r.error?.type ?? null, r.outputText]);
    }
    assert.deepEqual(got, [
      [200, null, "a0"],
      [200, null, "a1"],
      [200, null, "n2"],
      [503, "HTTPError", ""],
      [200, null, "a4"],
      [200, null, "a5"],
      [200, null, "a6"],
      [200, null, "a7"],
    ]);
    // Every answer was framed right: one connection served them all.
    assert.equal(srv.accepted(), 1);
  } finally {
    t.close();
    await srv.close();
  }
});

Deno.test(`http1: a kept-alive connection the server closed is replaced transparently`, async () => {
  const srv = rawServer(async (conn) => {
    const json = JSON.stringify({ choices: [{ message: { content: "x" } }] });
    // Claims keep-alive, then closes after the answer (as an idle timeout would).
    await conn.write(enc.encode(
      `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${json.length}\r\n\r\n${json}`,
    ));
    return false;
  });
  const t = createHttp1Transport();
  try {
    for (let i = 0; i < 3; i++) {
      const r = await t.send(opts(srv.url, { streaming: false }));
      assert.equal(r.error, null, `request ${i}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(srv.accepted(), 3);
  } finally {
    t.close();
    await srv.close();
  }
});

Deno.test("http1: concurrent requests get one connection each", async () => {
  const srv = rawServer(async (conn) => {
    await new Promise((r) => setTimeout(r, 30));
    await conn.write(enc.encode(SSE_HEAD + chunked(chunk("p") + "data: [DONE]\n\n") + "0\r\n\r\n"));
    return true;
  });
  const t = createHttp1Transport();
  try {
    const rs = await Promise.all(Array.from({ length: 4 }, () => t.send(opts(srv.url))));
    for (const r of rs) assert.equal(r.outputText, "p");
    assert.equal(srv.accepted(), 4);
    // Afterwards the four idle connections serve the next four.
    await Promise.all(Array.from({ length: 4 }, () => t.send(opts(srv.url))));
    assert.equal(srv.accepted(), 4);
  } finally {
    t.close();
    await srv.close();
  }
});

Deno.test("http1: a malformed answer is an InvalidResponse record", async (t) => {
  const answers: Record<string, string> = {
    "status line": "SPDY/9 200 OK\r\n\r\n",
    "chunk size":
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
    "content-length": "HTTP/1.1 200 OK\r\ncontent-length: ten\r\n\r\n",
  };
  let next = "";
  const srv = rawServer(async (conn) => {
    await conn.write(enc.encode(next));
    return false;
  });
  const tr = createHttp1Transport();
  try {
    for (const [k, answer] of Object.entries(answers)) {
      await t.step(k, async () => {
        next = answer;
        const r = await tr.send(opts(srv.url));
        assert.equal(r.error?.type, "InvalidResponse", JSON.stringify(r.error));
        assert.equal(r.error?.code, 502);
      });
    }
  } finally {
    tr.close();
    await srv.close();
  }
});

Deno.test("http1: interim 1xx answers are skipped, also split across reads", async () => {
  const srv = rawServer(async (conn) => {
    const parts = [
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early",
      " Hints\r\nlink: </a>\r\n\r\n",
      SSE_HEAD.slice(0, 20),
      SSE_HEAD.slice(20) + OK_BODY,
    ];
    for (const part of parts) {
      await conn.write(enc.encode(part));
      await new Promise((r) => setTimeout(r, 5));
    }
    return true;
  });
  const t = createHttp1Transport();
  try {
    for (let i = 0; i < 2; i++) {
      const r = await t.send(opts(srv.url));
      assert.equal(r.error, null, JSON.stringify(r.error));
      assert.equal(r.httpStatus, 200);
      assert.equal(r.outputText, "ok");
    }
  } finally {
    t.close();
    await srv.close();
  }
});

Deno.test("http1: a head too large, or cut off by the server, is an error record", async (t) => {
  const answers: Record<string, [string, string, RegExp]> = {
    "too large": [
      "HTTP/1.1 200 OK\r\n" + `x-big: ${"a".repeat(70_000)}\r\n`,
      "InvalidResponse",
      /larger than 65536 bytes/,
    ],
    "closed in the head": [
      "HTTP/1.1 200 OK\r\ncontent-",
      "ConnectionReset",
      /middle of the headers/,
    ],
    "closed without an answer": ["", "ConnectionReset", /without answering/],
  };
  let next = "";
  const srv = rawServer(async (conn) => {
    if (next !== "") await conn.write(enc.encode(next));
    return false;
  });
  const tr = createHttp1Transport();
  try {
    for (const [k, [answer, type, message]] of Object.entries(answers)) {
      await t.step(k, async () => {
        next = answer;
        const r = await tr.send(opts(srv.url));
        assert.equal(r.error?.type, type, JSON.stringify(r.error));
        assert.match(r.error!.message, message);
      });
    }
  } finally {
    tr.close();
    await srv.close();
  }
});

Deno.test("http1: an invalid header value is refused without sending", async () => {
  const t = createHttp1Transport();
  const r = await t.send(opts("http://127.0.0.1:1/x", { headers: { "x-bad": "a\r\nb: c" } }));
  assert.equal(r.error?.type, "ConnectionError");
  assert.match(r.error!.message, /x-bad/);
  t.close();
});

Deno.test("http1: an invalid header name is refused, also after valid ones were sent", async () => {
  const t = createHttp1Transport();
  for (const name of ["x ok", "bad:name", "ünï", ""]) {
    const r = await t.send(
      opts("http://127.0.0.1:1/x", { headers: { "x-fine": "1", [name]: "v" } }),
    );
    assert.equal(r.error?.type, "ConnectionError", JSON.stringify(name));
    assert.match(r.error!.message, /invalid name or value/);
  }
  t.close();
});

Deno.test("http1: requests in flight together time out each by its own deadline", async () => {
  // Request n's answer comes after delays[n] ms: the slow ones come 10x past their deadlines, so
  // that a deadline kept late by a busy machine still shows as a timeout, never as an answer.
  const delays = [1500, 30, 400];
  const srv = rawServer(async (conn, request) => {
    const n = Number(/x-n: (\d+)/.exec(request)![1]);
    await new Promise((r) => setTimeout(r, delays[n]));
    try {
      await conn.write(
        enc.encode(SSE_HEAD + OK_BODY),
      );
    } catch {
      return false; // timed out: the client closed the connection
    }
    return true;
  });
  const t = createHttp1Transport({ connections: 3 });
  try {
    const send = (n: number, timeoutMs: number) => {
      const start = performance.now();
      return t.send(opts(srv.url, { headers: { "x-n": String(n) }, timeoutMs })).then((r) => ({
        r,
        ms: performance.now() - start,
      }));
    };
    const [slow, fast, patient] = await Promise.all([send(0, 150), send(1, 2000), send(2, 2000)]);
    assert.equal(slow.r.error?.type, "Timeout");
    assert.equal(slow.r.error?.message, "no complete answer within 150 ms");
    // Not before its deadline; a deadline missed by 10x would have let the answer in (above).
    assert.ok(slow.ms >= 150, `timed out after ${slow.ms} ms`);
    assert.equal(fast.r.error, null);
    assert.equal(fast.r.outputText, "ok");
    assert.equal(patient.r.error, null);
    assert.ok(patient.ms >= 400);
    // With nothing in flight, the next request starts its own deadline again.
    delays[3] = 1000;
    const again = await send(3, 100);
    assert.equal(again.r.error?.type, "Timeout");
    assert.ok(again.ms >= 100, `timed out after ${again.ms} ms`);
  } finally {
    t.close();
    await srv.close();
  }
});

/** Distinct arrival times: one per network read that completed events. */
function reads(r: { responsePerf: Float64Array }): number {
  return new Set(r.responsePerf).size;
}

Deno.test("http1: a burst is read into a lent large buffer, slow pieces into the connection's own", async () => {
  const burst = Array.from({ length: 200 }, (_, i) => chunk(`b${i} `)).join("");
  const slow = ["s1 ", "s2 ", "s3 "].map(chunk);
  const srv = rawServer(async (conn) => {
    await conn.write(enc.encode(SSE_HEAD + chunked(burst)));
    for (const s of slow) {
      await new Promise((r) => setTimeout(r, 15));
      await conn.write(enc.encode(chunked(s)));
    }
    await conn.write(enc.encode(chunked("data: [DONE]\n\n") + "0\r\n\r\n"));
    return true;
  });
  const want = Array.from({ length: 200 }, (_, i) => `b${i} `).join("") + "s1 s2 s3 ";
  // Own buffers of 64 bytes; a lent one holds the whole burst.
  const t = createHttp1Transport({ readBufferBytes: 64, lentBufferBytes: 1 << 20 });
  try {
    for (let i = 0; i < 3; i++) {
      const r = await t.send(opts(srv.url));
      assert.equal(r.error, null);
      assert.equal(r.outputText, want);
      assert.equal(r.responsePerf.length, 203);
      // 64-byte reads would take one or two per event; the lent buffer takes the burst at once.
      assert.ok(reads(r) <= 10, `${reads(r)} reads`);
    }
    assert.equal(srv.accepted(), 1);
  } finally {
    t.close();
    await srv.close();
  }
});

Deno.test("http1: more bursting streams than lent buffers, and lent buffers lost with their connections", async () => {
  const burst = (n: number) => Array.from({ length: 60 }, (_, i) => chunk(`${n}.${i} `)).join("");
  const srv = rawServer(async (conn, _req, n) => {
    await conn.write(enc.encode(SSE_HEAD + chunked(burst(n))));
    await new Promise((r) => setTimeout(r, 5));
    if (n % 5 === 4) return false; // Closed in the middle of the answer.
    await conn.write(enc.encode(chunked(chunk("end") + "data: [DONE]\n\n") + "0\r\n\r\n"));
    return true;
  });
  // Lent buffers of 1 MiB: the budget allows 16 at once, for 40 streams.
  const t = createHttp1Transport({ readBufferBytes: 64, lentBufferBytes: 1 << 20 });
  try {
    for (let round = 0; round < 3; round++) {
      const rs = await Promise.all(Array.from({ length: 40 }, () => t.send(opts(srv.url))));
      let cut = 0;
      for (const r of rs) {
        const n = /^(\d+)\./.exec(r.outputText)?.[1];
        assert.ok(n !== undefined, r.outputText.slice(0, 40));
        const want = Array.from({ length: 60 }, (_, i) => `${n}.${i} `).join("");
        if (r.error !== null) {
          cut++;
          assert.equal(r.outputText, want);
        } else assert.equal(r.outputText, want + "end");
      }
      assert.equal(cut, 8);
    }
  } finally {
    t.close();
    await srv.close();
  }
});

Deno.test("Deadlines: requests leaving from any place; only those still listed time up", async () => {
  const timedOut: string[] = [];
  const deadlines = new Deadlines<Timed & { name: string }>((c) => timedOut.push(c.name));
  const rs = ["a", "b", "c", "d", "e", "f"].map((name) => ({ name, deadline: 0, deadlineAt: -1 }));
  for (const r of rs) deadlines.add(r, 60);
  // Added again while listed (a new deadline): still listed once.
  deadlines.add(rs[1], 60);
  assert.equal(deadlines.size, 6);
  // The first, middle ones and the last leave; each removal moves the last one into its place.
  for (const i of [0, 2, 5, 3]) deadlines.delete(rs[i]);
  deadlines.delete(rs[2]);
  assert.equal(deadlines.size, 2);
  assert.deepEqual(rs.map((r) => r.deadlineAt === -1), [true, false, true, true, false, true]);
  const until = performance.now() + 2000;
  while (deadlines.size > 0 && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(timedOut.sort(), ["b", "e"]);
  // The timer stopped with the last one: the test's sanitizer fails on an interval left running.
  assert.equal(deadlines.size, 0);
});

Deno.test("http1: waiting counts requests until their answer's body begins, and none after they end", async () => {
  // Each request gets its head at once, its first event when `first` opens, the rest at `rest`.
  const gate = () => {
    let open!: () => void;
    const p = new Promise<void>((r) => open = r);
    return { p, open };
  };
  const first = gate();
  const rest = gate();
  let heads = 0;
  const srv = rawServer(async (conn) => {
    await conn.write(enc.encode(SSE_HEAD));
    heads++;
    await first.p;
    await conn.write(enc.encode(chunked(chunk("a"))));
    await rest.p;
    await conn.write(enc.encode(chunked(chunk("b") + "data: [DONE]\n\n") + "0\r\n\r\n"));
    return true;
  });
  const t = createHttp1Transport({ connections: 2 });
  const until = async (done: () => boolean) => {
    const t0 = performance.now();
    while (!done() && performance.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 5));
  };
  try {
    assert.equal(t.waiting?.().count, 0);
    const before = performance.now();
    const answers = [t.send(opts(srv.url))];
    const since = t.waiting!().since;
    answers.push(t.send(opts(srv.url)));
    assert.equal(t.waiting?.().count, 2);
    // Since the first started: the second started while it waited.
    assert.ok(since >= before && since <= performance.now());
    assert.equal(t.waiting?.().since, since);
    // Heads alone: still waiting.
    await until(() => heads === 2);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(t.waiting?.().count, 2);
    first.open();
    await until(() => t.waiting?.().count === 0);
    assert.equal(t.waiting?.().count, 0);
    rest.open();
    for (const r of await Promise.all(answers)) {
      assert.equal(r.error, null);
      assert.equal(r.outputText, "ab");
    }
    assert.equal(t.waiting?.().count, 0);
  } finally {
    t.close();
    await srv.close();
  }
  // A request that fails before any answer stops waiting too.
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = closed.addr.port;
  closed.close();
  const t2 = createHttp1Transport();
  try {
    const r = await t2.send(opts(`http://127.0.0.1:${port}/v1/chat/completions`));
    assert.notEqual(r.error, null);
    assert.equal(t2.waiting?.().count, 0);
  } finally {
    t2.close();
  }
});
