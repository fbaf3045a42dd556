/**
 * WAV (RIFF, integer PCM): written exactly for synthetic audio, and read back (its header) to
 * know a clip's length, rate and channels: for the audio metrics and for the mock's checks.
 */

/** What a clip's header says. */
export interface AudioInfo {
  format: "wav" | "mp3";
  sampleRate: number;
  channels: number;
  /** Bits per sample (PCM); absent for compressed audio. */
  bitsPerSample?: number;
  /** Length in seconds. */
  durationS: number;
}

/**
 * Integer PCM WAV of `samples` (interleaved, each in [-1, 1]) at `bits` per sample: 8 is
 * unsigned, 16, 24 and 32 signed little-endian, as the format has it.
 */
export function writeWav(
  samples: Float32Array,
  sampleRate: number,
  channels: number,
  bits: 8 | 16 | 24 | 32,
): Uint8Array {
  const bytesPer = bits / 8;
  const dataLen = samples.length * bytesPer;
  const out = new Uint8Array(44 + dataLen + (dataLen & 1));
  const v = new DataView(out.buffer);
  const ascii = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
  };
  ascii(0, "RIFF");
  v.setUint32(4, out.length - 8, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true); // PCM
  v.setUint16(22, channels, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * channels * bytesPer, true);
  v.setUint16(32, channels * bytesPer, true);
  v.setUint16(34, bits, true);
  ascii(36, "data");
  v.setUint32(40, dataLen, true);
  let o = 44;
  for (let i = 0; i < samples.length; i++, o += bytesPer) {
    const s = Math.max(-1, Math.min(1, samples[i]));
    if (bits === 8) out[o] = Math.round(s * 127) + 128;
    else if (bits === 16) v.setInt16(o, Math.round(s * 32767), true);
    else if (bits === 24) {
      const x = Math.round(s * 8388607);
      out[o] = x & 0xff;
      out[o + 1] = (x >> 8) & 0xff;
      out[o + 2] = (x >> 16) & 0xff;
    } else v.setInt32(o, Math.round(s * 2147483647), true);
  }
  return out;
}

/**
 * The header of a WAV file: rate, channels, bits and length (from the `data` chunk's size).
 * Throws an `Error` when the bytes are not a PCM WAV file.
 */
export function wavInfo(bytes: Uint8Array): AudioInfo {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") {
    throw new Error("not a WAV file (no RIFF/WAVE header)");
  }
  let fmt: { channels: number; rate: number; blockAlign: number; bits: number } | undefined;
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = tag(at);
    const size = v.getUint32(at + 4, true);
    if (id === "fmt ") {
      fmt = {
        channels: v.getUint16(at + 10, true),
        rate: v.getUint32(at + 12, true),
        blockAlign: v.getUint16(at + 20, true),
        bits: v.getUint16(at + 22, true),
      };
    } else if (id === "data") {
      if (!fmt) throw new Error("WAV data comes before its fmt chunk");
      const len = Math.min(size, bytes.length - at - 8);
      return {
        format: "wav",
        sampleRate: fmt.rate,
        channels: fmt.channels,
        bitsPerSample: fmt.bits,
        durationS: len / fmt.blockAlign / fmt.rate,
      };
    }
    at += 8 + size + (size & 1);
  }
  throw new Error("WAV file without a data chunk");
}
