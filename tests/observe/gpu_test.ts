/**
 * GPU telemetry from DCGM: fields become AIPerf's `nvidia_*` names in AIPerf's units, a custom CSV
 * adds fields, and the energy-efficiency metrics agree with a hand computation.
 */

import assert from "node:assert/strict";
import { DCGM_FIELDS, gpuSamples, parseCustomFields } from "../../src/observe/dcgm.ts";
import { parseExposition } from "../../src/observe/prometheus.ts";
import { energyMetrics } from "../../src/observe/energy.ts";
import {
  GpuTelemetry,
  gpuTelemetrySettings,
  telemetryData,
} from "../../src/observe/gpu_telemetry.ts";
import { dcgmExposition, fakeEnergyMJ, fakePowerW } from "../../src/mock/dcgm.ts";
import { REFERENCE } from "../_reference.ts";

Deno.test("DCGM fields become nvidia_* fields, scaled to AIPerf's units", () => {
  const t = 1.7;
  const gpus = gpuSamples(parseExposition(dcgmExposition(t, 3))!, DCGM_FIELDS);
  assert.equal(gpus.length, 2);
  const [g0, g1] = gpus;
  assert.equal(g0.gpu_index, 0);
  assert.equal(g1.gpu_uuid, "GPU-00000000-0000-4000-8000-000000000001");
  assert.equal(g0.gpu_model_name, "Mock GPU 80GB");
  assert.equal(g0.hostname, "mock-host");
  assert.ok(Math.abs(g0.values.nvidia_power_usage - fakePowerW(0, t)) < 1e-9);
  // mJ to MJ.
  const mj = Math.round(fakeEnergyMJ(1, t));
  assert.ok(Math.abs(g1.values.nvidia_energy_consumption - mj * 1e-9) < 1e-12);
  // MiB to GB.
  assert.ok(Math.abs(g0.values.nvidia_memory_used - 40000 * 1.048576e-3) < 1e-9);
  assert.equal(g0.values.nvidia_gpu_utilization, 30);
  // The unsupported-field marker is no value.
  assert.equal("nvidia_memory_temperature" in g0.values, false);
});

Deno.test("AIPerf's custom-fields CSV: known fields mapped, others named after the field", () => {
  const csv = Deno.readTextFileSync(`${REFERENCE}/aiperf/docs_snippets/custom_gpu_metrics.csv`);
  const fields = parseCustomFields(
    csv + "DCGM_FI_DEV_PCIE_REPLAY_COUNTER, counter, PCIe replays (in count).\n",
  );
  assert.equal(Object.keys(fields).length, 16);
  assert.equal(fields.DCGM_FI_DEV_MEM_CLOCK.name, "nvidia_memory_clock_frequency");
  assert.equal(fields.DCGM_FI_DEV_MEM_CLOCK.core, true);
  const replay = fields.DCGM_FI_DEV_PCIE_REPLAY_COUNTER;
  assert.equal(replay.name, "nvidia_pcie_replay_counter");
  assert.equal(replay.counter, true);
  assert.equal(replay.unit, "count");
  assert.equal(replay.header, "PCIe replays");
  assert.throws(() => parseCustomFields("DCGM_FI_DEV_GPU_UTIL gauge\n"), /line 1: expected/);
});

Deno.test("--gpu-telemetry values: URLs, a CSV, dashboard; local GPU libraries refused", () => {
  const s = gpuTelemetrySettings(
    ["node1:9400", "dashboard", "http://node3:9400/metrics", "f.csv"],
    () => "DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz)\n",
    parseCustomFields,
  );
  assert.deepEqual(s.urls, ["http://node1:9400/metrics", "http://node3:9400/metrics"]);
  assert.deepEqual(Object.keys(s.customFields), ["DCGM_FI_DEV_SM_CLOCK"]);
  assert.equal(s.show, true);
  assert.equal(gpuTelemetrySettings(undefined, () => "", parseCustomFields).show, false);
  assert.throws(() => gpuTelemetrySettings(["pynvml"], () => "", parseCustomFields), /pynvml/);
  assert.throws(
    () => gpuTelemetrySettings(["bad.csv"], () => "x", parseCustomFields),
    /--gpu-telemetry bad\.csv: line 1/,
  );
});

