/**
 * AIPerf's energy-efficiency metrics (`nvidia_*`): the GPUs' energy over the profiling phase (the
 * DCGM energy counter's increase, or their average power times the phase when no GPU gives the
 * counter) set against the run's tokens, requests and throughput.
 */

import type { GpuTelemetry } from "./gpu_telemetry.ts";
import { gpuWindows } from "./gpu_telemetry.ts";

/** One derived metric: its tag, header, unit and value. */
export interface EnergyMetric {
  tag: string;
  header: string;
  unit: string;
  value: number;
}

/** The run's figures the energy is set against (their summary `avg`s); absent ones are skipped. */
export interface RunFigures {
  /** Profiling duration, seconds. */
  durationS: number;
  totalOsl?: number;
  totalIsl?: number;
  requestCount?: number;
  /** Average request latency, ms. */
  requestLatencyMs?: number;
  requestThroughput?: number;
  outputTokenThroughput?: number;
  goodput?: number;
  /** The profiling concurrency, when the run has one. */
  concurrency?: number;
}

/** The fleet's energy (J, from counters) and average power (W, summed over GPUs). */
export function fleetEnergy(t: GpuTelemetry): {
  energyJ: number;
  energyGpus: number;
  powerW: number;
  powerGpus: number;
} {
  let energyJ = 0;
  let energyGpus = 0;
  let powerW = 0;
  let powerGpus = 0;
  for (const w of gpuWindows(t)) {
    const energy = w.series.get("nvidia_energy_consumption");
    if (energy && energy.length > 1) {
      energyJ += Math.max(0, energy[energy.length - 1] - energy[0]) * 1e6;
      energyGpus++;
    }
    const power = w.series.get("nvidia_power_usage");
    if (power && power.length > 0) {
      powerW += power.reduce((a, b) => a + b, 0) / power.length;
      powerGpus++;
    }
  }
  return { energyJ, energyGpus, powerW, powerGpus };
}

/** The energy-efficiency metrics AIPerf derives, each only when its inputs are there. */
export function energyMetrics(t: GpuTelemetry, run: RunFigures): EnergyMetric[] {
  const out: EnergyMetric[] = [];
  const add = (tag: string, header: string, unit: string, value: number) =>
    out.push({ tag: `nvidia_${tag}`, header, unit, value });
  const fleet = fleetEnergy(t);
  const d = run.durationS;
  let energyJ = 0;
  let avgPowerW = 0;
  if (fleet.energyGpus > 0 && fleet.energyJ > 0) {
    energyJ = fleet.energyJ;
    avgPowerW = d > 0 ? energyJ / d : 0;
  } else if (fleet.powerGpus > 0 && fleet.powerW > 0 && d > 0) {
    energyJ = fleet.powerW * d;
    avgPowerW = fleet.powerW;
  }
  if (fleet.powerGpus > 0) add("total_gpu_power", "Total GPU Power", "W", fleet.powerW);
  if (energyJ <= 0) return out;
  if (avgPowerW > 0) add("average_gpu_power", "Average GPU Power", "W", avgPowerW);
  add("total_gpu_energy", "Total GPU Energy", "J", energyJ);
  const osl = run.totalOsl;
  if (osl) {
    add("output_tokens_per_joule", "Output Tokens per Joule", "tokens/J", osl / energyJ);
    add("energy_per_output_token", "Energy per Output Token", "mJ/token", energyJ * 1000 / osl);
  }
  const tokens = (run.totalIsl ?? 0) + (osl ?? 0);
  if (tokens > 0) {
    add("energy_per_total_token", "Energy per Total Token", "mJ/token", energyJ * 1000 / tokens);
  }
  let perRequest: number | null = null;
  if (run.requestCount) {
    perRequest = energyJ / run.requestCount;
    add("energy_per_request", "Energy per Request", "J/request", perRequest);
  }
  if (run.concurrency && run.concurrency > 0) {
    add("energy_per_user", "Energy per User", "J/user", energyJ / run.concurrency);
  }
  if (perRequest !== null && run.requestLatencyMs) {
    add(
      "energy_delay_product",
      "Energy Delay Product",
      "J·s",
      perRequest * run.requestLatencyMs / 1000,
    );
  }
  if (avgPowerW > 0) {
    if (run.requestThroughput) {
      add(
        "performance_per_watt",
        "Performance per Watt",
        "requests/sec/W",
        run.requestThroughput / avgPowerW,
      );
    }
    if (run.outputTokenThroughput) {
      add(
        "output_tps_per_watt",
        "Output TPS per Watt",
        "tokens/sec/W",
        run.outputTokenThroughput / avgPowerW,
      );
    }
    if (run.goodput) {
      add("goodput_per_watt", "Goodput per Watt", "requests/sec/W", run.goodput / avgPowerW);
    }
  }
  return out;
}
