/**
 * The run plan: every parameter of a `profile` run derived from the options and the dataset,
 * once and in one place, before anything has a side effect. A config error (a flag combination
 * that cannot run, a schedule the dataset cannot follow) is thrown here, before the artifact
 * directory, the Workers or the live API exist; what runs afterwards only reads the plan.
 */

import { join } from "node:path";
import { type ProfileConfig, profileOptions } from "../config/options.ts";
import { ConfigError } from "../config/parse.ts";
import { parseExtraInputs } from "../config/extra_inputs.ts";
import { redactConfig } from "../config/redact.ts";
import { defaultSampling } from "../dataset/sampling.ts";
import type { Dataset, Turn } from "../dataset/types.ts";
import { replayBody, type ReplayOptions } from "../endpoints/replay_body.ts";
import type { Endpoint } from "../endpoints/types.ts";
import { fdLimitWarning, readProcLimits } from "./fd_limit.ts";
import {
  http1Proxies,
  proxyBypassWarning,
  resolveTransport,
  type TransportKind,
} from "../transport/select.ts";
import type { Body } from "../util/body_store.ts";
import { FAST_PATHS } from "../util/fast_paths.ts";
import { endpointOptions } from "./endpoint_options.ts";
import {
  type BasePlan,
  type PhaseSpec,
  planPhases,
  poolSize,
  usesFixedSchedule,
} from "./phases.ts";
import type { PlannedConversation } from "./types.ts";
import { checkConflicts } from "./conflicts.ts";
import { checkFlagStatus, recordedConfig } from "./flag_status.ts";
import { checkLoadFlags, parseRateSeries, reuseStrategy } from "./load_flags.ts";
import { readEnv } from "../util/env.ts";
import {
  parseStartAt,
  resolveShard,
  shardPhases,
  shardRunDirName,
  type ShardSpec,
} from "./shard.ts";

/** A validated run: what every stage after planning reads, and nothing it has to work out. */
export interface RunPlan {
  /** The model named in the artifacts: `--model`, else the first body's, else `model`. */
  model: string;
  seed: number;
  sampling: PhaseSpec["plan"]["sampling"];
  /** Whether requests ask to stream: `--streaming` on an endpoint that can. */
  streaming: boolean;
  /** The dataset as the load sends it (bodies with streaming and usage options applied). */
  conversations: PlannedConversation[];
  /** Turns over every conversation. */
  totalTurns: number;
  /** Where the conversations came from, for the `--verbose` plan. */
  dataset: { type: string; source: string };
  /** `--transport`, `auto` decided. */
  transport: TransportKind;
  /** One line each: flags the run ignores because others override them (`checkConflicts`). */
  warnings: string[];
  /** One `--verbose` line per given flag that has no effect in reprise, saying why. */
  flagNotes: string[];
  /**
   * The warning for a proxy `--transport http1` cannot speak to (`https://`, SOCKS) and so
   * bypasses; null when none applies.
   */
  proxyWarning: string | null;
  /** The warning for a concurrency above the open-file limit (`fd_limit.ts`); null if none. */
  fdWarning: string | null;
  /** Worker threads. */
  workers: number;
  /** Whether the profiling phase replays recorded timestamps. */
  fixedSchedule: boolean;
  /** What every phase shares: target, endpoint, client, timeout, sampling, seed. */
  base: BasePlan;
  /** Warmup (when asked for), then profiling. */
  phases: PhaseSpec[];
  /** This run's artifact directory (`--artifact-dir`/<AIPerf's run name>); not created here. */
  runDir: string;
  /** The fast paths turned off (`--plain-paths`, `all` expanded). */
  plainPaths: string[];
  /** The config as the artifacts record it: secrets redacted, model, streaming, sampling resolved. */
  inputConfig: Record<string, unknown>;
  /** This process's part of a sharded run (`--shard`, `--shards`); null when it runs it all. */
  shard: ShardSpec | null;
  /** `--start-at` as epoch ms: when profiling starts; null: as soon as the run is ready. */
  startAtMs: number | null;
  /** `--clock-reference`: the live API the shard's clock is checked against; null: the server. */
  clockReference: string | null;
  /** `--start-barrier`: the live API whose barrier gives the start (without `--start-at`). */
  startBarrier: string | null;
}

