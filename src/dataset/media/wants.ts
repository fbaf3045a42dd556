/**
 * Whether a run asks for synthetic media, and of which kind: read without loading any encoder,
 * so that a text-only run pays nothing for media.
 */

import type { AudioOptions } from "./audio.ts";
import type { ImageOptions } from "./images.ts";
import type { VideoOptions } from "./video.ts";

/** Every media option, as the config names them. */
export type MediaOptions = ImageOptions & AudioOptions & VideoOptions;

/** Whether the options ask for images: a width and a height, and at least one a request. */
export function wantsImages(o: ImageOptions): boolean {
  return o.imageWidthMean > 0 && o.imageHeightMean > 0 && o.imageBatchSize > 0;
}

/** Whether the options ask for audio: a length, and at least one clip a request. */
export function wantsAudio(o: AudioOptions): boolean {
  return o.audioLengthMean > 0 && o.audioBatchSize > 0;
}

/** Whether the options ask for videos: a width and a height, and at least one a request. */
export function wantsVideo(o: VideoOptions): boolean {
  return (o.videoWidth ?? 0) > 0 && (o.videoHeight ?? 0) > 0 && o.videoBatchSize > 0;
}

/** Whether the options ask for any media. */
export function wantsMedia(o: MediaOptions): boolean {
  return wantsImages(o) || wantsAudio(o) || wantsVideo(o);
}
