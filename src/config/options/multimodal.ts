/** AIPerf's Audio, Image and Video options of `profile`: synthetic media in prompts. */

import { compat, type OptionKind } from "./spec.ts";

const WHY = "synthetic image, audio and video inputs are not built yet";

/** A media flag: parses as AIPerf's, and stops the plan unless it keeps AIPerf's default. */
function media<T>(
  group: string,
  flag: string,
  kind: OptionKind,
  def: T | undefined,
  help: string,
  values?: readonly string[],
) {
  return compat<T>({
    flag,
    kind,
    default: def,
    group: "Multimodal",
    help: `${group}: ${help}`,
    status: "not-yet",
    why: WHY,
    values,
  });
}

/**
 * AIPerf's Audio, Image and Video options: accepted with AIPerf's syntax and defaults; any value
 * that would add media to the prompts is refused before anything is sent. Keys are config fields.
 */
export const multimodalOptions = {
  audioBatchSize: media("Audio", "audio-batch-size", "number", 1, "Audio inputs per request."),
  audioLengthMean: media("Audio", "audio-length-mean", "number", 0, "Mean audio length (s)."),
  audioLengthStddev: media("Audio", "audio-length-stddev", "number", 0, "Audio length stddev (s)."),
  audioFormat: media("Audio", "audio-format", "string", "wav", "Audio format.", ["wav", "mp3"]),
  audioDepths: media("Audio", "audio-depths", "list", ["16"], "Audio bit depths."),
  audioSampleRates: media("Audio", "audio-sample-rates", "list", ["16.0"], "Sample rates (kHz)."),
  audioNumChannels: media("Audio", "audio-num-channels", "number", 1, "Audio channels."),
  imageWidthMean: media("Image", "image-width-mean", "number", 0, "Mean image width (px)."),
  imageWidthStddev: media("Image", "image-width-stddev", "number", 0, "Image width stddev."),
  imageHeightMean: media("Image", "image-height-mean", "number", 0, "Mean image height (px)."),
  imageHeightStddev: media("Image", "image-height-stddev", "number", 0, "Image height stddev."),
  imageBatchSize: media("Image", "image-batch-size", "number", 1, "Images per request."),
  imageFormat: media("Image", "image-format", "string", undefined, "Image format.", [
    "png",
    "jpeg",
    "random",
  ]),
  imageSource: media("Image", "image-source", "string", "noise", "noise, assets or a directory."),
  imageSourceSampling: media(
    "Image",
    "image-source-sampling",
    "string",
    undefined,
    "How source images are picked.",
    ["random-with-replacement", "shuffle-cycle", "sequential-cycle"],
  ),
  videoBatchSize: media("Video", "video-batch-size", "number", 1, "Videos per request."),
  videoDuration: media("Video", "video-duration", "number", 5.0, "Video length (s)."),
  videoFps: media("Video", "video-fps", "number", 4, "Frames per second."),
  videoWidth: media("Video", "video-width", "number", undefined, "Video width (px)."),
  videoHeight: media("Video", "video-height", "number", undefined, "Video height (px)."),
  videoSynthType: media("Video", "video-synth-type", "string", "moving_shapes", "Video content.", [
    "moving_shapes",
    "grid_clock",
    "noise",
  ]),
  videoFormat: media("Video", "video-format", "string", "webm", "Container.", ["webm", "mp4"]),
  videoCodec: media("Video", "video-codec", "string", "libvpx-vp9", "Video codec."),
  videoAudioSampleRate: media(
    "Video",
    "video-audio-sample-rate",
    "number",
    44100,
    "Audio track sample rate (Hz).",
  ),
  videoAudioNumChannels: media(
    "Video",
    "video-audio-num-channels",
    "number",
    0,
    "Audio track channels (0: no audio).",
  ),
  videoAudioCodec: media("Video", "video-audio-codec", "string", undefined, "Audio track codec.", [
    "aac",
    "libvorbis",
    "libopus",
  ]),
  videoAudioDepth: media("Video", "video-audio-depth", "number", 16, "Audio track bit depth."),
} as const;
