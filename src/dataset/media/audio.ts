/**
 * Synthetic audio (`--audio-*`): Gaussian white noise of a drawn length, at a sample rate and bit
 * depth picked per clip from the given lists, as WAV (written exactly) or MP3, in AIPerf's
 * `format,base64` spelling.
 */

import { encodeMp3 } from "./mp3.ts";
import type { MediaRandom } from "./random.ts";
import { writeWav } from "./wav.ts";
import { base64 } from "../../util/base64.ts";

/** The audio options, as the config names them. */
export interface AudioOptions {
  audioBatchSize: number;
  audioLengthMean: number;
  audioLengthStddev: number;
  audioFormat: "wav" | "mp3";
  audioDepths: string[];
  audioSampleRates: string[];
  audioNumChannels: 1 | 2;
}

/** The shortest clip (AIPerf redraws shorter lengths). */
export const MIN_AUDIO_SECONDS = 0.01;

/** The numbers of a list option, items possibly comma-separated. */
export function listNumbers(list: readonly string[]): number[] {
  return list.flatMap((s) => s.split(",")).map((s) => s.trim()).filter(Boolean).map(Number);
}

/** `length` seconds of noise at `rate`, interleaved over `channels`, from `rand`. */
export function noiseSamples(
  rand: MediaRandom,
  seconds: number,
  rate: number,
  channels: number,
): Float32Array {
  const out = new Float32Array(Math.round(seconds * rate) * channels);
  for (let i = 0; i < out.length; i++) out[i] = Math.max(-1, Math.min(1, rand.gauss() * 0.3));
  return out;
}

/** Draws the audio clips of a run, one request's batch at a time. */
export class AudioMaker {
  #rates: number[];
  #depths: (8 | 16 | 24 | 32)[];

  constructor(readonly opts: AudioOptions, readonly rand: MediaRandom) {
    this.#rates = listNumbers(opts.audioSampleRates).map((k) => Math.round(k * 1000));
    this.#depths = listNumbers(opts.audioDepths) as (8 | 16 | 24 | 32)[];
  }

  /** One clip as `format,base64`. */
  one(): string {
    const o = this.opts;
    const seconds = this.rand.normalAtLeast(
      o.audioLengthMean,
      o.audioLengthStddev,
      MIN_AUDIO_SECONDS,
    );
    const rate = this.rand.pick(this.#rates);
    const depth = this.rand.pick(this.#depths);
    const samples = noiseSamples(this.rand, seconds, rate, o.audioNumChannels);
    const bytes = o.audioFormat === "mp3"
      ? encodeMp3(samples, rate, o.audioNumChannels)
      : writeWav(samples, rate, o.audioNumChannels, depth);
    return `${o.audioFormat},${base64(bytes)}`;
  }

  /** A request's clips (`--audio-batch-size` of them). */
  batch(): string[] {
    return Array.from({ length: this.opts.audioBatchSize }, () => this.one());
  }
}
