import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { startMockServer } from "../../src/mock/server.ts";
import { encodeImage } from "../../src/dataset/media/image_codec.ts";
import { writeWav } from "../../src/dataset/media/wav.ts";

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

Deno.test("the mock decodes the media it receives and counts what it found, and what was not as declared", async () => {
  const server = await startMockServer({ outputTokens: 2 });
  try {
    const png = b64(
      encodeImage({ width: 6, height: 4, rgba: new Uint8Array(96).fill(255) }, "png"),
    );
    const wav = writeWav(new Float32Array(8000), 8000, 1, 16);
    const send = async (content: unknown[]) => {
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content }] }),
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
    };
    await send([
      { type: "text", text: "hi" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
      { type: "input_audio", input_audio: { data: b64(wav), format: "wav" } },
      { type: "image_url", image_url: { url: "https://example.com/x.png" } },
    ]);
    // The same image again is counted again (from what was found the first time).
    await send([{ type: "image_url", image_url: { url: `data:image/png;base64,${png}` } }]);
    // Declared JPEG, is PNG; a WAV cut short; a video that is no container.
    await send([
      { type: "image_url", image_url: { url: `data:image/jpeg;base64,${png}` } },
      { type: "input_audio", input_audio: { data: b64(wav.subarray(0, 1000)), format: "wav" } },
      { type: "video_url", video_url: { url: `data:video/webm;base64,${b64(wav)}` } },
    ]);
    const media = server.stats().media!;
    assert.deepEqual(media.images, { "png 6x4": 2 });
    assert.deepEqual(media.audios, { "wav 8000Hz 1ch 1.000s": 1 });
    assert.deepEqual(media.videos, {});
    assert.equal(media.invalid, 3);
    assert.deepEqual(media.problems, [
      "an image declared image/jpeg is png",
      "a wav clip declares 16000 data bytes and holds 956",
      "a video (video/webm) is neither WebM nor MP4",
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("text-only requests leave the mock's stats without a media entry", async () => {
  const server = await startMockServer({ outputTokens: 2 });
  try {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hello" }] }),
    });
    await res.body?.cancel();
    assert.equal(server.stats().requests, 1);
    assert.equal(server.stats().media, undefined);
  } finally {
    await server.close();
  }
});
