import assert from "node:assert/strict";
import { getEndpoint } from "../../src/endpoints/mod.ts";
import { replayBody } from "../../src/endpoints/replay_body.ts";

const chat = getEndpoint("chat");
const on = { streaming: true, useServerTokenCount: false };
const counted = { streaming: true, useServerTokenCount: true };

Deno.test("without streaming every body is sent byte for byte", () => {
  const body = '{ "model":"m",  "messages":[] }';
  for (const type of ["chat", "responses", "huggingface_generate", "raw"]) {
    assert.equal(
      replayBody(body, getEndpoint(type), { streaming: false, useServerTokenCount: true }),
      body,
    );
  }
});

Deno.test("streaming appends stream:true to key-streamed APIs, the rest untouched", () => {
  assert.equal(replayBody('{"a": 1.50 }', chat, on), '{"a": 1.50 ,"stream":true}');
  assert.equal(replayBody("{}", chat, on), '{"stream":true}');
  assert.equal(replayBody('{"stream":false}', chat, on), '{"stream":false}');
  for (const type of ["completions", "responses", "messages"]) {
    assert.equal(replayBody('{"x":1}', getEndpoint(type), on), '{"x":1,"stream":true}');
  }
  // TGI streams by path, raw bodies are the user's.
  assert.equal(
    replayBody('{"inputs":"x"}', getEndpoint("huggingface_generate"), on),
    '{"inputs":"x"}',
  );
  assert.equal(replayBody('{"x":1}', getEndpoint("raw"), counted), '{"x":1}');
  // Not a JSON object: nothing to append to.
  assert.equal(replayBody("[1]", chat, on), "[1]");
  assert.equal(replayBody("not json", chat, on), "not json");
});

Deno.test("server token counts add include_usage to chat streams lacking stream_options", () => {
  const out = replayBody('{"model":"m"}', chat, counted);
  assert.equal(out, '{"model":"m","stream":true,"stream_options":{"include_usage":true}}');
  assert.deepEqual(JSON.parse(out).stream_options, { include_usage: true });
  assert.equal(
    replayBody('{"stream":true}', chat, counted),
    '{"stream":true,"stream_options":{"include_usage":true}}',
  );
  // The body's own choice stands; a body that does not stream gets no stream_options.
  const own = '{"stream_options":{"include_usage":false}}';
  assert.equal(replayBody(own, chat, counted), own.slice(0, -1) + ',"stream":true}');
  assert.equal(replayBody('{"stream":false}', chat, counted), '{"stream":false}');
  // Other APIs have no stream_options.
  assert.equal(replayBody("{}", getEndpoint("completions"), counted), '{"stream":true}');
});

Deno.test("server token counts add include_usage to Responses streams, as AIPerf does", () => {
  const responses = getEndpoint("responses");
  assert.equal(
    replayBody('{"input":"x"}', responses, counted),
    '{"input":"x","stream":true,"stream_options":{"include_usage":true}}',
  );
  assert.equal(replayBody('{"input":"x"}', responses, on), '{"input":"x","stream":true}');
});
