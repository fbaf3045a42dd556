/**
 * Connections opened ahead of a phase (`preconnect`): opened before any request, carrying none
 * until a request takes one, and taken under each reuse strategy's own rule.
 */
import assert from "node:assert/strict";
import { createHttp1Transport } from "../../src/answer/client.ts";
import type { SendOptions } from "../../src/answer/result.ts";
import { chatEndpoint } from "../../src/endpoints/chat.ts";
import { rawServer } from "./raw_server.ts";

const enc = new TextEncoder();

/** A keep-alive server answering one streamed token; per connection, the requests it carried. */
function server() {
  const event =
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "ok" } }] })}\n\n` +
    "data: [DONE]\n\n";
  const reply = enc.encode(
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n" +
      `content-length: ${enc.encode(event).length}\r\n\r\n${event}`,
  );
  const carried: string[][] = [];
  const byConn = new Map<Deno.Conn, string[]>();
  const srv = rawServer(async (conn, request) => {
    let mine = byConn.get(conn);
    if (mine === undefined) {
      byConn.set(conn, mine = []);
      carried.push(mine);
    }
    mine.push(/x-correlation-id: *([^\r]*)/i.exec(request)?.[1] ?? "");
    await conn.write(reply);
    return true;
  });
  return { ...srv, carried };
}

function opts(url: string, id: string, session?: object): SendOptions {
  return {
    url,
    session,
    headers: { "content-type": "application/json", "X-Correlation-ID": id },
    body: '{"stream":true}',
    streaming: true,
    endpoint: chatEndpoint,
    timeoutMs: 5000,
  };
}

/** Waits until the server accepted `n` connections (the kernel's handshake precedes accept). */
async function accepted(s: { accepted(): number }, n: number): Promise<void> {
  for (let i = 0; i < 500 && s.accepted() < n; i++) await new Promise((r) => setTimeout(r, 10));
}

Deno.test("pooled: the connections opened ahead carry the first wave, and none was sent a request", async () => {
  const s = server();
  const t = createHttp1Transport({ connections: 4 });
  try {
    assert.equal(await t.preconnect!(s.url, 4, 5000), 4);
    await accepted(s, 4);
    assert.equal(s.accepted(), 4);
    // Idle: no request on any of them.
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(s.carried.length, 0);
    const results = await Promise.all(
      ["a", "b", "c", "d"].map((id) => t.send(opts(s.url, id))),
    );
    for (const r of results) assert.equal(r.error, null);
    // The first wave connected to nothing: the four opened ahead took it.
    assert.equal(s.accepted(), 4);
    assert.deepEqual(s.carried.map((c) => c.length).sort(), [1, 1, 1, 1]);
  } finally {
    t.close();
    await s.close();
  }
});

Deno.test("never: a connection opened ahead carries one request, then requests connect", async () => {
  const s = server();
  const t = createHttp1Transport({ reuse: "never", connections: 2 });
  try {
    assert.equal(await t.preconnect!(s.url, 2, 5000), 2);
    await accepted(s, 2);
    for (const id of ["a", "b", "c"]) assert.equal((await t.send(opts(s.url, id))).error, null);
    assert.equal(s.accepted(), 3);
  } finally {
    t.close();
    await s.close();
  }
  // Each connection carried one request at most.
  assert.deepEqual(s.carried, [["a"], ["b"], ["c"]]);
});

Deno.test("sticky: a conversation takes a connection opened ahead and keeps it to itself", async () => {
  const s = server();
  const t = createHttp1Transport({ reuse: "sticky", connections: 2 });
  const a = {};
  const b = {};
  try {
    assert.equal(await t.preconnect!(s.url, 2, 5000), 2);
    await accepted(s, 2);
    for (const [session, id] of [[a, "A"], [b, "B"], [a, "A"], [b, "B"]] as const) {
      assert.equal((await t.send(opts(s.url, id, session))).error, null);
    }
    assert.equal(s.accepted(), 2);
  } finally {
    t.close();
    await s.close();
  }
  assert.deepEqual(s.carried.map((c) => c.join("")).sort(), ["AA", "BB"]);
});

Deno.test("a server that refuses connections: preconnect opens none and returns", async () => {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = l.addr.port;
  l.close();
  const t = createHttp1Transport({ connections: 8 });
  try {
    assert.equal(await t.preconnect!(`http://127.0.0.1:${port}/v1/chat/completions`, 8, 5000), 0);
  } finally {
    t.close();
  }
});

Deno.test("a server closing a connection opened ahead before any request: the request connects anew", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${listener.addr.port}/v1/chat/completions`;
  let accepted = 0;
  const answered: string[] = [];
  const json = JSON.stringify({ choices: [{ index: 0, message: { content: "ok" } }] });
  const reply = enc.encode(
    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n" +
      `content-length: ${json.length}\r\n\r\n${json}`,
  );
  const loop = (async () => {
    for await (const conn of listener) {
      // The first connection is closed idle, as a server with a short keep-alive does.
      if (accepted++ === 0) {
        conn.close();
        continue;
      }
      const buf = new Uint8Array(65536);
      const n = await conn.read(buf);
      if (n !== null) answered.push(new TextDecoder().decode(buf.subarray(0, n)).split(" ")[0]);
      await conn.write(reply);
      conn.close();
    }
  })();
  const t = createHttp1Transport({ connections: 1 });
  try {
    assert.equal(await t.preconnect!(url, 1, 5000), 1);
    // The idle read sees the close.
    await new Promise((r) => setTimeout(r, 100));
    const r = await t.send({ ...opts(url, "a"), streaming: false });
    assert.equal(r.error, null);
    assert.equal(accepted, 2);
    assert.deepEqual(answered, ["POST"]);
  } finally {
    t.close();
    listener.close();
    await loop.catch(() => {});
  }
});
