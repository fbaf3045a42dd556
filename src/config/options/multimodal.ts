/**
 * AIPerf's Audio, Image and Video options of `profile`: synthetic media added to the synthetic
 * prompts (dataset/media/). Every one keeps AIPerf's name and default; media is generated only
 * when a size or length is given (`--image-width-mean` and `--image-height-mean`,
 * `--audio-length-mean`, `--video-width` and `--video-height`).
 */

import { z } from "zod";
import { nonNegative, opt, type OptionKind } from "./spec.ts";

const nonNegativeInt = z.number().int().nonnegative();

/** The values a list of numbers may take, each item possibly `a,b,c`. */
function numbersIn(list: readonly string[]): number[] {
  return list.flatMap((s) => s.split(",")).map((s) => s.trim()).filter(Boolean).map(Number);
}

/** A media option: `group` (Audio, Image, Video) heads its help line. */
function media<T>(
  group: string,
  flag: string,
  kind: OptionKind,
  schema: z.ZodType<T>,
  expect: string,
  def: NoInfer<T> | undefined,
  help: string,
  extra: { aliases?: string[]; metavar?: string; check?(v: T): string | undefined } = {},
) {
  return opt<T>({
    flag,
    kind,
    schema,
    expect,
    ...(def !== undefined ? { default: def } : {}),
    group: "Multimodal",
    help: `${group}: ${help}`,
    metavar: extra.metavar ??
      (kind === "number" ? "N" : kind === "list" ? "VALUE" : undefined),
    ...(extra.aliases ? { aliases: extra.aliases } : {}),
    ...(extra.check ? { check: extra.check } : {}),
  });
}

/** MP3 (MPEG-1/2/2.5 layer III) can carry only these sample rates, in kHz. */
export const MP3_SAMPLE_RATES_KHZ: readonly number[] = [8, 11.025, 12, 16, 22.05, 24, 32, 44.1, 48];

/** A schema for one of `values`, typed as their union. */
function choice<const T extends readonly [string, ...string[]]>(values: T): z.ZodType<T[number]> {
  return z.enum(values) as unknown as z.ZodType<T[number]>;
}

/**
 * AIPerf's Audio, Image and Video options, keys are config fields. Sizes and lengths are drawn
 * per item from Normal(mean, stddev); the choices in lists per item at random; all seeded by
 * `--random-seed`.
 */
