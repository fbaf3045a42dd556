/**
 * Exchanges of the media endpoints that are more than one request and one answer: an image
 * edit's JSON body sent as a multipart form (`Endpoint.encodeBody`), and a video job followed to
 * its end (`Endpoint.job`): submitted through the run's transport, its status polled, its video
 * downloaded on request. The record spans it all: from the submission to the job's end (or the
 * download's), its one response at that end.
 *
 * The transports of other endpoints are left as they are: the requests of text endpoints take no
 * extra step.
 */

import type { Endpoint } from "../endpoints/types.ts";
import { jobEnded } from "../endpoints/video_generation.ts";
import { serverMessage } from "../endpoints/server_message.ts";
import type { MediaAnswer, RecordError } from "../record/record.ts";
import { errorText } from "../transport/wire.ts";
import { mergeMedia } from "./apply.ts";
import type { Transport } from "./client.ts";
import { BAD_ANSWER, ErrorType, excerpt } from "./failure.ts";
import { emptyResult, recycleResult, type SendOptions, type SendResult } from "./result.ts";

const utf8 = new TextDecoder();

/**
 * The transport to send `endpoint`'s requests on: `transport` itself for every endpoint but
 * those whose exchange is more than one request (a form to encode, a job to follow).
 */
export function endpointTransport(transport: Transport, endpoint: Endpoint): Transport {
  if (endpoint.encodeBody === undefined && endpoint.job === undefined) return transport;
  const out: Transport = {
    send: (opts) =>
      endpoint.job !== undefined ? followJob(transport, opts) : sendEncoded(transport, opts),
    close: () => transport.close(),
  };
  if (transport.waiting !== undefined) out.waiting = () => transport.waiting!();
  if (transport.endSession !== undefined) out.endSession = (s) => transport.endSession!(s);
  return out;
}

/** The request's headers without `name` (in any case). */
function headersWithout(headers: Record<string, string>, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== name) out[k] = v;
  return out;
}

/** A result that failed before anything was sent. */
function failedBeforeSending(error: RecordError): SendResult {
  const r = emptyResult();
  r.startPerf = r.endPerf = performance.now();
  r.error = error;
  return r;
}

