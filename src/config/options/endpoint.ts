/** The Endpoint options of `profile`. */

import { z } from "zod";
import { headersProblem, headerValueProblem } from "../headers.ts";
import { nonNegative, opt } from "./spec.ts";

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
    kind: "string",
    schema: z.string().min(1),
    expect: "a URL such as http://localhost:8000",
    default: "localhost:8000",
    group: "Endpoint",
    help: "Server base URL; `http://` is prepended when no scheme is given.",
    metavar: "URL",
  }),
  endpointType: opt({
    flag: "endpoint-type",
    kind: "string",
    schema: z.string().min(1),
    expect: "an endpoint type",
    default: "chat",
    group: "Endpoint",
    help: "API shape: chat, completions, responses, embeddings, messages, rankings, raw, ….",
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
} as const;
