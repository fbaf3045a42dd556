/**
 * Every option of every command, declared once: flag, aliases, env vars, default, group, help,
 * and the zod schema that validates it. The CLI parser, `--help`, validation errors,
 * `/api/config` and the OpenAPI document are all generated from these tables. Each `profile`
 * option is declared in the file of its help group (`options/<group>.ts`); this file puts them
 * in the table's order, which is the order of `--help` and of the recorded `input_config`.
 */

import { endpointCompatOptions, endpointOptions } from "./options/endpoint.ts";
import { metricsOptions } from "./options/metrics.ts";
import { outputCompatOptions, outputOptions } from "./options/output.ts";
import { inputCompatOptions, inputOptions } from "./options/input.ts";
import { syntheticCompatOptions, syntheticOptions } from "./options/synthetic.ts";
import { loadCompatOptions, loadOptions } from "./options/load.ts";
import { multimodalOptions } from "./options/multimodal.ts";
import { telemetryOptions } from "./options/telemetry.ts";
import { httpTraceOptions } from "./options/http_trace.ts";
import { sweepOptions } from "./options/sweep.ts";
import { accuracyOptions } from "./options/accuracy.ts";
import { developmentOptions } from "./options/development.ts";
import { liveApiOptions } from "./options/live_api.ts";
import { shardOptions } from "./options/shard.ts";
import { mockServerOptions } from "./options/mock_server.ts";
import { reportOptions } from "./options/report.ts";
import type { ConfigOf } from "./options/spec.ts";

export type { ConfigOf, FlagStatus, OptionKind, OptionSpec, OptionTable } from "./options/spec.ts";
export { statusOf } from "./options/spec.ts";
export { mockServerOptions, reportOptions };
export { mergeOptions } from "./options/shard.ts";

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
  shardOptions,
  // AIPerf's flags that parse without their feature in reprise (each says why).
  endpointCompatOptions,
  inputCompatOptions,
  syntheticCompatOptions,
  multimodalOptions,
  loadCompatOptions,
  outputCompatOptions,
  httpTraceOptions,
  telemetryOptions,
  sweepOptions,
  accuracyOptions,
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
  urlStrategy: endpointOptions.urlStrategy,
  connectionReuseStrategy: endpointOptions.connectionReuseStrategy,
  sessionHeader: endpointOptions.sessionHeader,
  requestContentType: endpointOptions.requestContentType,
  downloadVideoContent: endpointOptions.downloadVideoContent,
  tokenizer: metricsOptions.tokenizer,
  tokenizerRevision: metricsOptions.tokenizerRevision,
  tokenizerTrustRemoteCode: metricsOptions.tokenizerTrustRemoteCode,
  applyChatTemplate: metricsOptions.applyChatTemplate,
  goodput: metricsOptions.goodput,
  sliceDuration: metricsOptions.sliceDuration,
  report: outputOptions.report,
  useLegacyMaxTokens: endpointOptions.useLegacyMaxTokens,
  config: inputOptions.config,
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
  prefillConcurrency: loadOptions.prefillConcurrency,
  prefillConcurrencyRampDuration: loadOptions.prefillConcurrencyRampDuration,
  userCentricRate: loadOptions.userCentricRate,
  numUsers: loadOptions.numUsers,
  requestRateSeries: loadOptions.requestRateSeries,
  warmupArrivalPattern: loadOptions.warmupArrivalPattern,
  warmupGracePeriod: loadOptions.warmupGracePeriod,
  warmupPrefillConcurrency: loadOptions.warmupPrefillConcurrency,
  warmupConcurrencyRampDuration: loadOptions.warmupConcurrencyRampDuration,
  warmupPrefillConcurrencyRampDuration: loadOptions.warmupPrefillConcurrencyRampDuration,
  warmupRequestRateRampDuration: loadOptions.warmupRequestRateRampDuration,
  numWarmupSessions: loadOptions.numWarmupSessions,
  apiPort: liveApiOptions.apiPort,
  apiHost: liveApiOptions.apiHost,
  apiLingerSeconds: liveApiOptions.apiLingerSeconds,
  statsInterval: liveApiOptions.statsInterval,
  ...shardOptions,
  artifactDir: outputOptions.artifactDir,
  ui: outputOptions.ui,
  logLevel: outputOptions.logLevel,
  verbose: outputOptions.verbose,
  extraVerbose: outputOptions.extraVerbose,
  profileExportPrefix: outputOptions.profileExportPrefix,
  exportLevel: outputOptions.exportLevel,
  exportOutputsJson: outputOptions.exportOutputsJson,
  outputFormat: outputOptions.outputFormat,
  quiet: outputOptions.quiet,
  waitForModelTimeout: endpointOptions.waitForModelTimeout,
  waitForModelInterval: endpointOptions.waitForModelInterval,
  // AIPerf's flags without their feature in reprise, by AIPerf's groups (see docs/aiperf-flags.md).
  ...endpointCompatOptions,
  ...inputCompatOptions,
  ...syntheticCompatOptions,
  ...multimodalOptions,
  ...loadCompatOptions,
  ...outputCompatOptions,
  ...httpTraceOptions,
  ...telemetryOptions,
  ...sweepOptions,
  ...accuracyOptions,
} as const;

/** Options of `reprise compare <dir> <dir>`. */
export const compareOptions = {
  // The same flag and values as profile's, with what compare writes for each.
  outputFormat: {
    ...profileOptions.outputFormat,
    help:
      "What stdout carries: `table`, one row per metric and statistic (Metric, Stat, the two runs' values, Change in percent marked better or worse); or `json`, `{base, other, metrics: [{tag, unit, stat, base, other, change_pct, larger_is_better}]}` and nothing else.",
  },
} as const;

/** The validated `profile` configuration. Unset optional options are undefined. */
export type ProfileConfig = ConfigOf<typeof profileOptions>;

/** The validated `mock-server` configuration. */
export type MockServerConfig = ConfigOf<typeof mockServerOptions>;
