/**
 * OpenAI videos (`/v1/videos`, also SGLang's diffusion server): generating a video is a job.
 * `POST /v1/videos` submits it and answers with its id and status (`queued`); `GET
 * /v1/videos/{id}` tells its status until `completed` or `failed`; `GET /v1/videos/{id}/content`
 * gives the video. The endpoint reads each of these answers; the polling itself is the answer
 * layer's (answer/media_exchange.ts), driven by {@link VideoJob}. The server's own figures
 * (`inference_time_s`, `peak_memory_mb`) become `video_inference_time` and `video_peak_memory`.
 */

import type { Endpoint, FormatOptions, Parsed, SseEvent, TurnInput, VideoJob } from "./types.ts";
import { errorIn, expectObject, type JsonObject } from "./json.ts";
import type { MediaAnswer } from "../record/record.ts";
import { messageOf } from "./server_message.ts";
import { normalizeUsage } from "./usage.ts";
import { withExtras } from "./format.ts";
import { mediaPrompt } from "./image_generation.ts";

/** AIPerf's default seconds between status polls (`AIPERF_HTTP_VIDEO_POLL_INTERVAL`). */
export const DEFAULT_VIDEO_POLL_S = 0.1;

/** A video body: `{prompt, model}`, then `--extra-inputs` (`size`, `seconds`, `seed`, …). */
export function formatVideoPayload(turn: TurnInput, opts: FormatOptions): JsonObject {
  return withExtras({ prompt: mediaPrompt("video_generation", turn), model: opts.model }, opts);
}

function finite(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/**
 * Reads a video job answer (the submission or a status): `{id, object: "video", status,
 * progress, error, inference_time_s?, peak_memory_mb?}`. A `failed` job is an error; throws on
 * an answer without an id and a status.
 */
export function parseVideoJob(json: unknown): Parsed {
  const obj = expectObject(json, "the answer");
  if (typeof obj.id !== "string" || typeof obj.status !== "string") {
    const error = errorIn(obj);
    if (error) return { error };
    throw new Error('expected a video job with an "id" and a "status"');
  }
  const media: MediaAnswer = { videoId: obj.id, videoStatus: obj.status };
  const inference = finite(obj.inference_time_s);
  if (inference !== undefined) media.videoInferenceS = inference;
  const memory = finite(obj.peak_memory_mb);
  if (memory !== undefined) media.videoPeakMemoryMb = memory;
  if (obj.status === "failed") {
    const why = obj.error === null || obj.error === undefined ? undefined : messageOf(obj.error);
    return {
      error: { message: `the video job ${obj.id} failed: ${why ?? "the server gave no reason"}` },
      media,
    };
  }
  const out: Parsed = { answered: true, media };
  const usage = normalizeUsage(obj.usage);
  if (usage) out.usage = usage;
  return out;
}

/** True for a job status after which nothing changes. */
export function jobEnded(status: string | undefined): boolean {
  return status === "completed" || status === "failed" || status === "cancelled" ||
    status === "expired";
}

/** The `video_generation` endpoint following each job as `job` says. */
export function createVideoEndpoint(job: VideoJob): Endpoint {
  return {
    type: "video_generation",
    path: "/v1/videos",
    supportsStreaming: false,
    metricsTitle: "Video Generation Metrics",
    producesTokens: false,
    formatPayload: formatVideoPayload,
    parseResponse: parseVideoJob,
    parseEvent(event: SseEvent): Parsed | null {
      return event.data === "" ? null : parseVideoJob(JSON.parse(event.data));
    },
    job,
  };
}

/** The `video_generation` endpoint type with AIPerf's defaults: polls every 0.1 s, no download. */
export const videoGenerationEndpoint: Endpoint = createVideoEndpoint({
  pollIntervalMs: DEFAULT_VIDEO_POLL_S * 1000,
  download: false,
});
