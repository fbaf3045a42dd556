/**
 * Runs one benchmark in four steps, each a function below: `planStep` works out everything
 * (src/plan/), finds every config error and checks that the artifact directory can be written,
 * before anything is sent; `start` opens the artifacts, the live API and the Worker pool; `runPhases` runs warmup and profiling, turning
 * arriving records into metrics and artifact lines; `finish` writes the summary — also after
 * Ctrl+C — and decides the exit code (`exit_codes.ts`).
 */

import { join } from "node:path";
import type { ProfileConfig } from "../config/options.ts";
import { redactText } from "../config/redact.ts";
import type { Dataset } from "../dataset/types.ts";
import type { Endpoint } from "../endpoints/types.ts";
import { checkArtifactDir, writeFailure } from "../export/artifact.ts";
import { aiperfInputConfig } from "../export/input_config.ts";
import { Results, type ResultsOptions, type RunOutcome } from "../export/results.ts";
import { newBenchmarkId, runInfoBlock, type RunVariation } from "../export/summary_json.ts";
import { WorkerPool } from "../load/pool.ts";
import { PhaseRunner } from "../load/phase_runner.ts";
import { describePlan } from "../plan/describe.ts";
import { NO_LIMIT } from "../plan/phases.ts";
import { planRun, type RunPlan } from "../plan/run_plan.ts";
import { nowNs } from "../record/clock.ts";
import type { RequestRecord } from "../record/record.ts";
import { setPlainPaths } from "../util/fast_paths.ts";
import { RunObservers } from "../observe/observers.ts";
import { latestValues } from "../observe/series.ts";
import { VERSION } from "../version.ts";
import type { ApiServer } from "../api/server.ts";
import type { RunInfo } from "../api/types.ts";
import { ExitCode, runExitCode, signalExitCode, type StopSignal } from "./exit_codes.ts";
import { type Io, stopSignal } from "./io.ts";
import { type MetricsSetup, metricsSetup } from "./metrics_options.ts";
import { shows, traceLine } from "./log.ts";
import { progressMode, resultText } from "./output.ts";
import { startProgress } from "./progress.ts";
import { RunState } from "./run_state.ts";
import { ShardStart } from "./start_at.ts";
import { SHARD_INFO_FILE } from "../export/shard_info.ts";
import type { Target } from "./target.ts";

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
  /** The run's place in a sweep or repeated runs (`run_info`); absent for a single run. */
  variation?: RunVariation;
}

/**
 * Runs the benchmark and writes the artifacts; returns the exit code. `planned`: the run's
 * {@link planStep}, when the command made it earlier (before waiting for the model).
 */
export async function runBenchmark(input: RunInput, planned?: Planned): Promise<number> {
  planned ??= await planStep(input);
  const { io } = input;
  // From here a signal stops the run and its artifacts keep what finished; one taken before
  // ends it now, with nothing written.
  io.exitOnSignal?.(false);
  if (io.signal?.aborted) return signalExitCode(stopSignal(io));
  const run = await start(input, planned);
  const ended = await runPhases(input, planned.plan, run);
  return await finish(input, planned.plan, run, ended);
}

/** The plan and what the metrics need: everything decided, nothing created. */
export interface Planned {
  plan: RunPlan;
  metrics: MetricsSetup;
}

/**
 * Plans the run (src/plan/), checks the artifact directory, and loads the tokenizer and SLOs; a
 * bad option throws a `ConfigError` here, before the API or a Worker exists and before anything
 * is sent, and an artifact directory that cannot be written an `ArtifactError` (its exit codes
 * are in exit_codes.ts). Nothing is left created: `start` creates the run's directory.
 */
export async function planStep(input: RunInput): Promise<Planned> {
  const { config, target, io } = input;
  const plan = planRun({
    config,
    dataset: input.dataset,
    endpoint: input.endpoint,
    target,
    given: input.given ?? new Set(),
    cores: navigator.hardwareConcurrency || 1,
    env: io.env,
  });
  // The cheap checks first: the tokenizer may be downloaded.
  await checkArtifactDir(config.artifactDir, plan.runDir);
  const metrics = await metricsSetup(config, { progress: io.stderr, env: io.env });
  for (const warning of metrics.warnings) io.stderr(`${warning}\n`);
  if (shows(config, "DEBUG")) {
    io.stderr(describePlan(plan, redactText(target.url, target.secrets)));
    for (const note of plan.flagNotes) io.stderr(`${note}\n`);
  }
  return { plan, metrics };
}

