/**
 * Runs one benchmark: plans the phase, starts the Worker pool, turns arriving records into
 * metrics and artifact lines, and writes the summary — also after Ctrl+C.
 */

import { join } from "node:path";
import type { ProfileConfig } from "../config/options.ts";
import { redactConfig, redactText } from "../config/redact.ts";
import type { Dataset } from "../dataset/types.ts";
import { defaultSampling } from "../dataset/sampling.ts";
import type { Endpoint } from "../endpoints/types.ts";
import { replayBody } from "../endpoints/replay_body.ts";
import { parseExtraInputs } from "../config/extra_inputs.ts";
import { nowNs } from "../record/clock.ts";
import { proxyBypassWarning, resolveTransport } from "../transport/select.ts";
import type { PhasePlan, PlannedConversation } from "../load/plan.ts";
import { WorkerPool } from "../load/pool.ts";
import { PhaseRunner } from "../load/phase_runner.ts";
import { NO_LIMIT, planPhases, poolSize, usesFixedSchedule } from "../load/phases.ts";
import type { RequestRecord } from "../record/record.ts";
import { VERSION } from "../version.ts";
import { ExitCode } from "./exit_codes.ts";
import type { Io } from "./io.ts";
import { startProgress } from "./progress.ts";
import { progressMode, resultText } from "./output.ts";
import type { Target } from "./target.ts";
import { Results, type ResultsOptions } from "./results.ts";
import { metricsSetup } from "./metrics_options.ts";
import { setPlainPaths } from "../util/fast_paths.ts";
import { RunState } from "./run_state.ts";
import type { ApiServer } from "../api/server.ts";

