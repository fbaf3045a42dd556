import assert from "node:assert/strict";
import { join } from "node:path";
import { REFERENCE } from "../../_reference.ts";
import { wavInfo, writeWav } from "../../../src/dataset/media/wav.ts";
import { encodeMp3 } from "../../../src/dataset/media/mp3.ts";
import { mp3Info } from "../../../src/dataset/media/mp3_info.ts";
import { decodeImage, encodeImage, sniffImage } from "../../../src/dataset/media/image_codec.ts";
import { resizePixels } from "../../../src/dataset/media/image_resize.ts";
import { MediaRandom } from "../../../src/dataset/media/random.ts";
import { noiseSamples } from "../../../src/dataset/media/audio.ts";

const AIPERF_WAV = join(REFERENCE, "external/aiperf/tests/fixtures/audio/test_audio_1s.wav");

Deno.test("wavInfo reads AIPerf's own 1 s fixture: 16 kHz, mono, 16 bits, 1 s", () => {
  const info = wavInfo(Deno.readFileSync(AIPERF_WAV));
  assert.deepEqual(info, {
    format: "wav",
    sampleRate: 16000,
    channels: 1,
    bitsPerSample: 16,
    durationS: 1,
  });
});

Deno.test("writeWav writes every depth exactly: header, size and length read back", () => {
  const rand = new MediaRandom(1, 0);
  for (const bits of [8, 16, 24, 32] as const) {
    for (const channels of [1, 2]) {
      const samples = noiseSamples(rand, 0.25, 22050, channels);
      const bytes = writeWav(samples, 22050, channels, bits);
      const frames = Math.round(0.25 * 22050);
      const data = frames * channels * bits / 8;
      assert.equal(bytes.length, 44 + data + (data & 1), `${bits} bits ${channels} ch`);
      const info = wavInfo(bytes);
      assert.equal(info.sampleRate, 22050);
      assert.equal(info.channels, channels);
      assert.equal(info.bitsPerSample, bits);
      assert.equal(info.durationS, frames / 22050);
    }
  }
});

Deno.test("writeWav: 16-bit samples are the rounded, clipped values", () => {
  const bytes = writeWav(new Float32Array([0, 1, -1, 0.5, 2]), 8000, 1, 16);
  const v = new DataView(bytes.buffer);
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => v.getInt16(44 + i * 2, true)), [
    0,
    32767,
    -32767,
    16384,
    32767,
  ]);
});

Deno.test("wavInfo refuses what is not a WAV file", () => {
  assert.throws(() => wavInfo(new TextEncoder().encode("hello world, not audio")), /not a WAV/);
});

Deno.test("encodeMp3 writes frames mp3Info reads: rate, channels, and the length within a frame or two", () => {
  for (const [rate, channels] of [[16000, 1], [44100, 2]] as const) {
    const samples = noiseSamples(new MediaRandom(2, 0), 2, rate, channels);
    const info = mp3Info(encodeMp3(samples, rate, channels));
    assert.equal(info.sampleRate, rate);
    assert.equal(info.channels, channels);
    const frame = (rate >= 32000 ? 1152 : 576) / rate;
    assert.ok(info.durationS >= 2 && info.durationS <= 2 + 3 * frame, `${info.durationS}`);
  }
  assert.throws(() => mp3Info(new Uint8Array(100)), /not an MP3/);
});

Deno.test("PNG and JPEG round trip at their exact size; the signature tells them apart", () => {
  const rgba = new Uint8Array(37 * 21 * 4).fill(200);
  for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
  const px = { width: 37, height: 21, rgba };
  for (const format of ["png", "jpeg"] as const) {
    const bytes = encodeImage(px, format);
    assert.equal(sniffImage(bytes), format);
    const back = decodeImage(bytes);
    assert.deepEqual([back.format, back.width, back.height], [format, 37, 21]);
    // A flat picture stays flat through either encoding.
    assert.ok(Math.abs(back.rgba[0] - 200) <= 2 && back.rgba[3] === 255);
  }
  assert.throws(() => decodeImage(new Uint8Array([1, 2, 3, 4])), /not a PNG or JPEG/);
});

Deno.test("resizePixels gives the exact size and keeps a gradient's ends", () => {
  const w = 4;
  const rgba = new Uint8Array(w * 1 * 4);
  for (let x = 0; x < w; x++) rgba.set([x * 80, 0, 0, 255], x * 4);
  const out = resizePixels({ width: w, height: 1, rgba }, 9, 3);
  assert.deepEqual([out.width, out.height, out.rgba.length], [9, 3, 9 * 3 * 4]);
  assert.equal(out.rgba[0], 0);
  assert.equal(out.rgba[(8) * 4], 240);
  for (let x = 1; x < 9; x++) assert.ok(out.rgba[x * 4] >= out.rgba[(x - 1) * 4]);
});
