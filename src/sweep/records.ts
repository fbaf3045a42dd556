/**
 * Per-request values of repeated runs, read back from their `profile_export.jsonl`: what the
 * `distribution` convergence mode tests (a two-sample Kolmogorov–Smirnov test of the latest run
 * against the runs before it) and what the collated aggregate pools (AIPerf's
 * `profile_export_aiperf_collated.json`: percentiles over every request of every run).
 */

import { forEachLine } from "../dataset/lines.ts";
import type { RunRef } from "./aggregate.ts";

/** Each metric's values over a run's successful profiling requests (numbers only). */
export async function recordValues(path: string): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  try {
    await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return out;
    throw e;
  }
  await forEachLine(path, (line) => {
    let rec: {
      metadata?: { benchmark_phase?: string };
      metrics?: Record<string, { value?: unknown }>;
      error?: unknown;
    };
    try {
      rec = JSON.parse(line);
    } catch {
      return;
    }
    if (rec.error || (rec.metadata?.benchmark_phase ?? "profiling") !== "profiling") return;
    for (const [tag, m] of Object.entries(rec.metrics ?? {})) {
      if (typeof m?.value !== "number" || !Number.isFinite(m.value)) continue;
      const list = out.get(tag) ?? out.set(tag, []).get(tag)!;
      list.push(m.value);
    }
  });
  return out;
}

/**
 * The two-sample Kolmogorov–Smirnov test: the largest distance between the two empirical
 * distributions, and its asymptotic p-value (the chance of a distance this large were both
 * samples drawn from one distribution).
 */
export function ksTest(a: readonly number[], b: readonly number[]): { d: number; p: number } {
  if (a.length === 0 || b.length === 0) return { d: 1, p: 0 };
  const x = [...a].sort((p, q) => p - q);
  const y = [...b].sort((p, q) => p - q);
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < x.length && j < y.length) {
    const v = Math.min(x[i], y[j]);
    while (i < x.length && x[i] <= v) i++;
    while (j < y.length && y[j] <= v) j++;
    d = Math.max(d, Math.abs(i / x.length - j / y.length));
  }
  const en = Math.sqrt((x.length * y.length) / (x.length + y.length));
  const lambda = (en + 0.12 + 0.11 / en) * d;
  // Q_KS(λ) = 2 Σ (−1)^(k−1) exp(−2 k² λ²).
  let p = 0;
  for (let k = 1; k <= 100; k++) {
    const term = 2 * (k % 2 === 1 ? 1 : -1) * Math.exp(-2 * k * k * lambda * lambda);
    p += term;
    if (Math.abs(term) < 1e-10) break;
  }
  return { d, p: lambda < 1e-3 ? 1 : Math.min(1, Math.max(0, p)) };
}

/** The `q`-th percentile (0..100) of sorted values, interpolated linearly (numpy's default). */
function percentile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q / 100;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** AIPerf's collated aggregate: each metric over every request of the successful runs. */
export async function collatedAggregate(runs: readonly RunRef[]): Promise<Record<string, unknown>> {
  const ok = runs.filter((r) => r.summary !== null && r.error === undefined && r.records);
  const perRun = await Promise.all(
    ok.map(async (r) => ({ label: r.label, values: await recordValues(r.records!) })),
  );
  const tags: string[] = [];
  for (const r of perRun) for (const t of r.values.keys()) if (!tags.includes(t)) tags.push(t);
  const metrics: Record<string, unknown> = {};
  for (const tag of tags) {
    const all = perRun.flatMap((r) => r.values.get(tag) ?? []);
    if (all.length === 0) continue;
    const sorted = [...all].sort((a, b) => a - b);
    const mean = all.reduce((a, b) => a + b, 0) / all.length;
    const std = all.length > 1
      ? Math.sqrt(all.reduce((a, v) => a + (v - mean) ** 2, 0) / (all.length - 1))
      : 0;
    metrics[tag] = {
      combined: {
        mean,
        std,
        p50: percentile(sorted, 50),
        p90: percentile(sorted, 90),
        p95: percentile(sorted, 95),
        p99: percentile(sorted, 99),
        count: all.length,
      },
      per_run: perRun.map((r) => {
        const v = r.values.get(tag) ?? [];
        return {
          label: r.label,
          mean: v.length ? v.reduce((a, b) => a + b, 0) / v.length : null,
          count: v.length,
        };
      }),
    };
  }
  return {
    schema_version: "1.0.0",
    metadata: {
      aggregation_type: "detailed",
      num_profile_runs: runs.length,
      num_successful_runs: ok.length,
      failed_runs: runs.filter((r) => !ok.includes(r)).map((r) => ({
        label: r.label,
        error: r.error ?? "no records",
      })),
      run_labels: ok.map((r) => r.label),
    },
    metrics,
  };
}
