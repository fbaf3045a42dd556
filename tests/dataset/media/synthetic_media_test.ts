import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { type MediaOptions, mediaProblem, MediaSource } from "../../../src/dataset/media/mod.ts";
import { decodeImage, encodeImage } from "../../../src/dataset/media/image_codec.ts";
import { audioInfo, probeBody } from "../../../src/dataset/media/probe.ts";
import { findFfmpeg } from "../../../src/dataset/media/ffmpeg.ts";
import { wantsMedia } from "../../../src/dataset/media/wants.ts";
import { generateSynthetic, type SyntheticOptions } from "../../../src/dataset/synthetic.ts";
import { getEndpoint } from "../../../src/endpoints/mod.ts";

/** AIPerf's defaults: no media at all. */
const DEFAULTS: MediaOptions = {
  imageWidthMean: 0,
  imageWidthStddev: 0,
  imageHeightMean: 0,
  imageHeightStddev: 0,
  imageBatchSize: 1,
  imageFormat: "png",
  imageSource: "noise",
  imageSourceSampling: "random-with-replacement",
  audioBatchSize: 1,
  audioLengthMean: 0,
  audioLengthStddev: 0,
  audioFormat: "wav",
  audioDepths: ["16"],
  audioSampleRates: ["16.0"],
  audioNumChannels: 1,
  videoBatchSize: 1,
  videoDuration: 5,
  videoFps: 4,
  videoSynthType: "moving_shapes",
  videoFormat: "webm",
  videoCodec: "libvpx-vp9",
  videoAudioSampleRate: 44.1,
  videoAudioNumChannels: 0,
  videoAudioDepth: 16,
};

function dataUrlImage(url: string) {
  const m = /^data:(image\/[a-z]+);base64,(.+)$/.exec(url);
  assert.ok(m, url.slice(0, 40));
  const img = decodeImage(new Uint8Array(Buffer.from(m[2], "base64")));
  return { type: m[1], format: img.format, width: img.width, height: img.height };
}

Deno.test("AIPerf's defaults ask for no media: no source is made", () => {
  assert.equal(wantsMedia(DEFAULTS), false);
  assert.equal(MediaSource.create(DEFAULTS, 1), null);
  // A width without a height is no image either, as in AIPerf.
  assert.equal(wantsMedia({ ...DEFAULTS, imageWidthMean: 512 }), false);
});

Deno.test("noise images: the drawn size exactly, batch size per turn, png or jpeg as asked", async () => {
  for (const format of ["png", "jpeg"] as const) {
    const src = MediaSource.create({
      ...DEFAULTS,
      imageWidthMean: 120,
      imageHeightMean: 80,
      imageBatchSize: 2,
      imageFormat: format,
    }, 7)!;
    const media = await src.next();
    assert.equal(media.images?.length, 2);
    assert.equal(media.audios, undefined);
    for (const url of media.images!) {
      assert.deepEqual(dataUrlImage(url), {
        type: format === "png" ? "image/png" : "image/jpeg",
        format,
        width: 120,
        height: 80,
      });
    }
    // Fresh noise each time: the server cannot dedupe.
    assert.notEqual(media.images![0], media.images![1]);
  }
});

Deno.test("stddev draws sizes around the mean; random picks both formats; a seed repeats them", async () => {
  const opts: MediaOptions = {
    ...DEFAULTS,
    imageWidthMean: 64,
    imageWidthStddev: 16,
    imageHeightMean: 48,
    imageHeightStddev: 8,
    imageFormat: "random",
  };
  const draw = async (seed: number) => {
    const src = MediaSource.create(opts, seed)!;
    const out: string[] = [];
    for (let i = 0; i < 12; i++) out.push(...(await src.next()).images!);
    return out;
  };
  const a = await draw(7);
  const seen = a.map(dataUrlImage);
  assert.ok(new Set(seen.map((s) => s.width)).size > 1);
  assert.deepEqual(new Set(seen.map((s) => s.format)), new Set(["png", "jpeg"]));
  assert.deepEqual(await draw(7), a);
  assert.notDeepEqual(await draw(8), a);
});

Deno.test("assets: the bundled pictures resized to the drawn size; sequential-cycle walks them in order", async () => {
  const src = MediaSource.create({
    ...DEFAULTS,
    imageWidthMean: 50,
    imageHeightMean: 30,
    imageSource: "assets",
    imageSourceSampling: "sequential-cycle",
  }, 1)!;
  const urls: string[] = [];
  for (let i = 0; i < 5; i++) urls.push((await src.next()).images![0]);
  for (const u of urls) {
    assert.deepEqual(dataUrlImage(u), { type: "image/png", format: "png", width: 50, height: 30 });
  }
  assert.equal(new Set(urls.slice(0, 4)).size, 4);
  assert.equal(urls[4], urls[0]);
});

