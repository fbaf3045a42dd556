/**
 * What media a request body carries, read from the body itself: how many images, and how many
 * seconds of audio (from each clip's own header). The media metrics read it for every dataset
 * entry (once), whichever way the body was made (synthetic, a file dataset, a replayed payload);
 * the mock reads it to check what it received.
 */

import { Buffer } from "node:buffer";
import { mp3Info } from "./mp3_info.ts";
import { type AudioInfo, wavInfo } from "./wav.ts";

/** The media of one request body. */
export interface BodyMedia {
  /** Images, in any API's shape (`image_url`, `input_image`, Anthropic `image`). */
  images: number;
  /** Seconds of input audio, summed over the clips whose length could be read. */
  audioSeconds: number;
  /** Audio clips. */
  audios: number;
  /** Videos (`video_url`). */
  videos: number;
}

/** Whether a body's text may hold media: a cheap look before parsing it. */
export function mayHoldMedia(body: string): boolean {
  return body.includes('"image') || body.includes('"input_audio"') ||
    body.includes('"input_image"') || body.includes('"video_url"');
}

/** The header of an audio clip (`data` base64, `format` wav or mp3); throws when unreadable. */
export function audioInfo(data: string, format: string): AudioInfo {
  const bytes = new Uint8Array(Buffer.from(data, "base64"));
  return format === "mp3" ? mp3Info(bytes) : wavInfo(bytes);
}

/** Each content part of the messages or input items of a body (chat, Responses, Anthropic). */
export function contentParts(body: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (body === null || typeof body !== "object") return out;
  const b = body as Record<string, unknown>;
  for (const key of ["messages", "input"]) {
    const list = b[key];
    if (!Array.isArray(list)) continue;
    for (const m of list) {
      const content = (m as Record<string, unknown> | null)?.content;
      if (Array.isArray(content)) {
        for (const p of content) {
          if (p && typeof p === "object") out.push(p as Record<string, unknown>);
        }
      } else if (m && typeof m === "object" && typeof (m as { type?: unknown }).type === "string") {
        // A Responses input item may itself be a part.
        out.push(m as Record<string, unknown>);
      }
    }
  }
  return out;
}

/**
 * The media a parsed body carries, or null when it has none. Audio whose header cannot be
 * read counts as a clip without a length.
 */
export function probeBody(body: unknown): BodyMedia | null {
  const media: BodyMedia = { images: 0, audioSeconds: 0, audios: 0, videos: 0 };
  for (const part of contentParts(body)) {
    const type = part.type;
    if (type === "image_url" || type === "input_image" || type === "image") media.images++;
    else if (type === "video_url") media.videos++;
    else if (type === "input_audio") {
      media.audios++;
      const clip = part.input_audio as { data?: unknown; format?: unknown } | undefined;
      if (typeof clip?.data !== "string") continue;
      try {
        media.audioSeconds += audioInfo(clip.data, String(clip.format ?? "wav")).durationS;
      } catch {
        // A clip that is not WAV or MP3 has no length to add.
      }
    }
  }
  return media.images + media.audios + media.videos > 0 ? media : null;
}
