/**
 * Metrics of the media endpoints' answers, named as AIPerf names them: the images an answer
 * carried (`num_images`) and the rate and latency per image they give (`image_throughput`,
 * `image_latency`); a video job's server-reported generation time and peak memory
 * (`video_inference_time`, `video_peak_memory`). Each applies only to requests whose answer
 * said it: the records of other endpoints have none of them.
 */

import { AT, type MetricDef, NS_PER_S, num } from "./metric_def.ts";
import type { RequestRecord } from "../record/record.ts";

/** Images in the request's answer; undefined when it carried none. */
function images(rec: RequestRecord): number | undefined {
  const n = rec.media?.images;
  return n === undefined || n <= 0 ? undefined : n;
}

/** Images the answer carried (generated or edited). */
export const NUM_IMAGES: MetricDef = {
  tag: "num_images",
  header: "Number of Images",
  unit: "images",
  displayUnit: "images",
  kind: "record",
  flags: ["no_console"],
  displayOrder: 859,
  record: (rec) => images(rec),
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
  record: (rec, m) => {
    const n = images(rec);
    const lat = num(m, AT.latency);
    return n === undefined || lat === undefined || lat <= 0 ? undefined : n / (lat / NS_PER_S);
  },
};

/** The request's latency per image. */
export const IMAGE_LATENCY: MetricDef = {
  tag: "image_latency",
  header: "Image Latency",
  unit: "ms/image",
  displayUnit: "ms/image",
  kind: "record",
  flags: [],
  displayOrder: 861,
  record: (rec, m) => {
    const n = images(rec);
    const lat = num(m, AT.latency);
    return n === undefined || lat === undefined ? undefined : lat / 1e6 / n;
  },
};

/** The video's generation time as the server reported it (`inference_time_s`). */
export const VIDEO_INFERENCE_TIME: MetricDef = {
  tag: "video_inference_time",
  header: "Video Inference Time",
  unit: "ns",
  displayUnit: "ms",
  kind: "record",
  flags: [],
  displayOrder: 310,
  record: (rec) => {
    const s = rec.media?.videoInferenceS;
    return s === undefined ? undefined : s * NS_PER_S;
  },
};

/** The generation's peak GPU memory as the server reported it (`peak_memory_mb`). */
export const VIDEO_PEAK_MEMORY: MetricDef = {
  tag: "video_peak_memory",
  header: "Video Peak Memory",
  unit: "MB",
  displayUnit: "MB",
  kind: "record",
  flags: [],
  displayOrder: 311,
  record: (rec) => rec.media?.videoPeakMemoryMb,
};

/** The media answer metrics, in table order. */
export const MEDIA_ANSWER_METRICS: readonly MetricDef[] = [
  NUM_IMAGES,
  IMAGE_THROUGHPUT,
  IMAGE_LATENCY,
  VIDEO_INFERENCE_TIME,
  VIDEO_PEAK_MEMORY,
];
