/**
 * The mock's check of the media it receives: every image is decoded (its true format and size,
 * and whether that is the media type the request declared), every audio clip's header read (its
 * format as declared, rate, channels and length, and whether its data is all there), every video
 * recognised by its container's signature. What it found is counted in `/mock/stats` under
 * `media`, so a test can compare what reached the server with what the client meant to send.
 * Text-only bodies cost one substring search; the decoders load with the first media seen.
 */

import { Buffer } from "node:buffer";
import { contentParts, mayHoldMedia } from "../dataset/media/probe.ts";

/** What the mock found in the media it received. */
export interface MediaStats {
  /** Images by `format WIDTHxHEIGHT` (`png 512x512`). */
  images: Record<string, number>;
  /** Audio clips by `format RATEHz CHANNELSch SECONDSs` (`wav 16000Hz 1ch 5.000s`). */
  audios: Record<string, number>;
  /** Videos by container (`webm`, `mp4`). */
  videos: Record<string, number>;
  /** Media that did not decode, or was not what the request declared. */
  invalid: number;
  /** The first few problems, one line each. */
  problems: string[];
}

const MAX_PROBLEMS = 10;

type Decoders = {
  decodeImage: typeof import("../dataset/media/image_codec.ts").decodeImage;
  audioInfo: typeof import("../dataset/media/probe.ts").audioInfo;
};
let decoders: Decoders | null = null;

async function load(): Promise<Decoders> {
  if (!decoders) {
    const [{ decodeImage }, { audioInfo }] = await Promise.all([
      import("../dataset/media/image_codec.ts"),
      import("../dataset/media/probe.ts"),
    ]);
    decoders = { decodeImage, audioInfo };
  }
  return decoders;
}

/** What one item was found to be (a key of MediaStats), or a problem. */
type Finding = { kind: "images" | "audios" | "videos"; key: string } | { problem: string };

/** Findings by item, so that an item sent again is not decoded again. */
const seen = new Map<string, Finding>();
const SEEN_MAX = 4096;

/** A cheap identity of a long base64 string: its length and samples of its text. */
function identity(kind: string, s: string): string {
  const n = s.length;
  return `${kind}:${n}:${s.slice(0, 64)}:${s.slice(n >> 1, (n >> 1) + 64)}:${s.slice(-256)}`;
}

function bytesOf(base64: string): Uint8Array {
  return new Uint8Array(Buffer.from(base64, "base64"));
}

const IMAGE_TYPES: Record<string, string> = { png: "image/png", jpeg: "image/jpeg" };

function imageFinding(d: Decoders, declared: string, data: string): Finding {
  try {
    const img = d.decodeImage(bytesOf(data));
    if (declared && declared !== IMAGE_TYPES[img.format]) {
      return { problem: `an image declared ${declared} is ${img.format}` };
    }
    return { kind: "images", key: `${img.format} ${img.width}x${img.height}` };
  } catch (e) {
    return {
      problem: `an image (${declared || "no type"}) does not decode: ${(e as Error).message}`,
    };
  }
}

function audioFinding(d: Decoders, format: string, data: string): Finding {
  try {
    const bytes = bytesOf(data);
    const info = d.audioInfo(data, format);
    if (info.format === "wav" && info.bitsPerSample) {
      // The header's data length must all be there: a truncated clip is shorter than declared.
      const declared = new DataView(bytes.buffer).getUint32(40, true);
      if (bytes.length < 44 + declared) {
        return {
          problem: `a wav clip declares ${declared} data bytes and holds ${bytes.length - 44}`,
        };
      }
    }
    return {
      kind: "audios",
      key: `${info.format} ${info.sampleRate}Hz ${info.channels}ch ${info.durationS.toFixed(3)}s`,
    };
  } catch (e) {
    return { problem: `a ${format} clip does not decode: ${(e as Error).message}` };
  }
}

function videoFinding(declared: string, data: string): Finding {
  const head = bytesOf(data.slice(0, 64));
  const webm = head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3;
  const mp4 = String.fromCharCode(...head.subarray(4, 8)) === "ftyp";
  const found = webm ? "webm" : mp4 ? "mp4" : undefined;
  if (!found) return { problem: `a video (${declared || "no type"}) is neither WebM nor MP4` };
  if (declared && declared !== `video/${found}`) {
    return { problem: `a video declared ${declared} is ${found}` };
  }
  return { kind: "videos", key: found };
}

/** A `data:` URL's media type and base64 data, or undefined for a URL to fetch. */
function dataUrl(url: unknown): { type: string; data: string } | undefined {
  if (typeof url !== "string" || !url.startsWith("data:")) return undefined;
  const comma = url.indexOf(",");
  const meta = url.slice(5, comma);
  if (comma < 0 || !meta.endsWith(";base64")) return undefined;
  return { type: meta.slice(0, -7), data: url.slice(comma + 1) };
}

/**
 * Checks the media of a request body (`text` as received, `body` parsed) and counts what it found
 * in `stats.media`. URLs that are not `data:` URLs are not fetched, so not checked.
 */
export async function checkMedia(
  stats: { media?: MediaStats },
  text: string,
  body: unknown,
): Promise<void> {
  if (!mayHoldMedia(text)) return;
  const d = await load();
  for (const part of contentParts(body)) {
    let id: string;
    let find: () => Finding;
    const type = part.type;
    if (type === "image_url" || type === "input_image") {
      const url = type === "image_url"
        ? (part.image_url as { url?: unknown } | undefined)?.url
        : part.image_url;
      const du = dataUrl(url);
      if (!du) continue;
      id = identity(du.type, du.data);
      find = () => imageFinding(d, du.type, du.data);
    } else if (type === "image") {
      const src = part.source as { type?: unknown; media_type?: unknown; data?: unknown };
      if (src?.type !== "base64" || typeof src.data !== "string") continue;
      const data = src.data;
      const declared = String(src.media_type ?? "");
      id = identity(declared, data);
      find = () => imageFinding(d, declared, data);
    } else if (type === "input_audio") {
      const clip = part.input_audio as { data?: unknown; format?: unknown } | undefined;
      if (typeof clip?.data !== "string") continue;
      const data = clip.data;
      const format = String(clip.format ?? "wav");
      id = identity(format, data);
      find = () => audioFinding(d, format, data);
    } else if (type === "video_url") {
      const du = dataUrl((part.video_url as { url?: unknown } | undefined)?.url);
      if (!du) continue;
      id = identity(du.type, du.data);
      find = () => videoFinding(du.type, du.data);
    } else continue;
    let finding = seen.get(id);
    if (!finding) {
      finding = find();
      if (seen.size >= SEEN_MAX) seen.clear();
      seen.set(id, finding);
    }
    const media = stats.media ??= { images: {}, audios: {}, videos: {}, invalid: 0, problems: [] };
    if ("problem" in finding) {
      media.invalid++;
      if (media.problems.length < MAX_PROBLEMS) media.problems.push(finding.problem);
    } else {
      media[finding.kind][finding.key] = (media[finding.kind][finding.key] ?? 0) + 1;
    }
  }
}
