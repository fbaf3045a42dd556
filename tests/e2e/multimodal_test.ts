/**
 * AIPerf's vision, audio and synthetic-video tutorials, flag for flag, against the built-in mock
 * through the real CLI (in-process): the mock decodes every image, audio clip and video it
 * receives (`/mock/stats` `media`), so the test sees what reached the server, not what the
 * client meant to send. Plus file datasets with local media, their byte-for-byte replay through
 * inputs.json, and the seed's reproducibility.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REFERENCE } from "../_reference.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { findFfmpeg } from "../../src/dataset/media/ffmpeg.ts";
import { encodeImage } from "../../src/dataset/media/image_codec.ts";
import { runCli, spawnCli } from "./helpers.ts";

const AIPERF_WAV = join(REFERENCE, "external/aiperf/tests/fixtures/audio/test_audio_1s.wav");
/** No tokenizer download: the models of the tutorials fall back to the built-in one. */
const OFFLINE = { env: { HF_HUB_OFFLINE: "1" } };

const VISION = [
  "--model",
  "Qwen/Qwen2-VL-2B-Instruct",
  "--image-width-mean",
  "512",
  "--image-height-mean",
  "512",
  "--synthetic-input-tokens-mean",
  "100",
  "--streaming",
  "--request-count",
  "20",
  "--concurrency",
  "4",
];

const AUDIO = [
  "--model",
  "Qwen/Qwen2.5-Omni-3B",
  "--audio-length-mean",
  "5.0",
  "--audio-format",
  "wav",
  "--audio-sample-rates",
  "16",
  "--streaming",
  "--request-count",
  "20",
  "--concurrency",
  "4",
];

/** The one run directory under `root`. */
async function runDir(root: string): Promise<string> {
  for await (const e of Deno.readDir(root)) if (e.isDirectory) return join(root, e.name);
  throw new Error(`no run directory in ${root}`);
}

/** A metric's block of profile_export_aiperf.json. */
async function metric(dir: string, tag: string): Promise<Record<string, number> | undefined> {
  const summary = JSON.parse(await Deno.readTextFile(join(dir, "profile_export_aiperf.json")));
  return summary[tag];
}

Deno.test("the vision tutorial's synthetic images, for chat, responses and messages: every image reaches the server as a 512x512 PNG", async () => {
  for (const type of ["chat", "responses", "messages"]) {
    const server = await startMockServer({ outputTokens: 4 });
    const root = await Deno.makeTempDir();
    try {
      const r = await runCli([
        "profile",
        ...VISION,
        "--endpoint-type",
        type,
        "--url",
        server.url,
        "--artifact-dir",
        root,
      ], OFFLINE);
      assert.equal(r.code, 0, `${type}: ${r.stderr}`);
      const media = server.stats().media!;
      assert.deepEqual(media.images, { "png 512x512": 20 }, type);
      assert.equal(media.invalid, 0, media.problems.join("; "));
      const dir = await runDir(root);
      assert.equal((await metric(dir, "num_images"))?.avg, 1);
      assert.equal((await metric(dir, "num_images"))?.sum, 20);
      assert.ok((await metric(dir, "image_throughput"))!.avg > 0);
      assert.ok((await metric(dir, "image_latency"))!.avg > 0);
      assert.match(r.stdout, /Image Throughput/);
    } finally {
      await server.close();
      await Deno.remove(root, { recursive: true });
    }
  }
});

Deno.test("the audio tutorial's synthetic audio, for chat and responses: every clip is a 5 s, 16 kHz mono WAV; messages refuses audio before sending", async () => {
  for (const type of ["chat", "responses"]) {
    const server = await startMockServer({ outputTokens: 4 });
    const root = await Deno.makeTempDir();
    try {
      const r = await runCli([
        "profile",
        ...AUDIO,
        "--endpoint-type",
        type,
        "--url",
        server.url,
        "--artifact-dir",
        root,
      ], OFFLINE);
      assert.equal(r.code, 0, `${type}: ${r.stderr}`);
      const media = server.stats().media!;
      assert.deepEqual(media.audios, { "wav 16000Hz 1ch 5.000s": 20 }, type);
      assert.equal(media.invalid, 0);
      const dir = await runDir(root);
      const duration = (await metric(dir, "audio_duration"))!;
      assert.ok(Math.abs(duration.avg - 5) <= 0.05, `${duration.avg}`);
      assert.ok((await metric(dir, "rtfx"))!.avg > 0);
    } finally {
      await server.close();
      await Deno.remove(root, { recursive: true });
    }
  }
  const server = await startMockServer({ outputTokens: 4 });
  try {
    const r = await runCli([
      "profile",
      ...AUDIO,
      "--endpoint-type",
      "messages",
      "--url",
      server.url,
      "--artifact-dir",
      await Deno.makeTempDir(),
    ], OFFLINE);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /the messages endpoint cannot send audio/);
    assert.equal(r.stderr.trim().split("\n").length, 1);
    assert.equal(server.stats().requests, 0);
  } finally {
    await server.close();
  }
});