export const multimodalOptions = {
  audioBatchSize: media(
    "Audio",
    "audio-batch-size",
    "number",
    nonNegativeInt,
    "a non-negative integer",
    1,
    "Audio clips per request.",
    { aliases: ["batch-size-audio"] },
  ),
  audioLengthMean: media(
    "Audio",
    "audio-length-mean",
    "number",
    nonNegative,
    "a non-negative number",
    0,
    "Mean audio length in seconds (0: no audio).",
  ),
  audioLengthStddev: media(
    "Audio",
    "audio-length-stddev",
    "number",
    nonNegative,
    "a non-negative number",
    0,
    "Standard deviation of the audio length in seconds.",
  ),
  audioFormat: media(
    "Audio",
    "audio-format",
    "string",
    choice(["wav", "mp3"]),
    "one of wav, mp3",
    "wav",
    "Audio container: wav (PCM) or mp3.",
    { metavar: "CHOICE" },
  ),
  audioDepths: media(
    "Audio",
    "audio-depths",
    "list",
    z.array(z.string()),
    "bit depths among 8, 16, 24, 32",
    ["16"],
    "Bit depths to pick from per clip (8, 16, 24, 32); repeatable or comma-separated.",
    {
      check: (v) => {
        const n = numbersIn(v);
        return n.length && n.every((d) => [8, 16, 24, 32].includes(d))
          ? undefined
          : `must be bit depths among 8, 16, 24, 32, got ${JSON.stringify(v)}`;
      },
    },
  ),
  audioSampleRates: media(
    "Audio",
    "audio-sample-rates",
    "list",
    z.array(z.string()),
    "sample rates in kHz",
    ["16.0"],
    "Sample rates in kHz to pick from per clip; repeatable or comma-separated.",
    {
      check: (v) => {
        const n = numbersIn(v);
        return n.length && n.every((r) => Number.isFinite(r) && r >= 1 && r <= 384)
          ? undefined
          : `must be sample rates in kHz (1 to 384), got ${JSON.stringify(v)}`;
      },
    },
  ),
  audioNumChannels: media(
    "Audio",
    "audio-num-channels",
    "number",
    z.union([z.literal(1), z.literal(2)]),
    "1 (mono) or 2 (stereo)",
    1,
    "Audio channels: 1 (mono) or 2 (stereo).",
  ),
  imageWidthMean: media(
    "Image",
    "image-width-mean",
    "number",
    nonNegative,
    "a non-negative number",
    0,
    "Mean image width in pixels (0: no images).",
  ),
  imageWidthStddev: media(
    "Image",
    "image-width-stddev",
    "number",
    nonNegative,
    "a non-negative number",
    0,
    "Standard deviation of the image width.",
  ),
  imageHeightMean: media(
    "Image",
    "image-height-mean",
    "number",
    nonNegative,
    "a non-negative number",
    0,
    "Mean image height in pixels (0: no images).",
  ),
  imageHeightStddev: media(
    "Image",
    "image-height-stddev",
    "number",
    nonNegative,
    "a non-negative number",
    0,
    "Standard deviation of the image height.",
  ),
  imageBatchSize: media(
    "Image",
    "image-batch-size",
    "number",
    nonNegativeInt,
    "a non-negative integer",
    1,
    "Images per request.",
    { aliases: ["batch-size-image"] },
  ),
  imageFormat: media(
    "Image",
    "image-format",
    "string",
    choice(["png", "jpeg", "random"]),
    "one of png, jpeg, random",
    "png",
    "Image encoding: png, jpeg, or random (one of the two per image).",
    { metavar: "CHOICE" },
  ),
  imageSource: media(
    "Image",
    "image-source",
    "string",
    z.string().min(1),
    "noise, assets or a directory",
    "noise",
    "noise (fresh random pixels per image), assets (the bundled pictures, resized) or a directory of your own pictures (PNG or JPEG, resized).",
    { metavar: "SOURCE" },
  ),
  imageSourceSampling: media(
    "Image",
    "image-source-sampling",
    "string",
    choice(["random-with-replacement", "shuffle-cycle", "sequential-cycle"]),
    "one of random-with-replacement, shuffle-cycle, sequential-cycle",
    "random-with-replacement",
    "How pictures of assets or a directory are picked.",
    { metavar: "CHOICE" },
  ),
  videoBatchSize: media(
    "Video",
    "video-batch-size",
    "number",
    nonNegativeInt,
    "a non-negative integer",
    1,
    "Videos per request.",
    { aliases: ["batch-size-video"] },
  ),
  videoDuration: media(
    "Video",
    "video-duration",
    "number",
    z.number().positive(),
    "a positive number",
    5.0,
    "Clip length in seconds.",
  ),
  videoFps: media(
    "Video",
    "video-fps",
    "number",
    z.number().int().positive(),
    "a positive integer",
    4,
    "Frames per second.",
  ),
  videoWidth: media(
    "Video",
    "video-width",
    "number",
    z.number().int().positive(),
    "a positive integer",
    undefined,
    "Frame width in pixels (with --video-height: adds videos; needs ffmpeg).",
  ),
  videoHeight: media(
    "Video",
    "video-height",
    "number",
    z.number().int().positive(),
    "a positive integer",
    undefined,
    "Frame height in pixels (with --video-width).",
  ),
  videoSynthType: media(
    "Video",
    "video-synth-type",
    "string",
    choice(["moving_shapes", "grid_clock", "noise"]),
    "one of moving_shapes, grid_clock, noise",
    "moving_shapes",
    "What the frames show.",
    { metavar: "CHOICE" },
  ),
  videoFormat: media(
    "Video",
    "video-format",
    "string",
    choice(["webm", "mp4"]),
    "one of webm, mp4",
    "webm",
    "Container.",
    { metavar: "CHOICE" },
  ),
  videoCodec: media(
    "Video",
    "video-codec",
    "string",
    z.string().regex(/^[A-Za-z0-9_-]+$/),
    "an ffmpeg encoder name (libvpx-vp9, libx264, …)",
    "libvpx-vp9",
    "ffmpeg video encoder (libvpx-vp9, libx264, libx265, h264_nvenc, …).",
    { metavar: "CODEC" },
  ),
  videoAudioSampleRate: media(
    "Video",
    "video-audio-sample-rate",
    "number",
    z.number().min(8).max(96),
    "a sample rate in kHz from 8 to 96",
    44.1,
    "Audio track sample rate in kHz.",
  ),
  videoAudioNumChannels: media(
    "Video",
    "video-audio-num-channels",
    "number",
    z.union([z.literal(0), z.literal(1), z.literal(2)]),
    "0 (no audio), 1 or 2",
    0,
    "Audio track channels (0: no audio track).",
  ),
  videoAudioCodec: media(
    "Video",
    "video-audio-codec",
    "string",
    choice(["aac", "libvorbis", "libopus"]),
    "one of aac, libvorbis, libopus",
    undefined,
    "Audio track codec (default: libvorbis for webm, aac for mp4).",
    { metavar: "CHOICE" },
  ),
  videoAudioDepth: media(
    "Video",
    "video-audio-depth",
    "number",
    z.union([z.literal(8), z.literal(16), z.literal(24), z.literal(32)]),
    "8, 16, 24 or 32",
    16,
    "Audio track bit depth.",
  ),
} as const;