/** Where requests go, as the command resolved it (`cli/target.ts`). */
export interface PlanTarget {
  /** Full request URL. */
  url: string;
  /** Every `--url` as a full request URL (several: requests are spread over them). */
  urls?: string[];
  headers: Record<string, string>;
  /** The secrets of the target (`targetSecrets`), scrubbed from every record's error. */
  secrets?: string[];
}

/** What a plan is built from. */
export interface PlanInput {
  config: ProfileConfig;
  dataset: Dataset;
  endpoint: Endpoint;
  target: PlanTarget;
  /** Config keys set on the command line or by env (not defaults). */
  given: ReadonlySet<string>;
  /** Cores the Workers may use. */
  cores: number;
  /** Reads an environment variable (proxy settings); default: the process's, without prompting. */
  env?: (name: string) => string | undefined;
  /** The text of `/proc/self/limits` (null where there is none); default: read it. */
  limits?: () => string | null;
  /** Reads a file the options name (`--request-rate-series`); default: from disk. */
  readText?: (path: string) => string;
}

/** Reads `--request-rate-series`; a file that cannot be read is a config error. */
function readSeries(path: string, read: (path: string) => string): [number, number][] {
  let text: string;
  try {
    text = read(path);
  } catch (e) {
    throw new ConfigError(`--request-rate-series ${path} cannot be read: ${(e as Error).message}`);
  }
  return parseRateSeries(text, path);
}

/**
 * Whether the run's requests stream: asked for, and the endpoint can. The dataset's builders and
 * the plan both read it from here.
 */
export function runStreaming(
  config: Pick<ProfileConfig, "streaming">,
  endpoint: Pick<Endpoint, "supportsStreaming">,
): boolean {
  return config.streaming && endpoint.supportsStreaming;
}

/**
 * AIPerf's run directory name: `<model>-openai-<endpoint>-<stimulus>`, the stimulus being
 * `concurrency<N>` or, for a request-rate run, `request_rate<R>`.
 */
export function runDirName(
  model: string,
  endpointType: string,
  concurrency: number,
  requestRate?: number,
): string {
  const safe = model.replace(/[^A-Za-z0-9._-]+/g, "_");
  const stimulus = requestRate === undefined
    ? `concurrency${concurrency}`
    : `request_rate${requestRate}`;
  return `${safe}-openai-${endpointType}-${stimulus}`;
}

/** `--model`, else the first body's `model`, else `model`: what the artifacts are named after. */
function modelOf(config: ProfileConfig, dataset: Dataset): string {
  if (config.model) return config.model;
  for (const c of dataset.conversations) {
    for (const t of c.turns) {
      try {
        const m = (JSON.parse(t.body) as { model?: unknown }).model;
        if (typeof m === "string" && m) return m;
      } catch { /* a body without a model names nothing */ }
    }
  }
  return "model";
}

/** The dataset as the load sends it: each body with what the endpoint needs added. */
export function plannedConversations(
  dataset: Dataset,
  endpoint: Endpoint,
  opts: { streaming: boolean; useServerTokenCount: boolean },
): PlannedConversation[] {
  return dataset.conversations.map((c) => ({
    sessionId: c.sessionId,
    // What each endpoint needs added for --streaming / --use-server-token-count; see replayBody.
    bodies: c.turns.map((t) => plannedBody(t, endpoint, opts)),
    delaysMs: c.turns.some((t) => t.delayMs) ? c.turns.map((t) => t.delayMs ?? 0) : undefined,
    timestampsMs: c.turns.some((t) => t.timestampMs !== undefined)
      ? c.turns.map((t) => t.timestampMs)
      : undefined,
    // Built multi-turn conversations: later turns carry the live answers (see dataset/build.ts).
    live: c.live,
  }));
}

/**
 * A turn's body as the load sends it: a stored body stays stored (its text is not kept) unless
 * `replayBody` changes it.
 */
function plannedBody(turn: Turn, endpoint: Endpoint, opts: ReplayOptions): Body {
  if (turn.stored === undefined) return replayBody(turn.body, endpoint, opts);
  if (!opts.streaming) return turn.stored;
  const text = turn.body;
  const sent = replayBody(text, endpoint, opts);
  return sent === text ? turn.stored : sent;
}

/** The fast paths `--plain-paths` turns off, `all` expanded to every one. */
export function resolvePlainPaths(names: readonly string[]): string[] {
  return names.includes("all") ? [...FAST_PATHS] : [...names];
}

