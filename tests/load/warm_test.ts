/**
 * The warm-up of the request loop reads its answers from a server of its own on loopback, or in
 * memory: every one read, nothing sent anywhere else.
 */
import assert from "node:assert/strict";
import { warmRequestPath } from "../../src/load/warm.ts";
import { startWarmServer } from "../../src/load/warm_server.ts";
import { chatEndpoint } from "../../src/endpoints/chat.ts";
import { knownEventsFor } from "../../src/answer/known_events.ts";

for (const memory of [false, true]) {
  for (const streaming of [true, false]) {
    Deno.test(`warm-up: ${streaming ? "streamed" : "whole"} answers are read ${memory ? "in memory" : "from its loopback server"}, without error`, async () => {
      const ok = await warmRequestPath({
        endpoint: chatEndpoint,
        streaming,
        headers: { "content-type": "application/json", "X-Request-ID": "w" },
        body: '{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}',
        exchanges: 5,
        memory,
      });
      assert.equal(ok, 5);
    });
  }
}

Deno.test("warm-up server: answers each request whole, body and all, then closes with its clients", async () => {
  const enc = new TextEncoder();
  const parts = ["HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n", "ok"].map((p) => enc.encode(p));
  const server = startWarmServer(parts)!;
  assert.ok(server !== null, "listening on 127.0.0.1 is allowed in the tests");
  const port = Number(new URL(server.origin).port);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  // A body that looks like the end of a head, split across writes, then a second request: a
  // server that did not wait for the whole body would take its bytes for a third request.
  await conn.write(enc.encode("POST / HTTP/1.1\r\ncontent-length: 5\r\n\r\nx\r"));
  await conn.write(enc.encode("\n\r\nGET / HTTP/1.1\r\n\r\n"));
  await conn.closeWrite();
  let text = "";
  const buf = new Uint8Array(256);
  for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) {
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  conn.close();
  assert.equal(text, "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok".repeat(2));
  await server.close();
  await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port }));
});

Deno.test("warm-up: the events it read are not kept to be recognized in the server's answers", async () => {
  const keys = chatEndpoint.fast!.volatileKeys!;
  const before = knownEventsFor(keys);
  await warmRequestPath({
    endpoint: chatEndpoint,
    streaming: true,
    headers: { "content-type": "application/json" },
    body: "{}",
    exchanges: 2,
  });
  // A fresh set for the real answers: the warm-up's was dropped.
  assert.notEqual(knownEventsFor(keys), before);
});
