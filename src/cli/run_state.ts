/**
 * The run as the live API sees it. The snapshot is rebuilt on a fixed cadence
 * (`--stats-interval`) from the shared counters and the aggregator; serving a request only reads
 * the last snapshot, so a busy scraper never touches the measurement path.
 */

import type {
  ApiSource,
  LivePoint,
  LiveSnapshot,
  PhaseProgress,
  RunInfo,
  RunStatus,
} from "../api/types.ts";
import { LiveHistory } from "../api/live_series.ts";
import type { ServerValue } from "../observe/series.ts";
import { Ctl, workerInFlight } from "../load/control.ts";
import type { Phase } from "../record/record.ts";
import type { WorkerState } from "../load/pool.ts";
import type { MetricsAggregator } from "../metrics/aggregator.ts";

/** Where the live numbers come from while a phase runs. */
export interface LiveSources {
  phase: Phase;
  control: Int32Array;
  workers: WorkerState[];
  aggregator: MetricsAggregator;
  startNs: bigint;
}

function emptyProgress(): PhaseProgress {
  return {
    sent: 0,
    completed: 0,
    errors: 0,
    cancelled: 0,
    in_flight: 0,
    sessions_started: 0,
    sessions_completed: 0,
  };
}

/** A run's state, implementing the API's read-only view of it. */
export class RunState implements ApiSource {
  #status: RunStatus = "starting";
  #results: unknown | null = null;
  #snapshot: LiveSnapshot;
  #live: LiveSources | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  #history = new LiveHistory();
  #server: (() => ServerValue[]) | null = null;

  constructor(
    private readonly opts: {
      config: Record<string, unknown>;
      runInfo: RunInfo;
      info: LiveSnapshot["info"];
      artifactDir: string;
      /** How often the snapshot is rebuilt while a phase runs; 0: only when a phase starts. */
      statsIntervalMs: number;
    },
  ) {
    this.#snapshot = {
      updatedAt: new Date().toISOString(),
      info: opts.info,
      metrics: {},
      progress: { warmup: emptyProgress(), profiling: emptyProgress() },
      workers: {},
    };
  }

  /** Where the server's latest scraped values come from (the scraper of the run). */
  observeServer(latest: () => ServerValue[]): void {
    this.#server = latest;
  }

  /** Starts refreshing the snapshot from a running phase. */
  watch(sources: LiveSources): void {
    this.#live = sources;
    this.#status = "running";
    this.refresh();
    if (this.#timer === undefined && this.opts.statsIntervalMs > 0) {
      this.#timer = setInterval(() => this.refresh(), this.opts.statsIntervalMs);
    }
  }

  /** Rebuilds the snapshot now. */
  refresh(): void {
    const s = this.#live;
    if (!s) return;
    const c = s.control;
    const progress = { ...this.#snapshot.progress };
    progress[s.phase] = {
      sent: Atomics.load(c, Ctl.ISSUED),
      completed: Atomics.load(c, Ctl.COMPLETED),
      errors: Atomics.load(c, Ctl.ERRORS),
      cancelled: Atomics.load(c, Ctl.CANCELLED),
      in_flight: Atomics.load(c, Ctl.IN_FLIGHT),
      sessions_started: Atomics.load(c, Ctl.NEXT_CONVERSATION),
      sessions_completed: Atomics.load(c, Ctl.SESSIONS_DONE),
      start_ns: s.startNs.toString(),
    };
    const metrics: LiveSnapshot["metrics"] = {};
    if (s.phase === "profiling") {
      for (const m of s.aggregator.snapshot().metrics) {
        const { tag: _t, kind: _k, flags: _f, ...stats } = m;
        metrics[m.tag] = stats;
      }
    } else Object.assign(metrics, this.#snapshot.metrics);
    const workers: LiveSnapshot["workers"] = {};
    s.workers.forEach((w, i) => {
      workers[`worker_${i}`] = {
        requests: w.requests,
        errors: w.errors,
        in_flight: Atomics.load(c, workerInFlight(i)),
        state: w.state,
      };
    });
    this.#snapshot = {
      updatedAt: new Date().toISOString(),
      info: this.opts.info,
      metrics,
      progress,
      workers,
      ...(this.#server ? { server: this.#server() } : {}),
    };
    this.#history.add(this.#snapshot, s.phase);
  }

  /** Marks the run finished: takes a last snapshot and keeps the final results. */
  finish(status: RunStatus, results: unknown | null): void {
    this.refresh();
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#status = status;
    this.#results = results;
  }

  status(): RunStatus {
    return this.#status;
  }
  config(): Record<string, unknown> {
    return this.opts.config;
  }
  runInfo(): RunInfo {
    return this.opts.runInfo;
  }
  snapshot(): LiveSnapshot {
    return this.#snapshot;
  }
  results(): unknown | null {
    return this.#results;
  }
  artifactDir(): string | null {
    return this.opts.artifactDir;
  }
  history(): readonly LivePoint[] {
    return this.#history.points();
  }
}
