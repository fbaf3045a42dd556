/**
 * Synthetic videos (`--video-*`): frames drawn here (video_frames.ts), encoded by ffmpeg with the
 * chosen codec and container, optionally with a noise audio track, sent as a `data:` URL.
 * Generated before the run, never while requests are sent.
 */

import { ConfigError } from "../../config/parse.ts";
import { join } from "node:path";
import { noiseSamples } from "./audio.ts";
import type { MediaRandom } from "./random.ts";
import { synthFrames, type SynthType } from "./video_frames.ts";
import { writeWav } from "./wav.ts";
import { base64 } from "../../util/base64.ts";

/** The video options, as the config names them. */
export interface VideoOptions {
  videoBatchSize: number;
  videoDuration: number;
  videoFps: number;
  videoWidth?: number;
  videoHeight?: number;
  videoSynthType: SynthType;
  videoFormat: "webm" | "mp4";
  videoCodec: string;
  /** kHz. */
  videoAudioSampleRate: number;
  videoAudioNumChannels: 0 | 1 | 2;
  videoAudioCodec?: "aac" | "libvorbis" | "libopus";
  videoAudioDepth: 8 | 16 | 24 | 32;
}

/** Encoder settings that keep output the same for the same frames, and encoding quick. */
function codecArgs(codec: string): string[] {
  if (codec === "libvpx-vp9" || codec === "libvpx") {
    return ["-deadline", "realtime", "-cpu-used", "8", "-row-mt", "0", "-b:v", "1M"];
  }
  if (codec === "libx264" || codec === "libx265") return ["-preset", "ultrafast"];
  return [];
}

/** Draws and encodes the videos of a run, one request's batch at a time. */
export class VideoMaker {
  constructor(
    readonly opts: VideoOptions,
    readonly rand: MediaRandom,
    readonly ffmpeg: string,
  ) {}

  /**
   * One clip as a `data:` URL. Throws a `ConfigError` with ffmpeg's own message when it fails
   * (a codec it does not have, a codec the container cannot hold).
   */
  async one(): Promise<string> {
    const o = this.opts;
    // Even sizes: yuv420p, which players expect, halves the chroma planes.
    const width = o.videoWidth! + (o.videoWidth! & 1);
    const height = o.videoHeight! + (o.videoHeight! & 1);
    const count = Math.max(1, Math.round(o.videoDuration * o.videoFps));
    const frames = synthFrames(o.videoSynthType, width, height, count, this.rand);
    const dir = await Deno.makeTempDir({ prefix: "reprise-video-" });
    try {
      const out = join(dir, `clip.${o.videoFormat}`);
      const args = [
        "-hide_banner",
        "-loglevel",
        "error",
        "-nostdin",
        "-y",
        "-f",
        "rawvideo",
        "-pix_fmt",
        "rgb24",
        "-s",
        `${width}x${height}`,
        "-r",
        String(o.videoFps),
        "-i",
        "pipe:0",
      ];
      if (o.videoAudioNumChannels > 0) {
        const rate = Math.round(o.videoAudioSampleRate * 1000);
        const wav = join(dir, "track.wav");
        const samples = noiseSamples(this.rand, count / o.videoFps, rate, o.videoAudioNumChannels);
        await Deno.writeFile(
          wav,
          writeWav(samples, rate, o.videoAudioNumChannels, o.videoAudioDepth),
        );
        const codec = o.videoAudioCodec ?? (o.videoFormat === "mp4" ? "aac" : "libvorbis");
        args.push("-i", wav, "-c:a", codec, "-shortest");
      }
      args.push(
        "-c:v",
        o.videoCodec,
        ...codecArgs(o.videoCodec),
        "-pix_fmt",
        "yuv420p",
        "-threads",
        "1",
        "-map_metadata",
        "-1",
        "-fflags",
        "+bitexact",
        "-flags",
        "+bitexact",
        "-f",
        o.videoFormat,
        out,
      );
      const child = new Deno.Command(this.ffmpeg, {
        args,
        stdin: "piped",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      const done = child.output();
      await writer.write(frames).catch(() => {});
      await writer.close().catch(() => {});
      const result = await done;
      if (!result.success) {
        const msg = new TextDecoder().decode(result.stderr).trim().split("\n").pop() ?? "";
        throw new ConfigError(
          `ffmpeg could not encode a ${o.videoFormat} video with ${o.videoCodec}: ${msg}`,
        );
      }
      const bytes = await Deno.readFile(out);
      return `data:video/${o.videoFormat};base64,${base64(bytes)}`;
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  }

  /** A request's videos (`--video-batch-size` of them). */
  async batch(): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < this.opts.videoBatchSize; i++) out.push(await this.one());
    return out;
  }
}
