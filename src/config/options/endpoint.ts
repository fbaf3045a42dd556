/** The Endpoint options of `profile`. */

import { z } from "zod";
import { headersProblem, headerValueProblem } from "../headers.ts";
import { compat, nonNegative, opt } from "./spec.ts";

/**
 * The Endpoint options of `profile`: the server, the API shape, auth, timeouts, and waiting
 * for the model.
 * Keys are the config field names.
 */
export const endpointOptions = {
  model: opt({
    flag: "model",
    short: "m",
    aliases: ["model-names"],
    kind: "string",
    schema: z.string().min(1),
    expect: "a model name",
    group: "Endpoint",
    help:
      "Model name, required (as in AIPerf) unless replayed payloads all carry their own `model`. Names the run and fills `model` in payloads reprise builds; replayed payloads keep their own.",
    metavar: "NAME",
  }),
  url: opt({
    flag: "url",
    short: "u",
    kind: "list",
    schema: z.array(z.string().min(1)).min(1),
    expect: "a URL such as http://localhost:8000",
    default: ["localhost:8000"],
    group: "Endpoint",
    help:
      "Server base URL; `http://` is prepended when no scheme is given. Repeat for several replicas (see --url-strategy).",
    metavar: "URL",
  }),
  endpointType: opt({
    flag: "endpoint-type",
    kind: "string",
    schema: z.string().min(1),
    expect: "an endpoint type",
    default: "chat",
    group: "Endpoint",
    help:
      "API shape: chat, completions, responses, messages, embeddings, chat_embeddings, nim_embeddings, nim_rankings, cohere_rankings, hf_tei_rankings, huggingface_generate, image_generation, image_edit, video_generation, raw, template.",
    metavar: "TYPE",
  }),
  endpoint: opt({
    flag: "endpoint",
    aliases: ["custom-endpoint"],
    kind: "string",
    schema: z.string().min(1),
    expect: "a URL path such as /v1/chat/completions",
    group: "Endpoint",
    help: "Override the endpoint type's URL path.",
    metavar: "PATH",
  }),
  streaming: opt({
    flag: "streaming",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Endpoint",
    help: "Request streamed answers (SSE); enables TTFT and ITL.",
  }),
  apiKey: opt({
    flag: "api-key",
    env: ["REPRISE_API_KEY"],
    kind: "string",
    schema: z.string().min(1),
    expect: "a non-empty key",
    group: "Endpoint",
    help: "Sent as `Authorization: Bearer <key>`. Never written anywhere.",
    metavar: "KEY",
    secret: true,
    check: (key) => headerValueProblem(key),
  }),
  header: opt({
    flag: "header",
    short: "H",
    kind: "list",
    schema: z.array(z.string()),
    expect: "`Name: value` or a JSON object",
    default: [],
    group: "Endpoint",
    help: "Extra request header, `Name: value` or JSON; repeatable.",
    metavar: "HEADER",
    check: (headers) => headersProblem(headers),
  }),
  requestTimeoutSeconds: opt({
    flag: "request-timeout-seconds",
    kind: "number",
    schema: z.number().positive(),
    expect: "a positive number of seconds",
    default: 21600,
    group: "Endpoint",
    help: "A request running longer than this fails with a timeout.",
    metavar: "S",
  }),
  useServerTokenCount: opt({
    flag: "use-server-token-count",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Endpoint",
    help:
      "Count tokens from the server's `usage` only (the tokenizer is not used when usage is there).",
  }),
  useLegacyMaxTokens: opt({
    flag: "use-legacy-max-tokens",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Endpoint",
    help:
      "Chat payloads reprise builds carry `max_tokens` instead of `max_completion_tokens` (Responses keeps `max_output_tokens`).",
  }),
  waitForModelTimeout: opt({
    flag: "wait-for-model-timeout",
    kind: "number",
    schema: nonNegative,
    expect: "a non-negative number of seconds",
    default: 0,
    group: "Endpoint",
    help:
      "Before the run, poll the server (GET /v1/models) until it answers, for at most this long; 0 skips.",
    metavar: "S",
  }),
  waitForModelInterval: opt({
    flag: "wait-for-model-interval",
    kind: "number",
    schema: z.number().positive(),
    expect: "a positive number of seconds",
    default: 1,
    group: "Endpoint",
    help: "Seconds between readiness polls (see --wait-for-model-timeout).",
    metavar: "S",
  }),
  // Several URLs, connection reuse, the session header and the request body's type.
  urlStrategy: opt<"round_robin">({
    flag: "url-strategy",
    kind: "string",
    schema: z.enum(["round_robin"]),
    expect: "round_robin",
    default: "round_robin",
    group: "Endpoint",
    help:
      "How requests are spread over several --url values: round_robin sends each request to the next URL in turn (a conversation's turns stay on one URL with sticky-user-sessions).",
    metavar: "STRATEGY",
  }),
  connectionReuseStrategy: opt<"pooled" | "never" | "sticky-user-sessions">({
    flag: "connection-reuse-strategy",
    kind: "string",
    schema: z.enum(["pooled", "never", "sticky-user-sessions"]),
    expect: "one of pooled, never, sticky-user-sessions",
    default: "pooled",
    group: "Endpoint",
    help:
      "pooled: keep-alive connections shared by all requests; never: a new connection per request, closed after it; sticky-user-sessions: one connection per conversation, all its turns on it (the http1 transport only).",
    metavar: "STRATEGY",
  }),
  sessionHeader: opt({
    flag: "session-header",
    kind: "string",
    schema: z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/),
    expect: "an HTTP header name",
    default: "X-Correlation-ID",
    group: "Endpoint",
    help: "Header carrying the conversation's id on each of its turns (session affinity).",
    metavar: "NAME",
  }),
  downloadVideoContent: opt({
    flag: "download-video-content",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Endpoint",
    help:
      "video_generation: once a video job completed, download the video (GET /v1/videos/{id}/content); the request's latency includes the download.",
  }),
  requestContentType: opt({
    flag: "request-content-type",
    kind: "string",
    schema: z.string().min(1),
    expect: "a content type such as application/json",
    default: "application/json",
    group: "Endpoint",
    help:
      "Content type of request bodies: application/json; image_edit always sends a multipart form (multipart/form-data is accepted for it only).",
    metavar: "TYPE",
  }),
} as const;