/** What `start` set up, which the phases use and `finish` closes. */
interface Started {
  results: Results;
  state: RunState;
  api: ApiServer | null;
  pool: WorkerPool;
  benchmarkId: string;
  /** The server's metrics, GPU telemetry and the OpenTelemetry push (src/observe/). */
  observers: RunObservers;
}

/**
 * Sets the fast paths, starts the live API (when asked for), creates the artifact directory and
 * starts the Workers.
 */
async function start(input: RunInput, planned: Planned): Promise<Started> {
  const { config, io } = input;
  const { plan } = planned;
  setPlainPaths(plan.plainPaths);
  const benchmarkId = newBenchmarkId();
  const observers = new RunObservers(config, {
    baseUrl: input.target.baseUrl,
    model: plan.model,
    benchmarkId,
    version: VERSION,
    warn: (line) => io.stderr(`${line}\n`),
  });
  const dashboard = progressMode(config) === "dashboard" && io.isTerminal;
  const resultsOptions: ResultsOptions = {
    runDir: plan.runDir,
    conversations: plan.conversations,
    streaming: plan.streaming,
    endpoint: input.endpoint,
    preferUsage: config.useServerTokenCount,
    exportPrefix: config.profileExportPrefix,
    exportLevel: config.exportLevel,
    outputsJson: config.exportOutputsJson,
    secrets: input.target.secrets,
    ...planned.metrics,
    run: {
      benchmarkId,
      cliCommand: input.cliCommand,
      randomSeed: plan.seed,
      inputConfig: plan.inputConfig,
      version: VERSION,
      ...(input.variation ? { variation: input.variation } : {}),
    },
  };
  const state = new RunState({
    // AIPerf's `/api/config` is its nested BenchmarkConfig, `/api/run` the `run_info` block.
    config: aiperfInputConfig(plan.inputConfig),
    runInfo: runInfoBlock({
      benchmarkId,
      randomSeed: plan.seed,
      cliCommand: input.cliCommand,
      variation: input.variation,
    }) as RunInfo,
    info: {
      model: plan.model,
      endpoint_type: config.endpointType,
      streaming: plan.streaming,
      concurrency: config.concurrency,
      request_rate: config.requestRate ?? null,
      version: VERSION,
    },
    artifactDir: plan.runDir,
    // Nobody reads the live snapshot without the API or the dashboard: it is then built only at
    // phase changes. The dashboard redraws from it every second at most.
    statsIntervalMs: config.apiPort !== undefined
      ? (dashboard ? Math.min(config.statsInterval, 1) : config.statsInterval) * 1000
      : dashboard
      ? 1000
      : 0,
  });
  const results = await Results.open(resultsOptions);
  if (observers.otel) results.onMeasured((r, v) => observers.otel?.add(r, v));
  // The API's modules (Hono, its schemas) load only when it is asked for.
  const api: ApiServer | null = config.apiPort === undefined
    ? null
    : await (await import("../api/server.ts")).startApiServer({
      host: config.apiHost,
      port: config.apiPort,
      source: state,
      secrets: input.target.secrets,
    });
  if (api) io.stderr(`live API on ${api.url} (Prometheus: ${api.url}/metrics)\n`);
  for (const warning of plan.warnings) io.stderr(`${warning}\n`);
  if (plan.proxyWarning) io.stderr(`${plan.proxyWarning}\n`);
  if (plan.fdWarning) io.stderr(`${plan.fdWarning}\n`);
  const pool = await startPool(input, plan);
  if (observers.scraper) {
    const scraper = observers.scraper;
    state.observeServer(() => latestValues(scraper.endpoints));
  }
  return { results, state, api, pool, benchmarkId, observers };
}

/** Starts the Worker pool and checks that the Workers' clocks agree with the main thread's. */
async function startPool(input: RunInput, plan: RunPlan): Promise<WorkerPool> {
  const { config, io } = input;
  // A signal while the Workers start ends their start: the run then stops before its first phase.
  const pool = await WorkerPool.start(plan.workers, plan.conversations, { signal: io.signal });
  if (pool.cancelled) return pool;
  // The Workers exist: the main thread's own work now waits for theirs.
  io.yieldToWorkers?.();
  // Each thread stamps with its own clock; records from different Workers must line up.
  const skewMs = pool.clock.maxSkewNs / 1e6;
  if (skewMs > 1) {
    io.stderr(
      `warning: Worker clocks differ from the main thread's by up to ${skewMs.toFixed(2)} ms; ` +
        `timestamps of different Workers are that far apart\n`,
    );
  }
  if (shows(config, "DEBUG")) {
    const w = plan.workers;
    io.stderr(
      `clocks: ${w} Worker${w === 1 ? "" : "s"} within ${
        (pool.clock.maxSkewNs / 1000).toFixed(1)
      } µs of the main thread (round trip ${(pool.clock.maxRoundTripNs / 1000).toFixed(1)} µs)\n`,
    );
  }
  return pool;
}