/**
 * Builds the plan of a run; throws a `ConfigError` for options the run cannot follow. Pure but
 * for reading proxy variables (through `env`): nothing is created, started or sent.
 */
export function planRun(input: PlanInput): RunPlan {
  const { config, dataset, endpoint, target, given } = input;
  // A flag reprise cannot follow stops the run here, before anything else is worked out.
  const flagNotes = checkFlagStatus(profileOptions, config, given);
  const model = modelOf(config, dataset);
  const seed = config.randomSeed ?? Math.floor(Math.random() * 2 ** 31);
  const sampling = config.datasetSamplingStrategy ?? defaultSampling(dataset.type);
  const streaming = runStreaming(config, endpoint);
  const conversations = plannedConversations(dataset, endpoint, {
    streaming,
    useServerTokenCount: config.useServerTokenCount,
  });
  const fixedSchedule = usesFixedSchedule(config, given, conversations);
  const warnings = checkConflicts(config, given, fixedSchedule);
  const workers = poolSize(config, fixedSchedule, input.cores);
  const transport = input.env
    ? resolveTransport(config.transport, target.url, input.env)
    : resolveTransport(config.transport, target.url);
  const proxies = transport === "http1"
    ? (input.env ? http1Proxies(input.env) : http1Proxies())
    : undefined;
  warnings.push(...checkLoadFlags(config, {
    given,
    streaming,
    transport,
    endpointType: config.endpointType,
    conversations,
    fixed: fixedSchedule,
  }));
  const series = config.requestRateSeries === undefined
    ? undefined
    : readSeries(config.requestRateSeries, input.readText ?? Deno.readTextFileSync);
  const responseField = parseExtraInputs(config.extraInputs).responseField;
  const endpointOpts = endpointOptions(config, input.env, input.readText, input.endpoint);
  const urls = target.urls ?? [target.url];
  const base: BasePlan = {
    url: target.url,
    headers: target.headers,
    secrets: target.secrets ?? [],
    endpointType: config.endpointType,
    responseField,
    ...(Object.keys(endpointOpts).length > 0 ? { endpointOptions: endpointOpts } : {}),
    streaming,
    timeoutMs: config.requestTimeoutSeconds * 1000,
    sampling,
    seed,
    transport,
    ...(proxies ? { proxies } : {}),
    ...(urls.length > 1 ? { urls } : {}),
    reuse: reuseStrategy(config.connectionReuseStrategy),
    sessionHeader: config.sessionHeader,
    ...(config.exportHttpTrace ? { httpTrace: true } : {}),
  };
  const shard = resolveShard(config, input.env ?? readEnv);
  if (shard !== null && config.randomSeed === undefined) {
    throw new ConfigError(
      "a sharded run needs --random-seed: every shard must build the same plan",
    );
  }
  const planned = planPhases({ config, given, conversations, workers, base, series });
  const phases = shard === null ? planned : shardPhases(planned, conversations, shard);
  const dirName = runDirName(
    model,
    config.endpointType,
    config.concurrency,
    // A fixed schedule ignores the rate: the directory is not named for it.
    fixedSchedule ? undefined : config.requestRate,
  );
  return {
    model,
    seed,
    sampling,
    streaming,
    conversations,
    totalTurns: conversations.reduce((n, c) => n + c.bodies.length, 0),
    dataset: { type: dataset.type, source: dataset.source },
    transport,
    warnings,
    flagNotes,
    proxyWarning: input.env
      ? proxyBypassWarning(config.transport, target.url, input.env)
      : proxyBypassWarning(config.transport, target.url),
    fdWarning: fdLimitWarning(config.concurrency, (input.limits ?? readProcLimits)()),
    workers,
    fixedSchedule,
    base,
    phases,
    runDir: join(config.artifactDir, shard === null ? dirName : shardRunDirName(dirName, shard)),
    plainPaths: resolvePlainPaths(config.plainPaths),
    // The resolved values are recorded, so the artifacts say what the run did.
    inputConfig: redactConfig({
      ...recordedConfig(profileOptions, config, given),
      model,
      streaming,
      datasetSamplingStrategy: sampling,
    }) as Record<string, unknown>,
    shard,
    startAtMs: config.startAt === undefined ? null : parseStartAt(config.startAt),
    clockReference: config.clockReference ?? null,
    startBarrier: config.startAt === undefined ? config.startBarrier ?? null : null,
  };
}
