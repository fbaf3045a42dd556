/**
 * The per-request record: raw facts stamped where they happen, with no derived numbers.
 * Workers produce records; metrics are pure functions of them.
 */

/** Server-reported token counts, normalized from whichever vendor field names the server used. */
export interface Usage {
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
  reasoningTokens?: number;
  /** Prompt tokens read from the server's prompt cache (included in `promptTokens`). */
  promptCacheReadTokens?: number;
  /** Prompt tokens written to the server's prompt cache (Anthropic cache creation, Bedrock cache write). */
  promptCacheWriteTokens?: number;
  /** Prompt tokens that missed the cache (DeepSeek). */
  promptCacheMissTokens?: number;
  /** Audio tokens of the prompt (`prompt_tokens_details.audio_tokens`). */
  promptAudioTokens?: number;
  /** Audio tokens of the answer (`completion_tokens_details.audio_tokens`). */
  completionAudioTokens?: number;
  /** Seconds of prompt audio (Mistral's `prompt_audio_seconds`). */
  promptAudioSeconds?: number;
}

/**
 * What an answer of the media endpoints says beyond text: the images it generated, a video
 * job's outcome as the server reports it. Absent on the records of every other endpoint.
 */
export interface MediaAnswer {
  /** Images generated (image generation and editing): `data[]` items or completed events. */
  images?: number;
  /** The video job's id (`POST /v1/videos`). */
  videoId?: string;
  /** The video job's last status (`queued`, `in_progress`, `completed`, `failed`). */
  videoStatus?: string;
  /** Server-reported generation time of the video in seconds (SGLang's `inference_time_s`). */
  videoInferenceS?: number;
  /** Server-reported peak GPU memory of the generation in MB (SGLang's `peak_memory_mb`). */
  videoPeakMemoryMb?: number;
  /** Bytes of the generated video downloaded (`--download-video-content`). */
  videoBytes?: number;
}

/** Why a request failed. `type` groups errors in the summary. */
export interface RecordError {
  /** HTTP status, or a pseudo-code: 499 cancelled, 502 SSE error event, 0 no HTTP answer. */
  code: number;
  /** `HTTPError`, `ConnectionError`, `Timeout`, `InvalidResponse`, `StreamTruncated`, `SSEError`, `EmptyResponse`, `Cancelled`. */
  type: string;
  message: string;
}

/** The benchmark phase a request belongs to. */
export type Phase = "warmup" | "profiling";

/** One request, as the Worker saw it. Times after `startNs` are whole nanoseconds after it. */
export interface RequestRecord {
  phase: Phase;
  workerId: number;
  /** The n-th conversation started in this run (0-based). */
  sessionNum: number;
  /** Index of the conversation in the dataset. */
  conversationIndex: number;
  /** The dataset's session id. */
  conversationId: string;
  turnIndex: number;
  /** `X-Request-ID` sent with the request. */
  requestId: string;
  /** `X-Correlation-ID` sent with every turn of this session. */
  correlationId: string;
  /** When the request was meant to be sent (epoch ns); null in closed-loop concurrency mode. */
  intendedStartNs: bigint | null;
  /** When the request was sent (epoch ns). */
  startNs: bigint;
  /** Response headers received, ns after start; null when none came. */
  ackNs: number | null;
  /** Last byte read or failure, ns after start. */
  endNs: number;
  /**
   * Arrival of each response carrying content (text or reasoning), ns after start. A Worker's
   * records cross to the main thread packed (record_batch.ts), where these are views into the
   * batch's one Float64Array.
   */
  responseNs: Float64Array | number[];
  /**
   * Per response in `responseNs`: true (1) when it carried reasoning only (no output text).
   * Null when none did, which is the common case.
   */
  responseReasoning: Uint8Array | boolean[] | null;
  /** Output text, joined over all responses. */
  outputText: string;
  /** Reasoning text, joined over all responses. */
  reasoningText: string;
  usage: Usage | null;
  /** What a media endpoint's answer said (images generated, the video job); absent otherwise. */
  media?: MediaAnswer;
  httpStatus: number | null;
  error: RecordError | null;
  cancelled: boolean;
  /** Which `--url` the request went to (0-based), when several were given. */
  urlIndex?: number;
  /** The shard that sent it (`--shard`), in a sharded run. */
  shard?: number;
  /**
   * With `--export-http-trace`: ns this request spent opening its connection (0 when it took one
   * already open), as the HTTP/1.1 client tells it; absent otherwise.
   */
  connectNs?: number;
  /** With `--export-http-trace`: the connection had carried an earlier request. */
  connectionReused?: boolean;
}
