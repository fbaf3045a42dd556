import assert from "node:assert/strict";
import { getEndpoint } from "../../src/endpoints/mod.ts";
import type { FormatOptions } from "../../src/endpoints/types.ts";
import { imageEditForm, imagePart } from "../../src/endpoints/image_edit.ts";
import { parseImagesEvent } from "../../src/endpoints/image_generation.ts";
import { parseVideoJob } from "../../src/endpoints/video_generation.ts";
import { resolvePayloadTemplate } from "../../src/endpoints/template.ts";
import { TINY_PNG } from "../../src/mock/image_check.ts";

const OPTS: FormatOptions = {
  model: "m",
  streaming: false,
  extraInputs: {},
  useLegacyMaxTokens: false,
  useServerTokenCount: false,
};

Deno.test("image_generation: AIPerf's body, stream only when streaming, extras last", () => {
  const e = getEndpoint("image_generation");
  assert.deepEqual(e.formatPayload!({ texts: ["a cat", "ignored"] }, OPTS), {
    prompt: "a cat",
    model: "m",
    response_format: "b64_json",
    n: 1,
  });
  const streamed = e.formatPayload!({ texts: ["a cat"] }, {
    ...OPTS,
    streaming: true,
    extraInputs: { n: 2, size: "64x64" },
  });
  assert.deepEqual(streamed, {
    prompt: "a cat",
    model: "m",
    response_format: "b64_json",
    n: 2,
    stream: true,
    size: "64x64",
  });
  assert.throws(() => e.formatPayload!({ texts: [] }, OPTS), /needs a text prompt/);
});

Deno.test("image_generation: images are counted in bodies and completed events, not partials", () => {
  const e = getEndpoint("image_generation");
  assert.deepEqual(e.parseResponse({ data: [{ b64_json: "x" }, { url: "u" }, {}] }), {
    answered: true,
    media: { images: 2 },
  });
  assert.throws(() => e.parseResponse({ created: 1 }), /"data" array/);
  const partial = { event: "image_generation.partial_image", data: '{"b64_json":"x"}' };
  assert.equal(parseImagesEvent(partial), null);
  const done = parseImagesEvent({
    event: "",
    data: JSON.stringify({
      type: "image_generation.completed",
      b64_json: "x",
      usage: {
        input_tokens: 3,
        output_tokens: 16,
        total_tokens: 19,
      },
    }),
  });
  assert.equal(done?.media?.images, 1);
  assert.equal(done?.done, true);
  assert.equal(done?.usage?.promptTokens, 3);
});

Deno.test("image_edit: the image as a data URL or SGLang's url; the turn's fields win over extras", () => {
  const e = getEndpoint("image_edit");
  const png = `data:image/png;base64,${TINY_PNG}`;
  const body = e.formatPayload!({ texts: ["snow"], images: [png] }, {
    ...OPTS,
    extraInputs: { prompt: "no", image: "no", size: "8x8" },
  });
  assert.deepEqual(body, {
    prompt: "snow",
    model: "m",
    response_format: "b64_json",
    n: 1,
    image: png,
    size: "8x8",
  });
  const url = e.formatPayload!({ texts: ["snow"], images: ["https://x/a.png"] }, OPTS);
  assert.equal(url.url, "https://x/a.png");
  assert.equal("image" in url, false);
  assert.throws(() => e.formatPayload!({ texts: ["snow"] }, OPTS), /reference image/);
  // Bare base64 is sniffed by its magic bytes.
  assert.deepEqual(imagePart(TINY_PNG), {
    base64: TINY_PNG,
    contentType: "image/png",
    filename: "image.png",
  });
  assert.throws(() => imagePart("AAAA"), /not a recognized image/);
});

Deno.test("image_edit: the form carries the decoded image as a file and the rest as fields", async () => {
  const json = JSON.stringify({
    prompt: "snow",
    n: 1,
    image: `data:image/png;base64,${TINY_PNG}`,
    extra: { a: 1 },
  });
  const { body, contentType } = await imageEditForm(json);
  assert.match(contentType, /^multipart\/form-data; boundary=/);
  const form = await new Request("http://x/", {
    method: "POST",
    body,
    headers: { "content-type": contentType },
  }).formData();
  assert.equal(form.get("prompt"), "snow");
  assert.equal(form.get("n"), "1");
  assert.equal(form.get("extra"), '{"a":1}');
  const file = form.get("image") as File;
  assert.equal(file.name, "image.png");
  assert.equal(file.type, "image/png");
  const bytes = new Uint8Array(await file.arrayBuffer());
  assert.deepEqual([...bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
});

Deno.test("video_generation: job answers give the id, status and server figures; failed is an error", () => {
  assert.deepEqual(
    parseVideoJob({
      id: "video_1",
      object: "video",
      status: "completed",
      inference_time_s: 2.5,
      peak_memory_mb: 900,
    }),
    {
      answered: true,
      media: {
        videoId: "video_1",
        videoStatus: "completed",
        videoInferenceS: 2.5,
        videoPeakMemoryMb: 900,
      },
    },
  );
  const failed = parseVideoJob({
    id: "video_2",
    status: "failed",
    error: { code: "x", message: "out of memory" },
  });
  assert.match(failed.error!.message, /video_2 failed: out of memory/);
  assert.throws(() => parseVideoJob({ object: "video" }), /"id" and a "status"/);
  const video = getEndpoint("video_generation", { downloadVideoContent: true, videoPollMs: 5 });
  assert.deepEqual(video.job, { pollIntervalMs: 5, download: true });
  assert.deepEqual(getEndpoint("video_generation").job, { pollIntervalMs: 100, download: false });
});

Deno.test("template: named, file or inline; renders AIPerf's variables; extras merged last", () => {
  assert.equal(resolvePayloadTemplate("nv-embedqa"), '{"text": {{ texts|tojson }}}');
  const inline = '{"q": {{ query|tojson }}}';
  assert.equal(resolvePayloadTemplate(inline, () => assert.fail("read")), inline);
  assert.equal(resolvePayloadTemplate("t.json", (p) => `read ${p}`), "read t.json");
  const e = getEndpoint("template", {
    payloadTemplate:
      '{"q": {{ query|tojson }}, "p": {{ passages|tojson }}, "i": {{ image|tojson }}, "s": {{ stream|lower }}, "m": {{ max_tokens|tojson }}, "model": {{ model|tojson }}}',
  });
  const body = e.formatPayload!(
    { texts: ["query", "p1", "p2"], images: ["data:x"], maxTokens: 7 },
    { ...OPTS, streaming: true, extraInputs: { model: "override" } },
  );
  assert.deepEqual(body, {
    q: "query",
    p: ["p1", "p2"],
    i: "data:x",
    s: true,
    m: 7,
    model: "override",
  });
  const notJson = getEndpoint("template", { payloadTemplate: "{{ text }}" });
  assert.throws(() => notJson.formatPayload!({ texts: ["hi"] }, OPTS), /did not render JSON/);
  assert.throws(
    () => getEndpoint("template", { payloadTemplate: "{% if %}" }),
    /Invalid payload_template/,
  );
  assert.throws(() => getEndpoint("template"), /payload_template/);
  // Answers are read as raw reads them: a picked field, or the shape detected.
  const picked = getEndpoint("template", { payloadTemplate: "{}", responseField: "out.text" });
  assert.equal(picked.parseResponse({ out: { text: "hi" } }).text, "hi");
});