/** Sends the body as the endpoint encodes it (an image edit's form), with its Content-Type. */
async function sendEncoded(inner: Transport, opts: SendOptions): Promise<SendResult> {
  let encoded: { body: Uint8Array; contentType: string };
  try {
    const json = typeof opts.body === "string" ? opts.body : utf8.decode(opts.body);
    encoded = await opts.endpoint.encodeBody!(json);
  } catch (e) {
    return failedBeforeSending({
      code: 0,
      type: "InvalidRequest",
      message: `the body cannot be sent as a form: ${errorText(e)}`,
    });
  }
  const headers = headersWithout(opts.headers, "content-type");
  headers["Content-Type"] = encoded.contentType;
  return await inner.send({ ...opts, headers, body: encoded.body });
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** What the submission said, copied out of its result (which goes back to the transport). */
interface Job {
  startPerf: number;
  ackPerf: number | null;
  httpStatus: number | null;
  media: MediaAnswer;
  usage: SendResult["usage"];
}

/** The job's outcome as the record's result, its one response at `endPerf` unless it failed. */
function jobResult(
  job: Job,
  endPerf: number,
  error: RecordError | null,
  cancelled = false,
): SendResult {
  return {
    startPerf: job.startPerf,
    ackPerf: job.ackPerf,
    endPerf,
    responsePerf: error === null ? Float64Array.of(endPerf) : new Float64Array(0),
    responseReasoning: null,
    outputText: "",
    reasoningText: "",
    usage: job.usage,
    httpStatus: job.httpStatus,
    error,
    cancelled,
    media: job.media,
  };
}

/** One GET of the job (its status or its video), bounded by the request's deadline and signal. */
async function get(
  url: string,
  headers: Record<string, string>,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<Response> {
  const left = Math.max(1, deadline - performance.now());
  const timeout = Number.isFinite(left) ? AbortSignal.timeout(Math.min(left, 2 ** 31 - 1)) : null;
  const signals = [signal, timeout].filter((s): s is AbortSignal => s != null);
  return await fetch(url, {
    headers,
    redirect: "manual",
    signal: signals.length === 0 ? undefined : AbortSignal.any(signals),
  });
}

/**
 * Submits a video job through `inner`, polls `GET {url}/{id}` every `pollIntervalMs` until the
 * job ended, then (with `download`) reads `GET {url}/{id}/content` whole. Never throws.
 */
async function followJob(inner: Transport, opts: SendOptions): Promise<SendResult> {
  const submitted = await inner.send(opts);
  if (submitted.error !== null || submitted.cancelled) return submitted;
  const { pollIntervalMs, download } = opts.endpoint.job!;
  const job: Job = {
    startPerf: submitted.startPerf,
    ackPerf: submitted.ackPerf,
    httpStatus: submitted.httpStatus,
    media: submitted.media === null ? {} : { ...submitted.media },
    usage: submitted.usage,
  };
  recycleResult(submitted);
  const id = job.media.videoId;
  if (id === undefined) {
    return jobResult(job, performance.now(), {
      code: BAD_ANSWER,
      type: ErrorType.PROTOCOL,
      message: "the video job's submission carried no id",
    });
  }
  const timeoutMs = opts.timeoutMs > 0 ? opts.timeoutMs : Infinity;
  const deadline = job.startPerf + timeoutMs;
  const headers = headersWithout(opts.headers, "content-type");
  const base = `${opts.url.replace(/\/+$/, "")}/${encodeURIComponent(id)}`;
  const signal = opts.signal;
  const stopped = (): SendResult | null => {
    const now = performance.now();
    if (signal?.aborted) {
      return jobResult(job, now, {
        code: 499,
        type: ErrorType.CANCELLED,
        message: "request cancelled",
      }, true);
    }
    if (now >= deadline) {
      return jobResult(job, now, {
        code: 408,
        type: ErrorType.TIMEOUT,
        message: `the video job did not end within ${timeoutMs} ms (last status: ${
          job.media.videoStatus ?? "unknown"
        })`,
      });
    }
    return null;
  };
  try {
    while (!jobEnded(job.media.videoStatus)) {
      await pause(Math.min(pollIntervalMs, Math.max(0, deadline - performance.now())), signal);
      const stop = stopped();
      if (stop !== null) return stop;
      const res = await get(base, headers, deadline, signal);
      const text = await res.text();
      if (!res.ok) {
        return jobResult(job, performance.now(), {
          code: res.status,
          type: ErrorType.HTTP,
          message: `polling the video job: ${serverMessage(text) || res.statusText}`,
        });
      }
      let parsed;
      try {
        parsed = opts.endpoint.parseResponse(JSON.parse(text));
      } catch (e) {
        return jobResult(job, performance.now(), {
          code: BAD_ANSWER,
          type: ErrorType.PROTOCOL,
          message: `unreadable video job status (${errorText(e)}): ${excerpt(text)}`,
        });
      }
      if (parsed.media) job.media = mergeMedia(job.media, parsed.media);
      if (parsed.usage) job.usage = parsed.usage;
      if (parsed.error) {
        return jobResult(job, performance.now(), {
          code: parsed.error.code ?? BAD_ANSWER,
          type: "VideoJobFailed",
          message: parsed.error.message,
        });
      }
    }
    if (job.media.videoStatus !== "completed") {
      return jobResult(job, performance.now(), {
        code: BAD_ANSWER,
        type: "VideoJobFailed",
        message: `the video job ${id} ended ${job.media.videoStatus}`,
      });
    }
    if (download) {
      const res = await get(`${base}/content`, headers, deadline, signal);
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (!res.ok) {
        return jobResult(job, performance.now(), {
          code: res.status,
          type: ErrorType.HTTP,
          message: `downloading the video: ${serverMessage(utf8.decode(bytes)) || res.statusText}`,
        });
      }
      job.media.videoBytes = bytes.length;
    }
    return jobResult(job, performance.now(), null);
  } catch (e) {
    const stop = stopped();
    if (stop !== null) return stop;
    return jobResult(job, performance.now(), {
      code: 0,
      type: ErrorType.RESET,
      message: `following the video job failed: ${errorText(e)}`,
    });
  }
}
