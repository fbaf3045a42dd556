/**
 * The length, rate and channels of an MP3 clip from its frame headers (for the audio metrics and
 * the mock's checks); no decoder needed.
 */

import type { AudioInfo } from "./wav.ts";

const BITRATES = {
  v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const RATES = [44100, 48000, 32000];

/**
 * Rate, channels and length of an MP3 (layer III) clip, by walking its frame headers (an ID3v2
 * tag is skipped). Throws an `Error` when no frame is found.
 */
export function mp3Info(bytes: Uint8Array): AudioInfo {
  let at = 0;
  if (bytes.length > 10 && bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) {
    at = 10 +
      ((bytes[6] & 0x7f) << 21 | (bytes[7] & 0x7f) << 14 | (bytes[8] & 0x7f) << 7 |
        (bytes[9] & 0x7f));
  }
  let samples = 0;
  let rate = 0;
  let channels = 0;
  while (at + 4 <= bytes.length) {
    const b1 = bytes[at + 1];
    const b2 = bytes[at + 2];
    if (bytes[at] !== 0xff || (b1 & 0xe0) !== 0xe0 || ((b1 >> 1) & 3) !== 1) {
      if (rate) break;
      at++;
      continue;
    }
    const version = (b1 >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
    const bitrateIdx = b2 >> 4;
    const rateIdx = (b2 >> 2) & 3;
    if (version === 1 || bitrateIdx === 0 || bitrateIdx === 15 || rateIdx === 3) {
      if (rate) break;
      at++;
      continue;
    }
    const v1 = version === 3;
    const sr = RATES[rateIdx] / (v1 ? 1 : version === 2 ? 2 : 4);
    const perFrame = v1 ? 1152 : 576;
    const kbps = (v1 ? BITRATES.v1 : BITRATES.v2)[bitrateIdx];
    const len = Math.floor((perFrame / 8) * kbps * 1000 / sr) + ((b2 >> 1) & 1);
    rate = sr;
    channels = (bytes[at + 3] >> 6) === 3 ? 1 : 2;
    samples += perFrame;
    at += len;
  }
  if (!rate) throw new Error("not an MP3 file (no frame header)");
  return { format: "mp3", sampleRate: rate, channels, durationS: samples / rate };
}
