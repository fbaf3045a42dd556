/**
 * Synthetic media for synthetic prompts: images, audio clips and videos added to every turn, as
 * the `--image-*`, `--audio-*` and `--video-*` options ask. Without any of them nothing here runs
 * (no encoder is loaded, no draw is taken). Everything is drawn from `--random-seed`, before the
 * run, into the bodies themselves.
 */

import { AudioMaker, listNumbers } from "./audio.ts";
import { findFfmpeg } from "./ffmpeg.ts";
import { ImageMaker } from "./images.ts";
import { MediaRandom } from "./random.ts";
import { VideoMaker } from "./video.ts";
import { type MediaOptions, wantsAudio, wantsImages, wantsVideo } from "./wants.ts";

export type { MediaOptions };

/** A turn's media: `data:` URLs of images and videos, `format,base64` audio clips. */
export interface TurnMedia {
  images?: string[];
  audios?: string[];
  videos?: string[];
}

/** MP3 (MPEG-1, 2 and 2.5 layer III) carries only these sample rates, in Hz. */
const MP3_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000];

/**
 * What stops these options from generating media, in one line, or undefined: ffmpeg missing for
 * videos, or a sample rate MP3 cannot carry. Read `path` for ffmpeg (default: `PATH`).
 */
export function mediaProblem(o: MediaOptions, path?: string): string | undefined {
  if (wantsVideo(o) && findFfmpeg(path) === undefined) {
    return "synthetic videos (--video-width/--video-height) need ffmpeg, which is not on PATH; install it (e.g. apt-get install ffmpeg)";
  }
  if (wantsAudio(o) && o.audioFormat === "mp3") {
    const bad = listNumbers(o.audioSampleRates).find((k) =>
      !MP3_RATES.includes(Math.round(k * 1000))
    );
    if (bad !== undefined) {
      return `--audio-format mp3 cannot carry a sample rate of ${bad} kHz (MP3 takes ${
        MP3_RATES.map((r) => r / 1000).join(", ")
      } kHz); use wav for other rates`;
    }
  }
  return undefined;
}

/** Draws each turn's media; one per run. */
export class MediaSource {
  #images: ImageMaker | null;
  #audio: AudioMaker | null;
  #video: VideoMaker | null;

  private constructor(
    images: ImageMaker | null,
    audio: AudioMaker | null,
    video: VideoMaker | null,
  ) {
    this.#images = images;
    this.#audio = audio;
    this.#video = video;
  }

  /**
   * The media source for `o`, or null when no option asks for media. Throws an `Error` for a
   * source that cannot be used (an image directory without pictures, no ffmpeg).
   */
  static create(o: MediaOptions, seed: number): MediaSource | null {
    const images = wantsImages(o) ? new ImageMaker(o, new MediaRandom(seed, 1)) : null;
    const audio = wantsAudio(o) ? new AudioMaker(o, new MediaRandom(seed, 2)) : null;
    let video: VideoMaker | null = null;
    if (wantsVideo(o)) {
      const ffmpeg = findFfmpeg();
      if (!ffmpeg) throw new Error(mediaProblem(o)!);
      video = new VideoMaker(o, new MediaRandom(seed, 3), ffmpeg);
    }
    return images || audio || video ? new MediaSource(images, audio, video) : null;
  }

  /** The next turn's media. */
  async next(): Promise<TurnMedia> {
    const media: TurnMedia = {};
    if (this.#images) media.images = this.#images.batch();
    if (this.#audio) media.audios = this.#audio.batch();
    if (this.#video) media.videos = await this.#video.batch();
    return media;
  }
}