/**
 * AIPerf's Endpoint flags that reprise parses without their feature: one block, so that each
 * says in one place what it does here.
 */
export const endpointCompatOptions = {
  modelSelectionStrategy: compat<string>({
    flag: "model-selection-strategy",
    kind: "string",
    values: ["round_robin", "random", "weighted"],
    default: "round_robin",
    group: "Endpoint",
    help: "How requests pick one of several models.",
    status: "no-effect",
    why: "reprise benchmarks one model per run, so there is nothing to choose between",
  }),
  waitForModelMode: compat<string>({
    flag: "wait-for-model-mode",
    kind: "string",
    values: ["models", "inference", "both"],
    group: "Endpoint",
    help: "How readiness is probed: /v1/models, a 1-token inference, or both.",
    status: "not-yet",
    why: "reprise probes GET /v1/models only (mode `models`)",
    noop: (v) => v === "models",
  }),
  resetKvCache: compat<boolean>({
    flag: "reset-kv-cache",
    kind: "boolean",
    default: false,
    group: "Endpoint",
    help: "POST a KV-cache reset to the server before profiling.",
    status: "not-yet",
    why: "the KV-cache reset request is not built yet",
  }),
  resetKvCacheTimeoutSeconds: compat<number>({
    flag: "reset-kv-cache-timeout-seconds",
    kind: "number",
    group: "Endpoint",
    help: "Timeout of the KV-cache reset.",
    status: "not-yet",
    why: "the KV-cache reset request is not built yet",
  }),
  resetKvCachePath: compat<string>({
    flag: "reset-kv-cache-path",
    kind: "string",
    default: "/reset_prefix_cache",
    group: "Endpoint",
    help: "Path of the KV-cache reset.",
    status: "not-yet",
    why: "the KV-cache reset request is not built yet",
  }),
  serverProfiler: compat<boolean>({
    flag: "server-profiler",
    kind: "boolean",
    default: false,
    group: "Endpoint",
    help: "Start and stop the server's profiler around profiling.",
    status: "not-yet",
    why: "starting the server's profiler is not built yet",
  }),
  serverProfilerTimeoutSeconds: compat<number>({
    flag: "server-profiler-timeout-seconds",
    kind: "number",
    group: "Endpoint",
    help: "Timeout of the profiler requests.",
    status: "not-yet",
    why: "starting the server's profiler is not built yet",
  }),
  serverProfilerStartPath: compat<string>({
    flag: "server-profiler-start-path",
    kind: "string",
    default: "/start_profile",
    group: "Endpoint",
    help: "Path that starts the profiler.",
    status: "not-yet",
    why: "starting the server's profiler is not built yet",
  }),
  serverProfilerStopPath: compat<string>({
    flag: "server-profiler-stop-path",
    kind: "string",
    default: "/stop_profile",
    group: "Endpoint",
    help: "Path that stops the profiler.",
    status: "not-yet",
    why: "starting the server's profiler is not built yet",
  }),
  uuidAndStrip: opt({
    flag: "uuid-and-strip",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Endpoint",
    help:
      "Within a session, send an image whose image_uuids id was sent before as its id alone (vLLM's multimodal cache; chat, single_turn and multi_turn files).",
  }),
} as const;