/** How the phases ended. */
interface PhasesEnd {
  startNs: bigint;
  endNs: bigint;
  interrupted: boolean;
  thresholdTripped: boolean;
  failure: Error | null;
  /** The signal that interrupted the run. */
  signal?: StopSignal;
}

/**
 * Runs the plan's phases in order, with the progress display; the first Ctrl+C stops issuing
 * (requests in flight get the grace period), the second cancels what is in flight.
 */
async function runPhases(input: RunInput, plan: RunPlan, run: Started): Promise<PhasesEnd> {
  const { config, io } = input;
  const { pool, results, state } = run;
  let runner: PhaseRunner | null = null;
  const end: PhasesEnd = {
    startNs: nowNs(),
    endNs: 0n,
    interrupted: false,
    thresholdTripped: false,
    failure: null,
  };
  const onSoft = () => {
    end.interrupted = true;
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
  // A signal while the run started is not lost: the run stops before its first phase.
  if (io.signal?.aborted) onSoft();
  if (io.hardSignal?.aborted) onHard();
  // An artifact that cannot be written stops the run as Ctrl+C does; `finish` says why.
  results.onWriteFailure(() => runner ? runner.stop() : pool.stopIssuing());
  let current = plan.phases[0];
  const stopProgress = startProgress(
    progressMode(config),
    io.isTerminal,
    io.stderr,
    () => ({
      control: pool.control,
      // A phase bounded only by time has no request total to show.
      total: current.plan.requestLimit >= NO_LIMIT ? null : current.plan.requestLimit,
      phase: current.plan.phase,
    }),
    () => ({ snapshot: state.snapshot(), phase: current.plan.phase }),
  );
  // TRACE: one line per finished request, written on the main thread after it was measured.
  const trace = shows(config, "TRACE");
  // A shard (or a run with --start-at) checks its clock and waits for the start before profiling.
  const together = plan.shard !== null || plan.startAtMs !== null || plan.startBarrier !== null
    ? new ShardStart(plan, input.target.url)
    : null;
  const shardIndex = plan.shard?.index;
  end.startNs = nowNs();
  try {
    for (const spec of plan.phases) {
      if (end.interrupted || results.writeFailure) break;
      current = spec;
      state.watch({
        phase: spec.plan.phase,
        control: pool.control,
        workers: pool.states,
        aggregator: results.aggregator,
        startNs: nowNs(),
      });
      runner = new PhaseRunner(pool, spec);
      // Connections and code are made ready first; a shard then waits for its start instant.
      await runner.prepare();
      const startAt = spec.plan.phase === "profiling" && !end.interrupted
        ? await together?.begin((line) => io.stderr(`${line}\n`), io.signal)
        : undefined;
      if (startAt === null || end.interrupted) break;
      runner.startAt(startAt);
      await run.observers.phaseStart(spec.plan.phase);
      // A signal taken while the phase's first scrape was made stops the run before the phase.
      if (end.interrupted) break;
      const phaseEnd = await runner.run((records: RequestRecord[]) => {
        for (const r of records) {
          if (shardIndex !== undefined) r.shard = shardIndex;
          results.add(r);
        }
        if (trace) { for (const r of records) io.stderr(traceLine(r)); }
      });
      await run.observers.phaseEnd(spec.plan.phase);
      if (phaseEnd === "failed_threshold") {
        end.thresholdTripped = true;
        break;
      }
    }
  } catch (e) {
    end.failure = e as Error;
  } finally {
    await run.observers.stop();
    stopProgress();
    pool.close();
    io.signal?.removeEventListener("abort", onSoft);
    io.hardSignal?.removeEventListener("abort", onHard);
  }
  end.endNs = nowNs();
  await together?.write(join(plan.runDir, SHARD_INFO_FILE)).catch((e) =>
    io.stderr(`warning: ${SHARD_INFO_FILE} could not be written: ${(e as Error).message}\n`)
  );
  if (end.interrupted) end.signal = stopSignal(io);
  return end;
}

/**
 * Writes the summary and prints the result, the report when asked for, and the error that
 * explains the exit code; lets API scrapers take a last look, then returns the code.
 */
async function finish(
  input: RunInput,
  plan: RunPlan,
  run: Started,
  ended: PhasesEnd,
): Promise<number> {
  const { config, target, io } = input;
  // The Workers' threads end (and give their memory back) once this thread yields: let them,
  // before the summary ranks the metric columns, so that the two do not add up in the peak.
  await new Promise((resolve) => setTimeout(resolve, 0));
  const color = io.isTerminal && io.env("NO_COLOR") === undefined;
  const summary: RunOutcome = await run.results.finish(
    { startNs: ended.startNs, endNs: ended.endNs, wasCancelled: ended.interrupted },
    { color, extras: (s) => run.observers.summaryExtras(s, config.concurrency) },
  );
  io.stdout(resultText(config, summary));
  // The server's metrics and GPU telemetry are written beside a summary that could be written; a
  // failed write of them is a warning: the benchmark's own artifacts are whole.
  if (summary.writeFailure === null) {
    try {
      const sections = await run.observers.write(plan.runDir, config, {
        version: VERSION,
        benchmarkId: run.benchmarkId,
      });
      if (sections && config.outputFormat !== "json" && !config.quiet) io.stdout(`\n${sections}`);
    } catch (e) {
      io.stderr(
        `warning: the server metrics or GPU telemetry could not be written: ${
          (e as Error).message
        }\n`,
      );
    }
  }
  io.stderr(`artifacts: ${plan.runDir}\n`);
  for (const w of summary.warnings) io.stderr(`${w}\n`);
  let artifactFailure = writeFailureLine(summary);
  if (config.report && artifactFailure === null) {
    const { writeReport } = await import("../report/write.ts");
    const path = join(plan.runDir, "report.html");
    try {
      io.stderr(`report: ${await writeReport([plan.runDir], path)}\n`);
    } catch (e) {
      const failure = writeFailure(path, e);
      if (failure === e) throw e;
      artifactFailure = (failure as Error).message;
    }
  }
  const { code, error, warning } = runExitCode({
    ...summary,
    artifactFailure,
    failure: ended.failure && redactText(ended.failure.message, target.secrets),
    interrupted: ended.interrupted,
    signal: ended.signal,
    thresholdTripped: ended.thresholdTripped,
  }, { failedRequestThreshold: config.failedRequestThreshold, baseUrl: target.baseUrl });
  if (warning !== null) io.stderr(`${warning}\n`);
  if (error !== null) io.stderr(`error: ${error}\n`);
  run.state.finish(
    ended.failure || code === ExitCode.RUN_FAILED || code === ExitCode.UNREACHABLE ||
      code === ExitCode.ARTIFACT_WRITE
      ? "failed"
      : ended.interrupted
      ? "cancelled"
      : "complete",
    JSON.parse(summary.json),
  );
  // A signal after the run (while the summary was written, or during the linger) only ends the
  // linger: the run completed, and its exit code says how it went.
  if (run.api) await closeApi(run.api, config.apiLingerSeconds, io);
  return code;
}

/**
 * The line that explains a failed artifact write: the file and the cause, and whether the
 * summary of what finished could still be written; null when every write succeeded.
 */
function writeFailureLine(summary: RunOutcome): string | null {
  const failure = summary.writeFailure;
  if (failure === null) return null;
  // A summary file that did not fit: the records file is whole.
  if (!failure.path.endsWith(".jsonl")) return failure.message;
  const n = summary.completed;
  return `${failure.message}; the run stopped; ${
    summary.summaryWritten
      ? `the summary of the ${n} request${n === 1 ? "" : "s"} that finished was written`
      : "the summary could not be written either"
  }`;
}

/**
 * Scrapers get a last look at the final numbers (`--api-linger-seconds`), then the API closes;
 * a signal (taken during the run already, or during the linger) ends the linger.
 */
async function closeApi(api: ApiServer, lingerSeconds: number, io: Io): Promise<void> {
  const signal = io.signal;
  if (lingerSeconds > 0 && !signal?.aborted) {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const t = setTimeout(done, lingerSeconds * 1000);
      signal?.addEventListener("abort", done, { once: true });
    });
  }
  await api.close();
}