Deno.test("the tutorials' custom files: image URLs pass through, local images and AIPerf's WAV are sent whole, and inputs.json replays them byte for byte", async () => {
  const root = await Deno.makeTempDir();
  const server = await startMockServer({ outputTokens: 4 });
  try {
    const px = { width: 40, height: 30, rgba: new Uint8Array(40 * 30 * 4).fill(255) };
    await Deno.writeFile(join(root, "a.png"), encodeImage(px, "png"));
    await Deno.writeFile(join(root, "b.jpg"), encodeImage(px, "jpeg"));
    await Deno.copyFile(AIPERF_WAV, join(root, "clip.wav"));
    const file = join(root, "inputs.jsonl");
    await Deno.writeTextFile(
      file,
      [
        { texts: ["Describe this image in detail."], images: ["a.png"], output_length: 20 },
        { texts: ["Transcribe this."], audios: ["clip.wav"] },
        { text: "Both.", image: "b.jpg", audio: join(root, "clip.wav") },
        { texts: ["What is here?"], images: ["https://picsum.photos/512/512?random=1"] },
      ].map((r) => JSON.stringify(r)).join("\n") + "\n",
    );
    const first = join(root, "first");
    const a = await runCli([
      "profile",
      "--model",
      "Qwen/Qwen2.5-Omni-3B",
      "--endpoint-type",
      "chat",
      "--input-file",
      file,
      "--custom-dataset-type",
      "single_turn",
      "--streaming",
      "--url",
      server.url,
      "--request-count",
      "4",
      "--artifact-dir",
      first,
    ], OFFLINE);
    assert.equal(a.code, 0, a.stderr);
    const media = server.stats().media!;
    assert.deepEqual(media.images, { "png 40x30": 1, "jpeg 40x30": 1 });
    assert.deepEqual(media.audios, { "wav 16000Hz 1ch 1.000s": 2 });
    assert.equal(media.invalid, 0);
    const inputs = await Deno.readTextFile(join(await runDir(first), "inputs.json"));
    assert.ok(inputs.includes("https://picsum.photos/512/512?random=1"));

    const second = join(root, "second");
    const b = await runCli([
      "profile",
      "--model",
      "Qwen/Qwen2.5-Omni-3B",
      "--endpoint-type",
      "chat",
      "--input-file",
      join(await runDir(first), "inputs.json"),
      "--custom-dataset-type",
      "inputs_json",
      "--streaming",
      "--url",
      server.url,
      "--request-count",
      "4",
      "--artifact-dir",
      second,
    ], OFFLINE);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(await Deno.readTextFile(join(await runDir(second), "inputs.json")), inputs);
    assert.deepEqual(server.stats().media!.audios, { "wav 16000Hz 1ch 1.000s": 4 });
    assert.deepEqual(server.stats().media!.images, { "png 40x30": 2, "jpeg 40x30": 2 });

    // Anthropic's messages take the local images as base64 sources.
    const images = join(root, "images.jsonl");
    await Deno.writeTextFile(
      images,
      JSON.stringify({ texts: ["Describe."], images: ["a.png", "b.jpg"] }) + "\n",
    );
    const c = await runCli([
      "profile",
      "--model",
      "claude",
      "--endpoint-type",
      "messages",
      "--input-file",
      images,
      "--custom-dataset-type",
      "single_turn",
      "--url",
      server.url,
      "--request-count",
      "1",
      "--artifact-dir",
      join(root, "third"),
    ], OFFLINE);
    assert.equal(c.code, 0, c.stderr);
    assert.deepEqual(server.stats().media!.images, { "png 40x30": 3, "jpeg 40x30": 3 });
    const sent = JSON.parse(
      await Deno.readTextFile(join(await runDir(join(root, "third")), "inputs.json")),
    );
    const parts = sent.data[0].payloads[0].messages[0].content;
    assert.deepEqual(parts[1].source.type, "base64");
    assert.deepEqual(
      parts.slice(1).map((p: { source: { media_type: string } }) => p.source.media_type),
      [
        "image/png",
        "image/jpeg",
      ],
    );
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("--image-format random --random-seed 7 writes a byte-identical inputs.json twice, and its replay writes it again", async () => {
  const server = await startMockServer({ outputTokens: 2 });
  const root = await Deno.makeTempDir();
  try {
    const texts: string[] = [];
    for (const name of ["one", "two"]) {
      const r = await runCli([
        "profile",
        "--model",
        "m",
        "--image-width-mean",
        "48",
        "--image-width-stddev",
        "8",
        "--image-height-mean",
        "32",
        "--image-format",
        "random",
        "--audio-length-mean",
        "0.2",
        "--random-seed",
        "7",
        "--num-dataset-entries",
        "8",
        "--request-count",
        "8",
        "--url",
        server.url,
        "--artifact-dir",
        join(root, name),
      ]);
      assert.equal(r.code, 0, r.stderr);
      texts.push(await Deno.readTextFile(join(await runDir(join(root, name)), "inputs.json")));
    }
    assert.equal(texts[0], texts[1]);
    // The synthetic runs wrote their bodies back from shared memory; the replay writes the
    // file's text: the same bytes.
    const replay = await runCli([
      "profile",
      "--model",
      "m",
      "--input-file",
      join(await runDir(join(root, "one")), "inputs.json"),
      "--custom-dataset-type",
      "inputs_json",
      "--request-count",
      "8",
      "--url",
      server.url,
      "--artifact-dir",
      join(root, "replay"),
    ]);
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(
      await Deno.readTextFile(join(await runDir(join(root, "replay")), "inputs.json")),
      texts[0],
    );
    const media = server.stats().media!;
    const formats = new Set(Object.keys(media.images).map((k) => k.split(" ")[0]));
    assert.deepEqual(formats, new Set(["png", "jpeg"]));
    assert.equal(media.invalid, 0);
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});

const ffmpeg = findFfmpeg();

Deno.test({
  name:
    "the synthetic-video tutorial (small): ffmpeg's WebM clips reach the server in chat video_url parts",
  ignore: ffmpeg === undefined,
  async fn() {
    const server = await startMockServer({ outputTokens: 2 });
    const root = await Deno.makeTempDir();
    try {
      const r = await runCli([
        "profile",
        "--model",
        "Qwen/Qwen2-VL-2B-Instruct",
        "--endpoint-type",
        "chat",
        "--endpoint",
        "/v1/chat/completions",
        "--url",
        server.url,
        "--video-width",
        "64",
        "--video-height",
        "48",
        "--video-fps",
        "4",
        "--video-duration",
        "1.0",
        "--video-audio-num-channels",
        "1",
        "--num-dataset-entries",
        "3",
        "--request-count",
        "3",
        "--artifact-dir",
        root,
      ], OFFLINE);
      assert.equal(r.code, 0, r.stderr);
      const media = server.stats().media!;
      assert.deepEqual(media.videos, { webm: 3 });
      assert.equal(media.invalid, 0);
      // Responses has no video input: refused before anything is sent.
      const before = server.stats().requests;
      const refused = await runCli([
        "profile",
        "--model",
        "m",
        "--endpoint-type",
        "responses",
        "--url",
        server.url,
        "--video-width",
        "64",
        "--video-height",
        "48",
        "--video-duration",
        "0.5",
        "--num-dataset-entries",
        "1",
        "--request-count",
        "1",
        "--artifact-dir",
        join(root, "refused"),
      ]);
      assert.equal(refused.code, 3);
      assert.match(refused.stderr, /the responses endpoint cannot send videos/);
      assert.equal(server.stats().requests, before);
    } finally {
      await server.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test("without ffmpeg on PATH, a video run stops with one line and exit 2 before anything is sent", async () => {
  const r = await spawnCli([
    "profile",
    "--model",
    "m",
    "--url",
    "http://127.0.0.1:9",
    "--video-width",
    "64",
    "--video-height",
    "48",
    "--request-count",
    "1",
  ], { env: { PATH: "/nonexistent" } });
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /^error: synthetic videos \(--video-width\/--video-height\) need ffmpeg, which is not on PATH/,
  );
  assert.equal(r.stderr.trim().split("\n").length, 1);
});
