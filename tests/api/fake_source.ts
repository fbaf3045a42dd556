/** A fake run state for the API tests: every field can be changed between requests. */

import type { ApiSource, LiveSnapshot, RunStatus } from "../../src/api/types.ts";

/** Mutable state behind `fakeSource`. */
export interface FakeState {
  status: RunStatus;
  config: Record<string, unknown>;
  snapshot: LiveSnapshot;
  results: unknown | null;
  artifactDir: string | null;
}

/** A snapshot with two distributions, one scalar metric, both phases and two Workers. */
export function sampleSnapshot(): LiveSnapshot {
  return {
    updatedAt: "2026-01-02T03:04:05.000Z",
    info: {
      model: 'Qwen/Qwen3 "0.6B"\\x',
      endpoint_type: "chat",
      streaming: true,
      concurrency: 4,
      request_rate: null,
      version: "0.1.0",
    },
    metrics: {
      request_latency: {
        unit: "ms",
        header: "Request Latency",
        avg: 100.5,
        min: 10,
        max: 300,
        p1: 11,
        p50: 95,
        p90: 180,
        p95: 190,
        p99: 195,
        std: 12.25,
        count: 500,
        sum: 50250,
      },
      output_token_throughput_per_user: {
        unit: "tokens/sec/user",
        avg: 42,
        p50: 41,
        p99: Infinity,
        count: 500,
      },
      request_throughput: { unit: "requests/sec", avg: 12.5 },
      error_rate: { unit: "%", avg: NaN },
      "1st-weird tag": { unit: "", avg: -Infinity, count: 3, sum: 9 },
    },
    progress: {
      warmup: {
        sent: 10,
        completed: 10,
        errors: 1,
        cancelled: 0,
        in_flight: 0,
        sessions_started: 10,
        sessions_completed: 10,
      },
      profiling: {
        sent: 120,
        completed: 100,
        errors: 3,
        cancelled: 2,
        in_flight: 20,
        sessions_started: 60,
        sessions_completed: 50,
        start_ns: "1767323045000000000",
      },
    },
    workers: {
      "0": { requests: 60, errors: 1, in_flight: 10, state: "running" },
      "1": { requests: 40, errors: 2, in_flight: 10, state: "running" },
    },
  };
}

/** A fake `ApiSource` reading `state`, which the test may change at any time. */
export function fakeSource(
  overrides: Partial<FakeState> = {},
): { source: ApiSource; state: FakeState } {
  const state: FakeState = {
    status: "running",
    config: { model: "m", url: "http://<redacted>@h", concurrency: 4 },
    snapshot: sampleSnapshot(),
    results: null,
    artifactDir: null,
    ...overrides,
  };
  const source: ApiSource = {
    status: () => state.status,
    config: () => state.config,
    runInfo: () => ({
      benchmark_id: "bench-123",
      random_seed: 7,
      cli_command: "reprise profile --api-key <redacted>",
    }),
    snapshot: () => state.snapshot,
    results: () => state.results,
    artifactDir: () => state.artifactDir,
  };
  return { source, state };
}
