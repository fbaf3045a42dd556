/**
 * Every option of every command, declared once: flag, aliases, env vars, default, group, help,
 * and the zod schema that validates it. The CLI parser, `--help`, validation errors,
 * `/api/config` and the OpenAPI document are all generated from these tables. Each `profile`
 * option is declared in the file of its help group (`options/<group>.ts`); this file puts them
 * in the table's order, which is the order of `--help` and of the recorded `input_config`.
 */

import { endpointOptions } from "./options/endpoint.ts";
import { metricsOptions } from "./options/metrics.ts";
import { outputOptions } from "./options/output.ts";
import { inputOptions } from "./options/input.ts";
import { syntheticOptions } from "./options/synthetic.ts";
import { loadOptions } from "./options/load.ts";
import { developmentOptions } from "./options/development.ts";
import { liveApiOptions } from "./options/live_api.ts";
import { mockServerOptions } from "./options/mock_server.ts";
import { reportOptions } from "./options/report.ts";
import type { ConfigOf } from "./options/spec.ts";

export type { ConfigOf, OptionKind, OptionSpec, OptionTable } from "./options/spec.ts";
export { mockServerOptions, reportOptions };

/** The option groups of `profile`, each a table of its own (`options/<group>.ts`). */
export const profileOptionGroups = {
  endpointOptions,
  metricsOptions,
  outputOptions,
  inputOptions,
  syntheticOptions,
  loadOptions,
  developmentOptions,
  liveApiOptions,
} as const;

/** Options of `reprise profile`. Keys are the config field names. */
export const profileOptions = {
  model: endpointOptions.model,
  url: endpointOptions.url,
  endpointType: endpointOptions.endpointType,
  endpoint: endpointOptions.endpoint,
  streaming: endpointOptions.streaming,
  apiKey: endpointOptions.apiKey,
  header: endpointOptions.header,
  requestTimeoutSeconds: endpointOptions.requestTimeoutSeconds,
  useServerTokenCount: endpointOptions.useServerTokenCount,
  tokenizer: metricsOptions.tokenizer,
  tokenizerRevision: metricsOptions.tokenizerRevision,
  tokenizerTrustRemoteCode: metricsOptions.tokenizerTrustRemoteCode,
  applyChatTemplate: metricsOptions.applyChatTemplate,
  goodput: metricsOptions.goodput,
  sliceDuration: metricsOptions.sliceDuration,
  report: outputOptions.report,
  useLegacyMaxTokens: endpointOptions.useLegacyMaxTokens,
  inputFile: inputOptions.inputFile,
  customDatasetType: inputOptions.customDatasetType,
  datasetSamplingStrategy: inputOptions.datasetSamplingStrategy,
  randomSeed: inputOptions.randomSeed,
  isl: syntheticOptions.isl,
  islStddev: syntheticOptions.islStddev,
  osl: syntheticOptions.osl,
  oslStddev: syntheticOptions.oslStddev,
  seqDist: syntheticOptions.seqDist,
  numConversations: syntheticOptions.numConversations,
  numDatasetEntries: syntheticOptions.numDatasetEntries,
  sessionTurnsMean: syntheticOptions.sessionTurnsMean,
  sessionTurnsStddev: syntheticOptions.sessionTurnsStddev,
  sessionTurnDelayMean: syntheticOptions.sessionTurnDelayMean,
  sessionTurnDelayStddev: syntheticOptions.sessionTurnDelayStddev,
  sharedSystemPromptLength: syntheticOptions.sharedSystemPromptLength,
  numPrefixPrompts: syntheticOptions.numPrefixPrompts,
  prefixPromptLength: syntheticOptions.prefixPromptLength,
  promptCorpus: syntheticOptions.promptCorpus,
  extraInputs: inputOptions.extraInputs,
  concurrency: loadOptions.concurrency,
  requestCount: loadOptions.requestCount,
  transport: loadOptions.transport,
  plainPaths: developmentOptions.plainPaths,
  workersMax: loadOptions.workersMax,
  requestRate: loadOptions.requestRate,
  arrivalPattern: loadOptions.arrivalPattern,
  arrivalSmoothness: loadOptions.arrivalSmoothness,
  requestRateRampDuration: loadOptions.requestRateRampDuration,
  concurrencyRampDuration: loadOptions.concurrencyRampDuration,
  benchmarkDuration: loadOptions.benchmarkDuration,
  benchmarkGracePeriod: loadOptions.benchmarkGracePeriod,
  failedRequestThreshold: loadOptions.failedRequestThreshold,
  requestCancellationRate: loadOptions.requestCancellationRate,
  requestCancellationDelay: loadOptions.requestCancellationDelay,
  warmupRequestCount: loadOptions.warmupRequestCount,
  warmupDuration: loadOptions.warmupDuration,
  warmupConcurrency: loadOptions.warmupConcurrency,
  warmupRequestRate: loadOptions.warmupRequestRate,
  fixedSchedule: loadOptions.fixedSchedule,
  fixedScheduleAutoOffset: loadOptions.fixedScheduleAutoOffset,
  fixedScheduleStartOffset: loadOptions.fixedScheduleStartOffset,
  fixedScheduleEndOffset: loadOptions.fixedScheduleEndOffset,
  sessionDelayRatio: loadOptions.sessionDelayRatio,
  apiPort: liveApiOptions.apiPort,
  apiHost: liveApiOptions.apiHost,
  apiLingerSeconds: liveApiOptions.apiLingerSeconds,
  statsInterval: liveApiOptions.statsInterval,
  artifactDir: outputOptions.artifactDir,
  ui: outputOptions.ui,
  verbose: outputOptions.verbose,
  outputFormat: outputOptions.outputFormat,
  quiet: outputOptions.quiet,
  waitForModelTimeout: endpointOptions.waitForModelTimeout,
  waitForModelInterval: endpointOptions.waitForModelInterval,
} as const;

/** Options of `reprise compare <dir> <dir>`. */
export const compareOptions = {
  outputFormat: profileOptions.outputFormat,
} as const;

/** The validated `profile` configuration. Unset optional options are undefined. */
export type ProfileConfig = ConfigOf<typeof profileOptions>;

/** The validated `mock-server` configuration. */
export type MockServerConfig = ConfigOf<typeof mockServerOptions>;
