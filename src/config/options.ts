/**
 * Every option of every command, declared once: flag, aliases, env vars, default, group, help,
 * and the zod schema that validates it. The CLI parser, `--help`, validation errors,
 * `/api/config` and the OpenAPI document are all generated from these tables.
 */

import { z } from "zod";

/** How a raw command-line or environment string becomes a value. */
export type OptionKind = "string" | "number" | "boolean" | "list";

/** One option. `T` is the validated value's type. */
export interface OptionSpec<T = unknown> {
  /** The long flag without dashes (`request-count`). */
  flag: string;
  /** One-letter flag without the dash (`m`). */
  short?: string;
  /** Other long flags accepted for the same option (AIPerf's spellings). */
  aliases?: string[];
  /** Environment variables read when the flag is absent, first set wins. */
  env?: string[];
  kind: OptionKind;
  /** Validates the typed value (after string → number/boolean conversion). */
  schema: z.ZodType<T>;
  /** What a valid value is, for error messages: "must be <expect>". */
  expect: string;
  /** The value when neither flag nor env var is given; undefined means unset. */
  default?: T;
  /** Help section. */
  group: string;
  help: string;
  /** Placeholder for the value in help text. */
  metavar?: string;
  /** Never echoed: excluded from config dumps and redacted in the command line. */
  secret?: boolean;
}

/** Declares an option; keeps the value type attached to the spec. */
function opt<T>(spec: OptionSpec<T>): OptionSpec<T> {
  return spec;
}

const positiveInt = z.number().int().positive();
const nonNegative = z.number().nonnegative();
const fraction = z.number().min(0).max(1);

