import assert from "node:assert/strict";
import { formatTurn, getEndpoint } from "../../src/endpoints/mod.ts";
import type { FormatOptions, TurnInput } from "../../src/endpoints/mod.ts";

const base: FormatOptions = {
  model: "m",
  streaming: false,
  extraInputs: {},
  useLegacyMaxTokens: false,
  useServerTokenCount: false,
};

function format(type: string, turn: TurnInput, opts: Partial<FormatOptions> = {}) {
  const endpoint = getEndpoint(type);
  assert.ok(endpoint.formatPayload, `${type} has no formatter`);
  return endpoint.formatPayload(turn, { ...base, ...opts });
}

const IMAGE = "data:image/png;base64,iVBORw0K";

Deno.test("chat: messages with system and history, max_completion_tokens, stream", () => {
  const body = format("chat", {
    texts: ["hi"],
    system: "be brief",
    history: [{ role: "user", content: "a" }, { role: "assistant", content: "b" }],
    maxTokens: 7,
  });
  assert.deepEqual(body, {
    model: "m",
    messages: [
      { role: "system", content: "be brief" },
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
      { role: "user", content: "hi" },
    ],
    stream: false,
    max_completion_tokens: 7,
  });
  const legacy = format("chat", { texts: ["hi"], maxTokens: 7 }, { useLegacyMaxTokens: true });
  assert.equal(legacy.max_tokens, 7);
  assert.equal("max_completion_tokens" in legacy, false);
  assert.equal("max_tokens" in format("chat", { texts: ["hi"] }), false);
});

Deno.test("chat: multimodal parts, include_usage only when streaming with server counts", () => {
  const body = format(
    "chat",
    { texts: ["look", "listen"], images: [IMAGE], audios: ["mp3,QUJD"] },
    {
      streaming: true,
      useServerTokenCount: true,
    },
  );
  assert.deepEqual(body.messages, [{
    role: "user",
    content: [
      { type: "text", text: "look" },
      { type: "text", text: "listen" },
      { type: "image_url", image_url: { url: IMAGE } },
      { type: "input_audio", input_audio: { format: "mp3", data: "QUJD" } },
    ],
  }]);
  assert.equal(body.stream, true);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.equal("stream_options" in format("chat", { texts: ["x"] }, { streaming: true }), false);
  assert.equal(
    "stream_options" in format("chat", { texts: ["x"] }, { useServerTokenCount: true }),
    false,
  );
  // Bare base64 audio is taken as wav.
  const wav = format("chat", { texts: ["x"], audios: ["QUJD"] }).messages as {
    content: { input_audio?: unknown }[];
  }[];
  assert.deepEqual(wav[0].content[1].input_audio, { format: "wav", data: "QUJD" });
});

Deno.test("extra inputs are merged last and win", () => {
  const extraInputs = { ignore_eos: true, max_completion_tokens: 99, stream: true };
  for (const type of ["chat", "completions", "responses", "messages"]) {
    const body = format(type, { texts: ["x"], maxTokens: 5 }, { extraInputs });
    assert.equal(body.ignore_eos, true, type);
    assert.equal(body.stream, true, type);
  }
  assert.equal(
    format("chat", { texts: ["x"], maxTokens: 5 }, { extraInputs })
      .max_completion_tokens,
    99,
  );
  assert.deepEqual(
    format("hf_tei_rankings", { texts: ["q", "p"] }, { extraInputs: { truncate: true } }),
    { query: "q", texts: ["p"], truncate: true },
  );
});

Deno.test("completions: prompt string or batch, max_tokens", () => {
  assert.deepEqual(format("completions", { texts: ["once"], maxTokens: 3 }, { streaming: true }), {
    model: "m",
    prompt: "once",
    stream: true,
    max_tokens: 3,
  });
  assert.deepEqual(format("completions", { texts: ["a", "b"] }).prompt, ["a", "b"]);
  assert.equal(format("completions", { texts: ["b"], system: "s" }).prompt, "s\n\nb");
  // The legacy flag changes nothing: completions always say max_tokens.
  assert.equal(
    format("completions", { texts: ["a"], maxTokens: 2 }, { useLegacyMaxTokens: true }).max_tokens,
    2,
  );
  assert.throws(() => format("completions", { texts: ["a"], images: [IMAGE] }), /images/);
});

