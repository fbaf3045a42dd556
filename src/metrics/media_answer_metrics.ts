/**
 * Metrics of the video generation endpoint's answers, named as AIPerf names them: a video job's
 * server-reported generation time and peak memory (`video_inference_time`,
 * `video_peak_memory`). Each applies only to requests whose answer said it. (The images an
 * answer carried count in `num_images`, media_metrics.ts.)
 */

import { type MetricDef, NS_PER_S } from "./metric_def.ts";

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
  VIDEO_INFERENCE_TIME,
  VIDEO_PEAK_MEMORY,
];