/** Options of `reprise profile`. Keys are the config field names. */
export const profileOptions = {
  model: opt({
    flag: "model",
    short: "m",
    aliases: ["model-names"],
    kind: "string",
    schema: z.string().min(1),
    expect: "a model name",
    group: "Endpoint",
    help:
      "Model name. Names the run and fills `model` in payloads reprise builds; replayed payloads keep their own.",
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
  inputFile: opt({
    flag: "input-file",
    kind: "string",
    schema: z.string().min(1),
    expect: "a file or directory path",
    group: "Input",
    help: "Dataset file or directory to replay.",
    metavar: "PATH",
  }),
  customDatasetType: opt({
    flag: "custom-dataset-type",
    kind: "string",
    schema: z.string().min(1),
    expect: "a dataset type",
    group: "Input",
    help: "Dataset format (raw_payload, inputs_json, …); detected when absent.",
    metavar: "TYPE",
  }),
  datasetSamplingStrategy: opt<"sequential" | "random" | "shuffle">({
    flag: "dataset-sampling-strategy",
    kind: "string",
    schema: z.enum(["sequential", "random", "shuffle"]),
    expect: "one of sequential, random, shuffle",
    default: "sequential",
    group: "Input",
    help: "Order in which conversations are taken from the dataset.",
    metavar: "STRATEGY",
  }),
  randomSeed: opt({
    flag: "random-seed",
    kind: "number",
    schema: z.number().int().nonnegative(),
    expect: "a non-negative integer",
    group: "Input",
    help: "Seed for sampling and anything random; chosen and recorded when absent.",
    metavar: "N",
  }),
  extraInputs: opt({
    flag: "extra-inputs",
    kind: "list",
    schema: z.array(z.string()),
    expect: "`key:value` or a JSON object",
    default: [],
    group: "Input",
    help: "Fields merged into payloads reprise builds (`key:value` or JSON); repeatable.",
    metavar: "KV",
  }),
  concurrency: opt({
    flag: "concurrency",
    kind: "number",
    schema: positiveInt,
    expect: "a positive integer",
    default: 1,
    group: "Load",
    help: "Conversations in flight at once.",
    metavar: "N",
  }),
  requestCount: opt({
    flag: "request-count",
    aliases: ["num-requests"],
    kind: "number",
    schema: positiveInt,
    expect: "a positive integer",
    group: "Load",
    help: "Stop issuing after this many requests (default: every payload of the dataset once).",
    metavar: "N",
  }),
  workersMax: opt({
    flag: "workers-max",
    aliases: ["max-workers"],
    kind: "number",
    schema: positiveInt,
    expect: "a positive integer",
    group: "Load",
    help: "Most Worker threads to run the slots on (default: the number of cores).",
    metavar: "N",
  }),
  apiPort: opt({
    flag: "api-port",
    env: ["REPRISE_API_PORT", "AIPERF_API_SERVER_PORT"],
    kind: "number",
    schema: z.number().int().min(0).max(65535),
    expect: "a port number from 0 to 65535",
    group: "Live API",
    help: "Serve the run's live API and Prometheus /metrics on this port (0 picks a free one).",
    metavar: "PORT",
  }),
  apiHost: opt({
    flag: "api-host",
    env: ["REPRISE_API_HOST", "AIPERF_API_SERVER_HOST"],
    kind: "string",
    schema: z.string().min(1),
    expect: "a host name or address",
    default: "127.0.0.1",
    group: "Live API",
    help: "Address the live API binds.",
    metavar: "HOST",
  }),
  apiLingerSeconds: opt({
    flag: "api-linger-seconds",
    kind: "number",
    schema: z.number().nonnegative(),
    expect: "a non-negative number of seconds",
    default: 5,
    group: "Live API",
    help: "Keep the live API up this long after the run so scrapers can read the final results.",
    metavar: "S",
  }),
  statsInterval: opt({
    flag: "stats-interval",
    kind: "number",
    schema: z.number().positive(),
    expect: "a positive number of seconds",
    default: 1,
    group: "Live API",
    help: "How often live metrics (API, /metrics) are recomputed.",
    metavar: "S",
  }),
  artifactDir: opt({
    flag: "artifact-dir",
    aliases: ["output-artifact-dir"],
    kind: "string",
    schema: z.string().min(1),
    expect: "a directory path",
    default: "artifacts",
    group: "Output",
    help: "Root folder of the run's artifact directory.",
    metavar: "DIR",
  }),
  ui: opt<"progress" | "simple" | "none">({
    flag: "ui",
    aliases: ["ui-type"],
    kind: "string",
    schema: z.enum(["progress", "simple", "none"]),
    expect: "one of progress, simple, none",
    default: "progress",
    group: "Output",
    help: "Progress display on stderr: a live line on a terminal, plain lines, or nothing.",
    metavar: "MODE",
  }),
  verbose: opt({
    flag: "verbose",
    short: "v",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Output",
    help: "Log more detail to stderr.",
  }),
} as const;

/** Options of `reprise mock-server`. */
export const mockServerOptions = {
  host: opt({
    flag: "host",
    kind: "string",
    schema: z.string().min(1),
    expect: "a host name or address",
    default: "127.0.0.1",
    group: "Server",
    help: "Address to bind.",
    metavar: "HOST",
  }),
  port: opt({
    flag: "port",
    kind: "number",
    schema: z.number().int().min(0).max(65535),
    expect: "a port number from 0 to 65535",
    default: 8000,
    group: "Server",
    help: "Port to listen on (0 picks a free one).",
    metavar: "PORT",
  }),
  ttftMs: opt({
    flag: "ttft-ms",
    kind: "number",
    schema: nonNegative,
    expect: "a non-negative number of milliseconds",
    default: 0,
    group: "Timing",
    help: "Time to the first token.",
    metavar: "MS",
  }),
  itlMs: opt({
    flag: "itl-ms",
    kind: "number",
    schema: nonNegative,
    expect: "a non-negative number of milliseconds",
    default: 0,
    group: "Timing",
    help: "Time between tokens.",
    metavar: "MS",
  }),
  jitterMs: opt({
    flag: "jitter-ms",
    kind: "number",
    schema: nonNegative,
    expect: "a non-negative number of milliseconds",
    default: 0,
    group: "Timing",
    help: "Uniform ± jitter added to every delay.",
    metavar: "MS",
  }),
  outputTokens: opt({
    flag: "output-tokens",
    kind: "number",
    schema: positiveInt,
    expect: "a positive integer",
    default: 16,
    group: "Answers",
    help: "Tokens per answer when the request sets no maximum.",
    metavar: "N",
  }),
  reasoningTokens: opt({
    flag: "reasoning-tokens",
    kind: "number",
    schema: z.number().int().nonnegative(),
    expect: "a non-negative integer",
    default: 0,
    group: "Answers",
    help: "Reasoning tokens sent before the answer.",
    metavar: "N",
  }),
  errorRate: opt({
    flag: "error-rate",
    kind: "number",
    schema: fraction,
    expect: "a fraction from 0 to 1",
    default: 0,
    group: "Faults",
    help: "Share of requests answered with HTTP 500.",
    metavar: "P",
  }),
  dropRate: opt({
    flag: "drop-rate",
    kind: "number",
    schema: fraction,
    expect: "a fraction from 0 to 1",
    default: 0,
    group: "Faults",
    help: "Share of requests whose connection is closed without an answer.",
    metavar: "P",
  }),
  truncateRate: opt({
    flag: "truncate-rate",
    kind: "number",
    schema: fraction,
    expect: "a fraction from 0 to 1",
    default: 0,
    group: "Faults",
    help: "Share of streamed answers cut off half-way.",
    metavar: "P",
  }),
  seed: opt({
    flag: "seed",
    kind: "number",
    schema: z.number().int().nonnegative(),
    expect: "a non-negative integer",
    default: 0,
    group: "Faults",
    help: "Seed for fault injection and jitter.",
    metavar: "N",
  }),
} as const;

/** A table of options, keyed by config field name. */
export type OptionTable = Record<string, OptionSpec<unknown>>;

/** The validated values of a table: each field typed by its schema. */
export type ConfigOf<T extends OptionTable> = {
  [K in keyof T]: T[K] extends OptionSpec<infer V> ? V : never;
};

/** The validated `profile` configuration. Unset optional options are undefined. */
export type ProfileConfig = ConfigOf<typeof profileOptions>;

/** The validated `mock-server` configuration. */
export type MockServerConfig = ConfigOf<typeof mockServerOptions>;