/** GPU telemetry holding three scrapes, a second apart, of two GPUs (power W, energy mJ). */
function telemetry(samples: [number, number][][], withEnergy = true): GpuTelemetry {
  const t = new GpuTelemetry(
    { urls: ["http://dcgm/metrics"], customFields: {}, show: false },
    () => {},
  );
  const e = t.scraper.endpoints.find((x) => x.url === "http://dcgm/metrics")!;
  for (const x of t.scraper.endpoints) if (x !== e) x.ok = false;
  samples.forEach((gpus, i) => {
    const lines = gpus.flatMap(([w, mj], g) => [
      `DCGM_FI_DEV_POWER_USAGE{gpu="${g}",UUID="U${g}"} ${w}`,
      ...(withEnergy
        ? [`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="${g}",UUID="U${g}"} ${mj}`]
        : []),
    ]);
    const tNs = BigInt(i) * 1_000_000_000n;
    e.snapshots.push({ tNs, sentNs: tNs, families: parseExposition(lines.join("\n"))! });
  });
  return t;
}

const SAMPLES: [number, number][][] = [
  [[100, 1e9], [50, 2e9]],
  [[200, 1e9 + 150e3], [50, 2e9 + 50e3]],
  [[300, 1e9 + 400e3], [50, 2e9 + 100e3]],
];

const RUN = {
  durationS: 2,
  totalOsl: 1000,
  totalIsl: 4000,
  requestCount: 10,
  requestLatencyMs: 500,
  requestThroughput: 5,
  outputTokenThroughput: 500,
  goodput: 4,
  concurrency: 4,
};

Deno.test("energy metrics from the energy counters, against a hand computation", () => {
  const m = Object.fromEntries(energyMetrics(telemetry(SAMPLES), RUN).map((x) => [x.tag, x]));
  // GPU 0: 400e3 mJ = 400 J; GPU 1: 100 J. Average powers 200 W and 50 W.
  const expected: Record<string, number> = {
    nvidia_total_gpu_power: 250,
    nvidia_total_gpu_energy: 500,
    nvidia_average_gpu_power: 250,
    nvidia_output_tokens_per_joule: 2,
    nvidia_energy_per_output_token: 500,
    nvidia_energy_per_total_token: 100,
    nvidia_energy_per_request: 50,
    nvidia_energy_per_user: 125,
    nvidia_energy_delay_product: 25,
    nvidia_performance_per_watt: 0.02,
    nvidia_output_tps_per_watt: 2,
    nvidia_goodput_per_watt: 0.016,
  };
  assert.deepEqual(Object.keys(m).sort(), Object.keys(expected).sort());
  for (const [tag, v] of Object.entries(expected)) {
    assert.ok(Math.abs(m[tag].value - v) < 1e-9 * Math.max(1, v), `${tag}: ${m[tag].value}`);
  }
  assert.equal(m.nvidia_output_tokens_per_joule.unit, "tokens/J");
  assert.equal(m.nvidia_energy_per_output_token.unit, "mJ/token");
});

Deno.test("energy metrics without an energy counter: power times the phase", () => {
  const m = Object.fromEntries(
    energyMetrics(telemetry(SAMPLES, false), RUN).map((x) => [x.tag, x.value]),
  );
  assert.equal(m.nvidia_total_gpu_energy, 500);
  assert.equal(m.nvidia_average_gpu_power, 250);
  assert.equal(m.nvidia_output_tokens_per_joule, 2);
});

Deno.test("telemetry_data: AIPerf's layout, a counter's increase as its total", () => {
  const data = telemetryData(telemetry(SAMPLES)) as {
    summary: { endpoints_configured: string[]; endpoints_successful: string[] };
    endpoints: Record<string, { gpus: Record<string, Record<string, unknown>> }>;
  };
  assert.deepEqual(data.summary.endpoints_successful, ["http://dcgm/metrics"]);
  const gpu0 = data.endpoints["dcgm"].gpus.gpu_0;
  assert.equal(gpu0.gpu_uuid, "U0");
  const metrics = gpu0.metrics as Record<string, Record<string, number | string>>;
  assert.equal(metrics.nvidia_power_usage.avg, 200);
  assert.equal(metrics.nvidia_power_usage.std, 100);
  assert.equal(metrics.nvidia_power_usage.unit, "W");
  assert.ok(Math.abs((metrics.nvidia_energy_consumption.total as number) - 400e3 * 1e-9) < 1e-15);
});
