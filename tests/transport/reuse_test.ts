/** The HTTP/1.1 client's connection reuse strategies, and the first-token call of a streamed answer. */
import assert from "node:assert/strict";
import { createHttp1Transport } from "../../src/answer/client.ts";
import type { SendOptions } from "../../src/answer/result.ts";
import { chatEndpoint } from "../../src/endpoints/chat.ts";
import { rawServer } from "./raw_server.ts";

const enc = new TextEncoder();

/** A keep-alive server answering each request with one streamed token; counts connections. */
function server() {
  const event =
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "ok" } }] })}\n\n` +
    "data: [DONE]\n\n";
  const reply = enc.encode(
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n" +
      `content-length: ${enc.encode(event).length}\r\n\r\n${event}`,
  );
  /** Per connection: the X-Correlation-ID of each request it carried. */
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
  return { url: srv.url, accepted: srv.accepted, carried, close: srv.close };
}

function opts(url: string, session: string, extra: Partial<SendOptions> = {}): SendOptions {
  return {
    url,
    headers: { "content-type": "application/json", "X-Correlation-ID": session },
    body: '{"stream":true}',
    streaming: true,
    endpoint: chatEndpoint,
    timeoutMs: 5000,
    ...extra,
  };
}

Deno.test("pooled reuses one connection; never opens one per request", async () => {
  for (const [reuse, expected] of [["pooled", 1], ["never", 4]] as const) {
    const s = server();
    const t = createHttp1Transport({ reuse });
    try {
      for (let i = 0; i < 4; i++) {
        const r = await t.send(opts(s.url, "c"));
        assert.equal(r.error, null);
        assert.equal(r.outputText, "ok");
      }
    } finally {
      t.close();
      await s.close();
    }
    assert.equal(s.accepted(), expected, reuse);
  }
});

Deno.test("sticky keeps each conversation on its own connection until it ends", async () => {
  const s = server();
  const t = createHttp1Transport({ reuse: "sticky", connections: 2 });
  const a = {};
  const b = {};
  try {
    for (const [session, id] of [[a, "A"], [b, "B"], [a, "A"], [b, "B"], [a, "A"]] as const) {
      const r = await t.send(opts(s.url, id, { session }));
      assert.equal(r.error, null);
    }
    assert.equal(s.accepted(), 2);
    // A conversation that ended gives its connection up: its key starts afresh.
    t.endSession!(a);
    assert.equal((await t.send(opts(s.url, "A2", { session: a }))).error, null);
    assert.equal(s.accepted(), 3);
  } finally {
    t.close();
    await s.close();
  }
  assert.deepEqual(s.carried, [["A", "A", "A"], ["B", "B"], ["A2"]]);
});

Deno.test("firstToken is called once, when the first content was read", async () => {
  const s = server();
  const t = createHttp1Transport();
  try {
    let calls = 0;
    const r = await t.send(opts(s.url, "c", { firstToken: () => calls++ }));
    assert.equal(r.error, null);
    assert.equal(calls, 1);
    assert.equal(r.responsePerf.length, 1);
  } finally {
    t.close();
    await s.close();
  }
});
