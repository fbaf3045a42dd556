/** MP3 through a well-kept encoder (@breezystack/lamejs). */

import { Mp3Encoder } from "@breezystack/lamejs";

/** MP3 of `samples` (interleaved, in [-1, 1]); `sampleRate` must be one MP3 allows. */
export function encodeMp3(samples: Float32Array, sampleRate: number, channels: 1 | 2): Uint8Array {
  const frames = samples.length / channels;
  const left = new Int16Array(frames);
  const right = channels === 2 ? new Int16Array(frames) : undefined;
  for (let i = 0; i < frames; i++) {
    left[i] = Math.round(Math.max(-1, Math.min(1, samples[i * channels])) * 32767);
    if (right) right[i] = Math.round(Math.max(-1, Math.min(1, samples[i * 2 + 1])) * 32767);
  }
  const enc = new Mp3Encoder(channels, sampleRate, channels === 2 ? 192 : 128);
  const parts: Uint8Array[] = [];
  const step = 1152 * 8;
  for (let i = 0; i < frames; i += step) {
    const l = left.subarray(i, i + step);
    parts.push(
      new Uint8Array(
        right ? enc.encodeBuffer(l, right.subarray(i, i + step)) : enc.encodeBuffer(l),
      ),
    );
  }
  parts.push(new Uint8Array(enc.flush()));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
