/**
 * OpenAI's videos API as a job: `POST /v1/videos` queues a video and answers with its id;
 * `GET /v1/videos/{id}` tells its status (`queued` until the time to first token, `in_progress`
 * with its progress until the answer's time, then `completed` with SGLang's `inference_time_s`
 * and `peak_memory_mb`); `GET /v1/videos/{id}/content` gives the video once completed. The
 * video takes a token's time per second of video (`seconds`, default 4).
 */

import { completionTime, type Exchange, type MockContext, unixNow, useModel } from "./context.ts";
import { jsonReply, openaiError } from "./reply.ts";
import { scheduleFor } from "./context.ts";

/** One queued video. */
interface VideoJob {
  id: string;
  model: string;
  size: string;
  seconds: string;
  createdAt: number;
  /** When generation starts and ends (`performance.now()` ms). */
  startsAt: number;
  endsAt: number;
}

/** Jobs kept per server, the oldest dropped past this many. */
const MAX_JOBS = 10_000;

const JOBS = new WeakMap<MockContext, Map<string, VideoJob>>();

function jobsOf(ctx: MockContext): Map<string, VideoJob> {
  let jobs = JOBS.get(ctx);
  if (jobs === undefined) JOBS.set(ctx, jobs = new Map());
  return jobs;
}

/** A tiny MP4 (an `ftyp` box): what every video of the mock is. */
export const TINY_MP4: Uint8Array = new Uint8Array([
  0,
  0,
  0,
  24,
  0x66,
  0x74,
  0x79,
  0x70,
  0x69,
  0x73,
  0x6f,
  0x6d,
  0,
  0,
  2,
  0,
  0x69,
  0x73,
  0x6f,
  0x6d,
  0x6d,
  0x70,
  0x34,
  0x31,
]);

/** The job as the API shows it at `now`. */
function view(job: VideoJob, now: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: job.id,
    object: "video",
    model: job.model,
    created_at: job.createdAt,
    size: job.size,
    seconds: job.seconds,
    quality: "standard",
    error: null,
  };
  if (now < job.startsAt) {
    return { ...out, status: "queued", progress: 0, completed_at: null };
  }
  if (now < job.endsAt) {
    const progress = Math.floor((now - job.startsAt) / (job.endsAt - job.startsAt) * 100);
    return { ...out, status: "in_progress", progress, completed_at: null };
  }
  const inference = (job.endsAt - job.startsAt) / 1000;
  return {
    ...out,
    status: "completed",
    progress: 100,
    completed_at: unixNow(),
    expires_at: unixNow() + 3600,
    url: `/v1/videos/${job.id}/content`,
    inference_time_s: Math.round(inference * 1e6) / 1e6,
    peak_memory_mb: 1024,
  };
}

/** `POST /v1/videos`: queues the video and answers with the job, `queued`. */
export function createVideo(ctx: MockContext, ex: Exchange): Response {
  const body = ex.body;
  if (typeof body.prompt !== "string" || body.prompt === "") {
    return openaiError(400, "'prompt' is required.", undefined, "prompt");
  }
  const seconds = body.seconds === undefined ? "4" : String(body.seconds);
  const n = Number(seconds);
  if (!Number.isInteger(n) || n < 1 || n > 60) {
    return openaiError(
      400,
      "'seconds' must be a whole number of seconds from 1 to 60.",
      undefined,
      "seconds",
    );
  }
  const model = useModel(ctx, body);
  const times = scheduleFor(ctx, ex, 1);
  const job: VideoJob = {
    id: `video_${ctx.nextId()}`,
    model,
    size: typeof body.size === "string" ? body.size : "720x1280",
    seconds,
    createdAt: unixNow(),
    startsAt: times[0],
    endsAt: Math.max(times[0], completionTime(ctx, ex, n)),
  };
  const jobs = jobsOf(ctx);
  if (jobs.size >= MAX_JOBS) jobs.delete(jobs.keys().next().value!);
  jobs.set(job.id, job);
  return jsonReply(JSON.stringify(view(job, performance.now())));
}

/** `GET /v1/videos/{id}`: the job's status now. */
export function getVideo(ctx: MockContext, id: string): Response {
  const job = jobsOf(ctx).get(id);
  if (job === undefined) return openaiError(404, `No video found with id '${id}'.`);
  return jsonReply(JSON.stringify(view(job, performance.now())));
}

/** `GET /v1/videos/{id}/content`: the video, once the job completed. */
export function getVideoContent(ctx: MockContext, id: string): Response {
  const job = jobsOf(ctx).get(id);
  if (job === undefined) return openaiError(404, `No video found with id '${id}'.`);
  if (performance.now() < job.endsAt) {
    return openaiError(409, `Video '${id}' is not completed yet.`);
  }
  return new Response(TINY_MP4.slice(), { headers: { "content-type": "video/mp4" } });
}
