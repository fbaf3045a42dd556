/** The warm-up of the request loop reads its answers in memory: every one read, nothing sent. */
import assert from "node:assert/strict";
import { warmRequestPath } from "../../src/load/warm.ts";
import { chatEndpoint } from "../../src/endpoints/chat.ts";
import { knownEventsFor } from "../../src/answer/known_events.ts";

for (const streaming of [true, false]) {
  Deno.test(`warm-up: ${streaming ? "streamed" : "whole"} answers are read in memory, without error`, async () => {
    // The URL's host does not resolve: a request that reached the network would fail.
    const ok = await warmRequestPath({
      endpoint: chatEndpoint,
      streaming,
      headers: { "content-type": "application/json", "X-Request-ID": "w" },
      body: '{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}',
      exchanges: 5,
    });
    assert.equal(ok, 5);
  });
}

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