Deno.test("a directory of the user's pictures: resized, non-pictures skipped; an empty one is refused", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const px = { width: 10, height: 10, rgba: new Uint8Array(400).fill(255) };
    await Deno.writeFile(join(dir, "a.png"), encodeImage(px, "png"));
    await Deno.writeFile(join(dir, "b.jpg"), encodeImage(px, "jpeg"));
    await Deno.writeTextFile(join(dir, "notes.txt"), "not a picture");
    const src = MediaSource.create({
      ...DEFAULTS,
      imageWidthMean: 33,
      imageHeightMean: 17,
      imageSource: dir,
      imageSourceSampling: "shuffle-cycle",
      imageFormat: "jpeg",
    }, 3)!;
    for (let i = 0; i < 4; i++) {
      assert.deepEqual(dataUrlImage((await src.next()).images![0]), {
        type: "image/jpeg",
        format: "jpeg",
        width: 33,
        height: 17,
      });
    }
    const empty = await Deno.makeTempDir({ dir });
    assert.throws(
      () =>
        MediaSource.create({
          ...DEFAULTS,
          imageWidthMean: 5,
          imageHeightMean: 5,
          imageSource: empty,
        }, 1),
      /holds no \.png, \.jpg or \.jpeg file/,
    );
    assert.throws(
      () =>
        MediaSource.create(
          { ...DEFAULTS, imageWidthMean: 5, imageHeightMean: 5, imageSource: join(dir, "missing") },
          1,
        ),
      /is not a readable directory/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("audio: WAV clips of the drawn length, at a listed rate, depth and channel count", async () => {
  const src = MediaSource.create({
    ...DEFAULTS,
    audioLengthMean: 1.5,
    audioBatchSize: 2,
    audioSampleRates: ["16", "22.05"],
    audioDepths: ["8,24"],
    audioNumChannels: 2,
  }, 5)!;
  const rates = new Set<number>();
  const depths = new Set<number>();
  for (let i = 0; i < 6; i++) {
    const { audios } = await src.next();
    assert.equal(audios?.length, 2);
    for (const clip of audios!) {
      const [format, data] = clip.split(",");
      assert.equal(format, "wav");
      const info = audioInfo(data, format);
      assert.equal(info.channels, 2);
      assert.ok(Math.abs(info.durationS - 1.5) < 1e-4);
      rates.add(info.sampleRate);
      depths.add(info.bitsPerSample!);
    }
  }
  assert.deepEqual(rates, new Set([16000, 22050]));
  assert.deepEqual(depths, new Set([8, 24]));
});

Deno.test("audio: MP3 clips through the encoder, the length within a frame or two", async () => {
  const src = MediaSource.create({ ...DEFAULTS, audioLengthMean: 1, audioFormat: "mp3" }, 5)!;
  const clip = (await src.next()).audios![0];
  assert.ok(clip.startsWith("mp3,"));
  const info = audioInfo(clip.slice(4), "mp3");
  assert.equal(info.sampleRate, 16000);
  assert.ok(info.durationS >= 1 && info.durationS < 1.12, `${info.durationS}`);
});

Deno.test("mediaProblem: ffmpeg missing for videos, an MP3 sample rate MP3 cannot carry", () => {
  const video = { ...DEFAULTS, videoWidth: 64, videoHeight: 48 };
  assert.match(mediaProblem(video, "")!, /need ffmpeg, which is not on PATH/);
  assert.match(
    mediaProblem({
      ...DEFAULTS,
      audioLengthMean: 1,
      audioFormat: "mp3",
      audioSampleRates: ["13"],
    })!,
    /mp3 cannot carry a sample rate of 13 kHz/,
  );
  assert.equal(
    mediaProblem({ ...DEFAULTS, audioLengthMean: 1, audioSampleRates: ["13"] }),
    undefined,
  );
});

Deno.test("probeBody counts images and audio seconds in chat, Responses and Anthropic bodies", async () => {
  const src = MediaSource.create({
    ...DEFAULTS,
    imageWidthMean: 8,
    imageHeightMean: 8,
    imageBatchSize: 2,
    audioLengthMean: 0.5,
  }, 1)!;
  const m = await src.next();
  const [format, data] = m.audios![0].split(",");
  const chat = {
    messages: [{
      role: "user",
      content: [
        { type: "text", text: "hi" },
        ...m.images!.map((url) => ({ type: "image_url", image_url: { url } })),
        { type: "input_audio", input_audio: { data, format } },
      ],
    }],
  };
  assert.deepEqual(probeBody(chat), { images: 2, audioSeconds: 0.5, audios: 1, videos: 0 });
  const responses = {
    input: [{ role: "user", content: [{ type: "input_image", image_url: m.images![0] }] }],
  };
  assert.deepEqual(probeBody(responses), { images: 1, audioSeconds: 0, audios: 0, videos: 0 });
  const anthropic = {
    messages: [{ role: "user", content: [{ type: "image", source: { type: "base64" } }] }],
  };
  assert.equal(probeBody(anthropic)?.images, 1);
  assert.equal(probeBody({ messages: [{ role: "user", content: "text only" }] }), null);
});

const ffmpeg = findFfmpeg();

Deno.test({
  name:
    "video: ffmpeg encodes the drawn frames at the asked size, rate and length, with an audio track",
  ignore: ffmpeg === undefined,
  async fn() {
    for (
      const [format, codec, synth] of [["webm", "libvpx-vp9", "grid_clock"], [
        "mp4",
        "libx264",
        "noise",
      ]] as const
    ) {
      const src = MediaSource.create({
        ...DEFAULTS,
        videoWidth: 64,
        videoHeight: 48,
        videoDuration: 1,
        videoFps: 4,
        videoFormat: format,
        videoCodec: codec,
        videoSynthType: synth,
        videoAudioNumChannels: 1,
      }, 3)!;
      const url = (await src.next()).videos![0];
      assert.ok(url.startsWith(`data:video/${format};base64,`));
      const probe = await ffprobe(Buffer.from(url.split(",")[1], "base64"));
      const v = probe.streams.find((s: { codec_type: string }) => s.codec_type === "video");
      const a = probe.streams.find((s: { codec_type: string }) => s.codec_type === "audio");
      assert.deepEqual([v.width, v.height, v.r_frame_rate], [64, 48, "4/1"]);
      assert.ok(Math.abs(Number(probe.format.duration) - 1) < 0.3, probe.format.duration);
      assert.equal(a.channels, 1);
      // The same seed encodes the same bytes.
      const again = MediaSource.create({
        ...DEFAULTS,
        videoWidth: 64,
        videoHeight: 48,
        videoDuration: 1,
        videoFps: 4,
        videoFormat: format,
        videoCodec: codec,
        videoSynthType: synth,
        videoAudioNumChannels: 1,
      }, 3)!;
      assert.equal((await again.next()).videos![0], url);
    }
  },
});

async function ffprobe(bytes: Uint8Array) {
  const file = await Deno.makeTempFile();
  try {
    await Deno.writeFile(file, bytes);
    const out = await new Deno.Command("ffprobe", {
      args: ["-v", "error", "-show_streams", "-show_format", "-of", "json", file],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    return JSON.parse(new TextDecoder().decode(out.stdout));
  } finally {
    await Deno.remove(file);
  }
}

Deno.test("synthetic bodies with media are built into shared memory, each read back whole", async () => {
  const format = {
    endpoint: getEndpoint("chat"),
    options: {
      model: "m",
      streaming: false,
      extraInputs: {},
      useLegacyMaxTokens: false,
      useServerTokenCount: false,
    },
  };
  const opts = {
    numDatasetEntries: 3,
    sessionTurnsMean: 1,
    sessionTurnsStddev: 0,
    sessionTurnDelayMean: 0,
    sessionTurnDelayStddev: 0,
    isl: 20,
    islStddev: 0,
    oslStddev: 0,
    promptCorpus: "sonnet",
    sharedSystemPromptLength: 0,
    numPrefixPrompts: 0,
    prefixPromptLength: 0,
  };
  const withImages = await generateSynthetic(
    { ...opts, ...DEFAULTS, imageWidthMean: 8, imageHeightMean: 8 },
    { format, seed: 5 },
  );
  for (const c of withImages.conversations) {
    const turn = c.turns[0];
    assert.ok(turn.stored, "a body with media is stored");
    assert.ok(turn.stored.store.bytes(turn.stored.index).buffer instanceof SharedArrayBuffer);
    const body = JSON.parse(turn.body);
    assert.equal(probeBody(body)?.images, 1);
    // Read twice, the same text.
    assert.equal(turn.body, turn.body);
  }
  // Without media the bodies stay text.
  const text = await generateSynthetic(opts satisfies SyntheticOptions, { format, seed: 5 });
  assert.equal(text.conversations[0].turns[0].stored, undefined);
  assert.equal(
    typeof Object.getOwnPropertyDescriptor(text.conversations[0].turns[0], "body")?.value,
    "string",
  );
});
