import assert from "node:assert/strict";
import { LastMessage, requestMessage } from "../../src/transport/request_message.ts";
import type { Target } from "../../src/transport/http1_target.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function target(path = "/v1/chat/completions"): Target {
  return {
    url: new URL(`http://127.0.0.1:8000${path}`),
    origin: { key: "http://127.0.0.1:8000", tls: false, hostname: "127.0.0.1" } as Target["origin"],
    line: encoder.encode(`POST ${path} HTTP/1.1\r\n`),
    hostLine: encoder.encode("host: 127.0.0.1:8000\r\n"),
    authLine: null,
  };
}

/**
 * Sends `steps` through one kept message as an exchange does (the first message's memory kept
 * and passed again) and checks each against the same message written whole.
 */
function sendAll(
  steps: { t: Target; headers: Record<string, string>; body: string | Uint8Array }[],
) {
  const last = new LastMessage();
  let spare: Uint8Array | null = null;
  const written: string[] = [];
  for (const { t, headers, body } of steps) {
    const m = requestMessage(t, headers, body, spare, last);
    if (m.buffer !== spare?.buffer && m.length <= 16 * 1024) spare = m;
    const whole = requestMessage(t, { ...headers }, body);
    assert.equal(decoder.decode(m), decoder.decode(whole));
    written.push(decoder.decode(m));
  }
  return written;
}

Deno.test("requestMessage: a kept message rewritten equals the message written whole", () => {
  const t = target();
  const a = encoder.encode('{"n":1,"text":"aaaa"}');
  const b = encoder.encode('{"n":2,"text":"bbbb"}'); // same length
  const c = encoder.encode('{"n":3,"text":"cc"}'); // shorter, same digits
  const d = encoder.encode(`{"text":"${"x".repeat(120)}"}`); // more digits
  const h = (id: string, conv = "conv-1"): Record<string, string> => ({
    "Content-Type": "application/json",
    "X-Request-ID": id,
    "X-Correlation-ID": conv,
  });
  const out = sendAll([
    { t, headers: h("11111111"), body: a },
    { t, headers: h("22222222"), body: a },
    { t, headers: h("33333333", "conv-2"), body: b },
    { t, headers: h("44444444"), body: c },
    { t, headers: h("55555555"), body: a },
    { t, headers: h("66666666"), body: d },
    { t, headers: h("7777777"), body: d }, // a value of another length
    { t, headers: h("88888888"), body: '{"s":"string body"}' },
    { t, headers: { "X-Correlation-ID": "conv-1", "X-Request-ID": "99999999" }, body: a },
    { t: target("/v1/completions"), headers: h("aaaaaaaa"), body: a },
  ]);
  // Each message carries its own id and body, not a leftover of the one before.
  assert.equal(out[1].includes("X-Request-ID: 22222222\r\n"), true);
  assert.equal(out[2].endsWith('{"n":2,"text":"bbbb"}'), true);
  assert.equal(out[3].includes("content-length: 19\r\n\r\n{"), true);
});

Deno.test("requestMessage: headers the transport writes itself stay out, whatever their value", () => {
  const t = target();
  const body = encoder.encode("{}");
  const out = sendAll([
    { t, headers: { "Content-Length": "999", "X-Request-ID": "1" }, body },
    { t, headers: { "Content-Length": "123", "X-Request-ID": "2" }, body },
  ]);
  assert.equal(out[1].includes("Content-Length"), false);
  assert.equal(out[1].includes("X-Request-ID: 2\r\n"), true);
});

Deno.test("requestMessage: an invalid value is refused when rewritten too, and the next is whole", () => {
  const t = target();
  const body = encoder.encode("{}");
  const last = new LastMessage();
  const first = requestMessage(t, { "X-Request-ID": "abcd" }, body);
  const spare = first;
  requestMessage(t, { "X-Request-ID": "abcd" }, body, spare, last);
  assert.throws(
    () => requestMessage(t, { "X-Request-ID": "ab\r\n" }, body, spare, last),
    TypeError,
  );
  assert.throws(
    () => requestMessage(t, { "X-Request-ID": "ab\u0100d" }, body, spare, last),
    TypeError,
  );
  const m = requestMessage(t, { "X-Request-ID": "efgh" }, body, spare, last);
  assert.equal(
    decoder.decode(m),
    decoder.decode(requestMessage(t, { "X-Request-ID": "efgh" }, body)),
  );
});

Deno.test("requestMessage: a body apart is left out, its length given, and the kept message let go", () => {
  const t = target();
  const last = new LastMessage();
  const spare = new Uint8Array(1024);
  requestMessage(t, { "X-Request-ID": "abcd" }, '{"n":1}', spare, last);
  assert.notEqual(last.bytes, null);
  const body = encoder.encode('{"image":"' + "A".repeat(500) + '"}');
  const m = requestMessage(t, { "X-Request-ID": "efgh" }, body, spare, last, true);
  const whole = decoder.decode(requestMessage(t, { "X-Request-ID": "efgh" }, body));
  assert.equal(decoder.decode(m) + decoder.decode(body), whole);
  assert.equal(last.bytes, null);
  // The next message is written whole again, not over the head alone.
  const next = requestMessage(t, { "X-Request-ID": "ijkl" }, '{"n":2}', spare, last);
  assert.equal(
    decoder.decode(next),
    decoder.decode(requestMessage(t, { "X-Request-ID": "ijkl" }, '{"n":2}')),
  );
});