Deno.test("responses: input items, instructions, input_image/input_audio, max_output_tokens", () => {
  const body = format("responses", {
    texts: ["what is this"],
    images: ["https://x/cat.png"],
    audios: ["wav,QUJD"],
    system: "be brief",
    history: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }],
    maxTokens: 9,
  }, { useLegacyMaxTokens: true, streaming: true, useServerTokenCount: true });
  assert.deepEqual(body, {
    model: "m",
    input: [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      {
        role: "user",
        content: [
          { type: "input_text", text: "what is this" },
          { type: "input_image", image_url: "https://x/cat.png" },
          { type: "input_audio", input_audio: { format: "wav", data: "QUJD" } },
        ],
      },
    ],
    stream: true,
    instructions: "be brief",
    max_output_tokens: 9,
    stream_options: { include_usage: true },
  });
});

Deno.test("messages: top-level system, max_tokens always, image blocks", () => {
  const body = format("messages", { texts: ["hi"], system: "be brief" });
  assert.deepEqual(body, {
    model: "m",
    max_tokens: 1024,
    messages: [{ role: "user", content: "hi" }],
    stream: false,
    system: "be brief",
  });
  assert.equal(format("messages", { texts: ["hi"], maxTokens: 5 }).max_tokens, 5);
  const images = format("messages", { texts: ["see"], images: [IMAGE, "https://x/a.png"] })
    .messages as { content: unknown }[];
  assert.deepEqual(images[0].content, [
    { type: "text", text: "see" },
    { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0K" } },
    { type: "image", source: { type: "url", url: "https://x/a.png" } },
  ]);
  assert.throws(() => format("messages", { texts: ["x"], audios: ["QUJD"] }), /audio/);
});

Deno.test("embeddings: input texts; chat_embeddings: messages; nim: texts and images", () => {
  assert.deepEqual(format("embeddings", { texts: ["a", "b"] }), { model: "m", input: ["a", "b"] });
  assert.deepEqual(format("chat_embeddings", { texts: ["a"] }), {
    model: "m",
    messages: [{ role: "user", content: "a" }],
  });
  assert.deepEqual(format("nim_embeddings", { texts: ["a"], images: [IMAGE] }), {
    model: "m",
    input: ["a", IMAGE],
  });
  assert.throws(() => format("embeddings", { texts: ["a"], images: [IMAGE] }), /images/);
});

Deno.test("rankings: the first text is the query, the rest the passages, per API", () => {
  const turn = { texts: ["cats?", "a cat", "a dog"] };
  assert.deepEqual(format("nim_rankings", turn), {
    model: "m",
    query: { text: "cats?" },
    passages: [{ text: "a cat" }, { text: "a dog" }],
  });
  assert.deepEqual(format("cohere_rankings", turn), {
    model: "m",
    query: "cats?",
    documents: ["a cat", "a dog"],
  });
  assert.deepEqual(format("hf_tei_rankings", turn), { query: "cats?", texts: ["a cat", "a dog"] });
  assert.throws(() => format("nim_rankings", { texts: [] }), /needs a query/);
});

Deno.test("huggingface_generate: inputs and max_new_tokens, never a stream key", () => {
  assert.deepEqual(
    format("huggingface_generate", { texts: ["once"], maxTokens: 4 }, {
      streaming: true,
    }),
    { inputs: "once", parameters: { max_new_tokens: 4 } },
  );
  assert.deepEqual(format("huggingface_generate", { texts: ["x"] }), {
    inputs: "x",
    parameters: {},
  });
});

Deno.test("formatTurn: JSON text, and a clear error for raw", () => {
  assert.equal(
    formatTurn(getEndpoint("embeddings"), { texts: ["a"] }, base),
    '{"model":"m","input":["a"]}',
  );
  assert.throws(() => formatTurn(getEndpoint("raw"), { texts: ["a"] }, base), /raw endpoint/);
});

Deno.test("every endpoint but raw builds payloads", () => {
  for (const type of ["chat", "completions", "responses", "messages", "embeddings"]) {
    assert.equal(typeof getEndpoint(type).formatPayload, "function");
  }
  assert.equal(getEndpoint("raw").formatPayload, undefined);
});

Deno.test("responses: stream_options.include_usage when streaming with server token counts", () => {
  const on = { streaming: true, useServerTokenCount: true };
  assert.deepEqual(format("responses", { texts: ["x"] }, on).stream_options, {
    include_usage: true,
  });
  assert.equal(
    "stream_options" in format("responses", { texts: ["x"] }, { streaming: true }),
    false,
  );
  assert.equal(
    "stream_options" in format("responses", { texts: ["x"] }, { useServerTokenCount: true }),
    false,
  );
});