/** Everything a run needs, resolved from the command line. */
export interface RunInput {
  config: ProfileConfig;
  dataset: Dataset;
  endpoint: Endpoint;
  target: Target;
  /** The command line with secrets redacted. */
  cliCommand: string;
  io: Io;
  /** Config keys set on the command line or by env (not defaults); absent: none. */
  given?: ReadonlySet<string>;
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

/** Runs the benchmark and writes the artifacts; returns the exit code. */
export async function runBenchmark(input: RunInput): Promise<number> {
  const { config, dataset, endpoint, target, io } = input;
  setPlainPaths(config.plainPaths);
  const model = modelOf(config, dataset);
  const seed = config.randomSeed ?? Math.floor(Math.random() * 2 ** 31);
  const sampling = config.datasetSamplingStrategy ?? defaultSampling(dataset.type);
  const benchmarkId = crypto.randomUUID();
  const runDir = join(
    config.artifactDir,
    runDirName(model, config.endpointType, config.concurrency, config.requestRate),
  );
  const streaming = config.streaming && endpoint.supportsStreaming;

  const conversations: PlannedConversation[] = dataset.conversations.map((c) => ({
    sessionId: c.sessionId,
    // What each endpoint needs added for --streaming / --use-server-token-count; see replayBody.
    bodies: c.turns.map((t) =>
      replayBody(t.body, endpoint, {
        streaming,
        useServerTokenCount: config.useServerTokenCount,
      })
    ),
    delaysMs: c.turns.some((t) => t.delayMs) ? c.turns.map((t) => t.delayMs ?? 0) : undefined,
    timestampsMs: c.turns.some((t) => t.timestampMs !== undefined)
      ? c.turns.map((t) => t.timestampMs)
      : undefined,
    // Built multi-turn conversations: later turns carry the live answers (see dataset/build.ts).
    live: c.live,
  }));
  const given: ReadonlySet<string> = input.given ?? new Set();
  const totalTurns = conversations.reduce((n, c) => n + c.bodies.length, 0);
  const requestLimit = config.requestCount ?? totalTurns;
  const conversationLimit = config.requestCount ? 2 ** 31 - 1 : conversations.length;

  // The resolved sampling is recorded, so the artifacts say what the run did.
  const inputConfig = redactConfig({
    ...config,
    model,
    streaming,
    datasetSamplingStrategy: sampling,
  }) as Record<string, unknown>;
  const resultsOptions: ResultsOptions = {
    runDir,
    conversations,
    streaming,
    endpoint,
    preferUsage: config.useServerTokenCount,
    ...(await metricsSetup(config)),
    run: {
      benchmarkId,
      cliCommand: input.cliCommand,
      randomSeed: seed,
      inputConfig,
      version: VERSION,
    },
  };
  const results = await Results.open(resultsOptions);

  const state = new RunState({
    config: inputConfig,
    runInfo: { benchmark_id: benchmarkId, random_seed: seed, cli_command: input.cliCommand },
    info: {
      model,
      endpoint_type: config.endpointType,
      streaming,
      concurrency: config.concurrency,
      request_rate: config.requestRate ?? null,
      version: VERSION,
    },
    artifactDir: runDir,
    // Nobody reads the live snapshot without the API: it is then built only at phase changes.
    statsIntervalMs: config.apiPort === undefined ? 0 : config.statsInterval * 1000,
  });
  // The API's modules (Hono, its schemas) load only when it is asked for.
  const api: ApiServer | null = config.apiPort === undefined
    ? null
    : await (await import("../api/server.ts")).startApiServer({
      host: config.apiHost,
      port: config.apiPort,
      source: state,
    });
  if (api) io.stderr(`live API on ${api.url} (Prometheus: ${api.url}/metrics)\n`);

  const cores = navigator.hardwareConcurrency || 1;
  const workers = poolSize(config, usesFixedSchedule(config, given, conversations), cores);
  const transport = resolveTransport(config.transport, target.url);
  const bypass = proxyBypassWarning(config.transport);
  if (bypass) io.stderr(`${bypass}\n`);
  const responseField = parseExtraInputs(config.extraInputs).responseField;
  const pool = await WorkerPool.start(workers, conversations);
  // Each thread stamps with its own clock; records from different Workers must line up.
  const skewMs = pool.clock.maxSkewNs / 1e6;
  if (skewMs > 1) {
    io.stderr(
      `warning: Worker clocks differ from the main thread's by up to ${skewMs.toFixed(2)} ms; ` +
        `timestamps of different Workers are that far apart\n`,
    );
  }
  if (config.verbose) {
    io.stderr(
      `clocks: ${workers} Worker${workers === 1 ? "" : "s"} within ${
        (pool.clock.maxSkewNs / 1000).toFixed(1)
      } µs of ` +
        `the main thread (round trip ${(pool.clock.maxRoundTripNs / 1000).toFixed(1)} µs)\n`,
    );
    io.stderr(
      `plan: ${dataset.conversations.length} conversations (${totalTurns} turns) from ${dataset.type} ${dataset.source}; ` +
        `${requestLimit} requests to ${
          redactText(target.url, target.secrets)
        }; concurrency ${config.concurrency} ` +
        `on ${workers} Workers, transport ${transport}; sampling ${sampling}, seed ${seed}; artifacts ${runDir}\n`,
    );
  }
  const plan: PhasePlan = {
    phase: "profiling",
    url: target.url,
    headers: target.headers,
    endpointType: config.endpointType,
    responseField,
    streaming,
    timeoutMs: config.requestTimeoutSeconds * 1000,
    requestLimit,
    conversationLimit,
    sampling,
    seed,
    transport,
  };
  // Warmup (when asked for) then profiling; each phase's timing and limits come from the options.
  const phases = planPhases({ config, given, conversations, base: plan, workers });
  let runner: PhaseRunner | null = null;
  let thresholdTripped = false;

  let interrupted = false;
  const onSoft = () => {
    interrupted = true;
    // Requests in flight get the grace period, then are cancelled.
    if (runner) runner.stop();
    else pool.stopIssuing();
    io.stderr(
      "\nstopping: no new requests; waiting for those in flight (Ctrl+C again cancels them)\n",
    );
  };
  const onHard = () => {
    pool.abortInFlight();
    io.stderr("\ncancelling requests in flight\n");
  };
  io.signal?.addEventListener("abort", onSoft, { once: true });
  io.hardSignal?.addEventListener("abort", onHard, { once: true });
  let current = phases[0];
  const stopProgress = startProgress(progressMode(config), io.isTerminal, io.stderr, () => ({
    control: pool.control,
    // A phase bounded only by time has no request total to show.
    total: current.plan.requestLimit >= NO_LIMIT ? null : current.plan.requestLimit,
    phase: current.plan.phase,
  }));

  const startNs = nowNs();
  let failure: Error | null = null;
  try {
    for (const spec of phases) {
      if (interrupted) break;
      current = spec;
      state.watch({
        phase: spec.plan.phase,
        control: pool.control,
        workers: pool.states,
        aggregator: results.aggregator,
        startNs: nowNs(),
      });
      runner = new PhaseRunner(pool, spec);
      const end = await runner.run((records: RequestRecord[]) => {
        for (const r of records) results.add(r);
      });
      if (end === "failed_threshold") {
        thresholdTripped = true;
        break;
      }
    }
  } catch (e) {
    failure = e as Error;
  } finally {
    stopProgress();
    pool.close();
    io.signal?.removeEventListener("abort", onSoft);
    io.hardSignal?.removeEventListener("abort", onHard);
  }
  const endNs = nowNs();
  // The Workers' threads end (and give their memory back) once this thread yields: let them,
  // before the summary ranks the metric columns, so that the two do not add up in the peak.
  await new Promise((resolve) => setTimeout(resolve, 0));

  const color = io.isTerminal && io.env("NO_COLOR") === undefined;
  const summary = await results.finish({ startNs, endNs, wasCancelled: interrupted }, { color });
  io.stdout(resultText(config, summary));
  io.stderr(`artifacts: ${runDir}\n`);
  for (const w of summary.warnings) io.stderr(`${w}\n`);
  if (config.report) {
    const { writeReport } = await import("../report/write.ts");
    io.stderr(`report: ${await writeReport([runDir], join(runDir, "report.html"))}\n`);
  }
  const code = exitCode();
  state.finish(
    failure || code === ExitCode.RUN_FAILED || code === ExitCode.UNREACHABLE
      ? "failed"
      : interrupted
      ? "cancelled"
      : "complete",
    JSON.parse(summary.json),
  );
  if (api) {
    // Scrapers get a last look at the final numbers before the process exits.
    if (config.apiLingerSeconds > 0 && !io.hardSignal?.aborted) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, config.apiLingerSeconds * 1000);
        io.hardSignal?.addEventListener("abort", () => {
          clearTimeout(t);
          resolve();
        }, { once: true });
      });
    }
    await api.close();
  }
  return code;

  function exitCode(): number {
    if (failure) {
      io.stderr(`error: ${redactText(failure.message, target.secrets)}\n`);
      return ExitCode.RUN_FAILED;
    }
    if (interrupted) return ExitCode.INTERRUPTED;
    if (thresholdTripped) {
      io.stderr(
        `error: aborted: the failed-request ratio passed --failed-request-threshold ` +
          `${config.failedRequestThreshold}; see error_summary in profile_export_aiperf.json\n`,
      );
      return ExitCode.FAILED_THRESHOLD;
    }
    if (summary.completed > 0 && summary.errors === summary.completed) {
      const unreachable = summary.errorTypes.size === 1 &&
        summary.errorTypes.has("ConnectionError");
      io.stderr(
        `error: every request failed${
          unreachable ? ` (cannot connect to ${target.baseUrl})` : ""
        }; see error_summary in profile_export_aiperf.json\n`,
      );
      return unreachable ? ExitCode.UNREACHABLE : ExitCode.RUN_FAILED;
    }
    return ExitCode.OK;
  }
}
