/**
 * Image and audio metrics (AIPerf's `num_images`, `image_throughput`, `image_latency`,
 * `audio_duration`, `rtfx`): per request, from the media its body carried
 * (`RecordContext.media`) and its latency. A request without images or audio has none of them.
 */

import { AT, type MetricDef, num, type RecordContext } from "./metric_def.ts";
import type { RequestRecord } from "../record/record.ts";

/**
 * The request's images: those its body sent, else those its answer carried (an image
 * generation or edit endpoint's output).
 */
function images(rec: RequestRecord, ctx: RecordContext): number | undefined {
  return ctx.media?.images || rec.media?.images || undefined;
}

/** Images the request sent, or its answer carried. */
export const NUM_IMAGES: MetricDef = {
  tag: "num_images",
  header: "Number of Images",
  unit: "images",
  displayUnit: "images",
  kind: "record",
  flags: ["no_console"],
  displayOrder: 859,
  record: (rec, _m, ctx) => images(rec, ctx),
};

/** Images per second of the request's latency. */
export const IMAGE_THROUGHPUT: MetricDef = {
  tag: "image_throughput",
  header: "Image Throughput",
  unit: "images/sec",
  displayUnit: "images/sec",
  kind: "record",
  flags: ["larger_is_better"],
  displayOrder: 860,
  record: (rec, m, ctx) => {
    const n = images(rec, ctx);
    const latency = num(m, AT.latency);
    return n && latency ? n / (latency / 1e9) : undefined;
  },
};

/** Milliseconds of the request's latency per image. */
export const IMAGE_LATENCY: MetricDef = {
  tag: "image_latency",
  header: "Image Latency",
  unit: "ms/image",
  displayUnit: "ms/image",
  kind: "record",
  flags: [],
  displayOrder: 861,
  record: (rec, m, ctx) => {
    const n = images(rec, ctx);
    const latency = num(m, AT.latency);
    return n && latency !== undefined ? latency / 1e6 / n : undefined;
  },
};

/** Seconds of input audio the request sent. */
export const AUDIO_DURATION: MetricDef = {
  tag: "audio_duration",
  header: "Audio Duration",
  unit: "sec",
  displayUnit: "sec",
  kind: "record",
  flags: ["no_console"],
  displayOrder: 870,
  record: (_rec, _m, ctx) => ctx.media?.audioSeconds || undefined,
};

/** Inverse real-time factor: seconds of audio per second of latency (10: ten times real time). */
export const RTFX: MetricDef = {
  tag: "rtfx",
  header: "Inverse Real-Time Factor (RTFx)",
  unit: "ratio",
  displayUnit: "ratio",
  kind: "record",
  flags: ["larger_is_better"],
  displayOrder: 850,
  record: (_rec, m, ctx) => {
    const seconds = ctx.media?.audioSeconds;
    const latency = num(m, AT.latency);
    return seconds && latency ? seconds / (latency / 1e9) : undefined;
  },
};

/** The media metrics, in dependency order (after request latency). */
export const MEDIA_METRICS: readonly MetricDef[] = [
  NUM_IMAGES,
  IMAGE_THROUGHPUT,
  IMAGE_LATENCY,
  AUDIO_DURATION,
  RTFX,
];
