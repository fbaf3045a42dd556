/** What every endpoint module provides: where requests go and how answers are read. */

import type { ChunkTemplate } from "./chunk_template.ts";
import type { Parsed, SseEvent, StreamState } from "./parsed.ts";

export type { Parsed, SseEvent, StreamState } from "./parsed.ts";

/** One turn of a conversation reprise builds a body for (synthetic prompts, single/multi-turn files). */
export interface TurnInput {
  /** The turn's texts; rankings read the first as the query and the rest as passages. */
  texts: string[];
  /** Image URLs or `data:` URLs. */
  images?: string[];
  /** Audio clips as `format,base64` (AIPerf's spelling), or bare base64 (taken as wav). */
  audios?: string[];
  /**
   * One id per image, in order (a dataset's `image_uuids`): chat sends each as its image part's
   * `uuid`, under which vLLM caches the processed image.
   */
  imageUuids?: string[];
  /** Video URLs or `data:` URLs (chat's `video_url`). */
  videos?: string[];
  /** The speaker of this turn; default "user". */
  role?: string;
  /** Most tokens to generate; absent leaves the server's default (Anthropic: 1024). */
  maxTokens?: number;
  /** System text: a system message, Responses' `instructions` or Anthropic's top-level `system`. */
  system?: string;
  /** Earlier messages of the conversation, oldest first. */
  history?: { role: string; content: string }[];
}

/** Run-wide settings that shape every body reprise builds. */
export interface FormatOptions {
  model: string;
  streaming: boolean;
  /** `--extra-inputs`: merged into the top level of every body last, so they win. */
  extraInputs: Record<string, unknown>;
  /** `--use-legacy-max-tokens`: chat sends `max_tokens` instead of `max_completion_tokens`. */
  useLegacyMaxTokens: boolean;
  /** `--use-server-token-count`: chat streaming asks for `stream_options.include_usage`. */
  useServerTokenCount: boolean;
}

/** How `--streaming` reaches a replayed body. */
export type StreamRequest =
  /** A top-level `"stream": true` (OpenAI, Anthropic). */
  | "key"
  /** The URL path alone (TGI's `/generate_stream`): the body is left as it is. */
  | "path"
  /** The body decides (raw): sent verbatim. */
  | "verbatim";

/** How a submitted job (a video) is followed to its end: the answer layer polls it. */
export interface VideoJob {
  /** Milliseconds between status polls. */
  pollIntervalMs: number;
  /** Download the video once the job completed (`--download-video-content`); its time counts. */
  download: boolean;
}

/** An API shape reprise can benchmark. */
export interface Endpoint {
  /** The `--endpoint-type` value. */
  type: string;
  /** Default URL path appended to the base URL (`/v1/chat/completions`). */
  path: string;
  supportsStreaming: boolean;
  /** The title of the console table. */
  metricsTitle: string;
  /** Reads a whole non-streaming response body. Throws on a body it cannot read. */
  parseResponse(json: unknown): Parsed;
  /**
   * Reads one SSE event; null for events that carry nothing (keep-alives, ignored types).
   * Throws on an event it cannot read (invalid JSON). `state` is fresh for each request.
   */
  parseEvent(event: SseEvent, state?: StreamState): Parsed | null;
  /**
   * Reading the commonest stream events in place, without parsing them (optional): the reader
   * takes the plain path, `parseEvent` for every event, without it or with `--plain-paths
   * text-template`.
   */
  fast?: EndpointFastPath;
  /** Reads a whole body as text, for answers that may not be JSON; replaces JSON.parse + parseResponse when present. */
  parseBody?(text: string): Parsed;
  /** URL path used when streaming, when it differs from `path` (TGI's `/generate_stream`). */
  streamingPath?: string;
  /** A stream must end with an event whose `Parsed.done` is true (`[DONE]`); otherwise it was truncated. */
  expectsDoneMarker?: boolean;
  /** False for answers that are not tokens (embeddings, rankings): a readable answer is a success. Default true. */
  producesTokens?: boolean;
  /** How `--streaming` reaches a replayed body; default "key". */
  streamRequest?: StreamRequest;
  /** The API takes videos in a turn (chat's `video_url`); others refuse a turn that has some. */
  takesVideo?: boolean;
  /** Builds the JSON body of one turn; absent for endpoints that only replay bodies (raw). Throws on a turn the API cannot carry. */
  formatPayload?(turn: TurnInput, opts: FormatOptions): Record<string, unknown>;
  /**
   * For an API that takes another body than the JSON kept (image edits take a multipart form):
   * the bytes to send for a JSON body, and their Content-Type. Throws on a body it cannot encode.
   */
  encodeBody?(json: string): Promise<{ body: Uint8Array; contentType: string }>;
  /** For an API whose answer is a job to follow (video generation): how it is followed. */
  job?: VideoJob;
}

/** True when a reading carries nothing but text (or nothing at all). */
export function textOnly(p: Parsed): boolean {
  return p.reasoning === undefined && p.usage === undefined && p.error === undefined &&
    p.done === undefined && p.answered === undefined && p.media === undefined;
}

/**
 * An endpoint's fast path for streams: its common text chunk read cheaply (`parseText`), the
 * chunk template its chunks match, read in place (`textTemplate`), and what lets a later answer
 * recognize an earlier one's events (`adoptTemplate`, `volatileKeys`). Each reading must agree
 * with `parseEvent`'s.
 */
export interface EndpointFastPath {
  /**
   * Reads the data of an event of type `event` ("" when untyped; never "error"), cheaply when it
   * is the endpoint's common text chunk: its text as a string ("" for none). Otherwise the
   * reading it already made (what parseEvent would give), or null for "read it with
   * parseEvent": a shortcut for the events that come by the thousand.
   */
  parseText(data: string, state: StreamState, event: string): string | Parsed | null;
  /**
   * The template the stream's text chunks have been seen to match, for reading them where they
   * lie in the read's text: an event of the template's type whose data is its prefix, plain JSON
   * text and its suffix (with any digits at its counter) has that text and nothing else, as
   * `parseText` would read it; undefined until a template is known.
   */
  textTemplate(state: StreamState): ChunkTemplate | undefined;
  /**
   * Makes `t` the stream's text template, as reading one of its chunks as text would have: the
   * reader recognized the stream's first text chunk, in place, as an instance of a template
   * an earlier answer's reading set (the same bytes but for its `volatileKeys` values and its
   * text; answer/known_events.ts). Optional; only with `textTemplate` and `volatileKeys`.
   */
  adoptTemplate?(state: StreamState, t: ChunkTemplate): void;
  /**
   * Top-level keys of a stream event's JSON whose values change from one answer to the next
   * without changing what the event means to `parseText` (an answer's id, its creation time):
   * an event that carries no text and equals one read before but for these values is taken to
   * mean the same (answer/known_events.ts). Only keys before the event's first object or
   * array value, with a string (without escapes) or number value, and only for an endpoint
   * whose `parseText` keeps no state but its text template. Optional.
   */
  volatileKeys?: readonly string[];
}
