/**
 * What a DCGM exporter's `/metrics` means per GPU: its `DCGM_FI_*` fields become AIPerf's
 * `nvidia_*` telemetry fields in AIPerf's units, and a custom-fields CSV (dcgm-exporter's own
 * format, as AIPerf reads it) adds fields to those shown.
 */

import type { Family } from "./prometheus.ts";

/** How one DCGM field becomes one telemetry field. */
export interface DcgmField {
  /** The telemetry field (`nvidia_power_usage`). */
  name: string;
  /** The console's name for it (`GPU Power Usage`). */
  header: string;
  /** AIPerf's unit after scaling (`W`, `MJ`, `GB`, `%`). */
  unit: string;
  /** Multiplies the exporter's value. */
  scale: number;
  /** A running total (energy, violations): its increase over the phase is what counts. */
  counter: boolean;
  /** One of AIPerf's core fields, shown without a custom CSV. */
  core: boolean;
}

const f = (
  name: string,
  header: string,
  unit: string,
  scale = 1,
  counter = false,
  core = false,
): DcgmField => ({ name, header, unit, scale, counter, core });

/**
 * AIPerf's mapping of DCGM fields (its `gpu_telemetry/constants.py`): the core fields, then the
 * other fields of its custom CSV with the un-prefixed names of its older exports, prefixed.
 */
export const DCGM_FIELDS: Record<string, DcgmField> = {
  DCGM_FI_DEV_POWER_USAGE: f("nvidia_power_usage", "GPU Power Usage", "W", 1, false, true),
  DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION: f(
    "nvidia_energy_consumption",
    "Energy Consumption",
    "MJ",
    1e-9,
    true,
    true,
  ),
  DCGM_FI_DEV_GPU_UTIL: f("nvidia_gpu_utilization", "GPU Utilization", "%", 1, false, true),
  DCGM_FI_DEV_MEM_COPY_UTIL: f("nvidia_memory_utilization", "Memory Copy Utilization", "%"),
  DCGM_FI_DEV_FB_USED: f("nvidia_memory_used", "GPU Memory Used", "GB", 1.048576e-3, false, true),
  DCGM_FI_DEV_GPU_TEMP: f("nvidia_temperature", "GPU Temperature", "°C", 1, false, true),
  DCGM_FI_DEV_ENC_UTIL: f("nvidia_encoder_utilization", "Encoder Utilization", "%"),
  DCGM_FI_DEV_DEC_UTIL: f("nvidia_decoder_utilization", "Decoder Utilization", "%"),
  DCGM_FI_PROF_SM_ACTIVE: f("nvidia_sm_utilization", "SM Utilization", "%", 100),
  DCGM_FI_DEV_XID_ERRORS: f("nvidia_xid_errors", "XID Errors", "count", 1, true, true),
  DCGM_FI_DEV_POWER_VIOLATION: f(
    "nvidia_power_violation",
    "Power Violation",
    "µs",
    1e-3,
    true,
    true,
  ),
  DCGM_FI_DEV_SM_CLOCK: f("nvidia_sm_clock_frequency", "SM Clock Frequency", "MHz"),
  DCGM_FI_DEV_MEM_CLOCK: f("nvidia_memory_clock_frequency", "Memory Clock Frequency", "MHz"),
  DCGM_FI_DEV_MEMORY_TEMP: f("nvidia_memory_temperature", "Memory Temperature", "°C"),
  DCGM_FI_DEV_POWER_MGMT_LIMIT: f("nvidia_power_management_limit", "Power Management Limit", "W"),
  DCGM_FI_DEV_FB_FREE: f("nvidia_memory_free", "GPU Memory Free", "GB", 1.048576e-3),
  DCGM_FI_DEV_FB_TOTAL: f("nvidia_memory_total", "GPU Memory Total", "GB", 1.048576e-3),
  DCGM_FI_DEV_THERMAL_VIOLATION: f(
    "nvidia_thermal_violation",
    "Thermal Violation",
    "µs",
    1e-3,
    true,
  ),
};

/** DCGM's marker values for a field the GPU does not support (from 2^63 - 15 up). */
const SENTINEL = 9.2e18;

/**
 * Reads a custom-fields CSV (`DCGM_FI_FIELD, type, help` per line, `#` comments): the fields it
 * names, known ones with AIPerf's mapping, others named after the field with the unit its help
 * gives (`(in MHz)`). Throws on a line that is not `field, gauge|counter, help`.
 */
export function parseCustomFields(text: string): Record<string, DcgmField> {
  const out: Record<string, DcgmField> = {};
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const [field, type, ...help] = line.split(",").map((s) => s.trim());
    if (!/^DCGM_[A-Z0-9_]+$/.test(field ?? "") || !/^(gauge|counter)$/i.test(type ?? "")) {
      throw new Error(`line ${i + 1}: expected "DCGM_FI_FIELD, gauge|counter, help"`);
    }
    const known = DCGM_FIELDS[field];
    if (known) {
      out[field] = { ...known, core: true };
      continue;
    }
    const text = help.join(",");
    const unit = /\(in ([^)]+)\)/.exec(text)?.[1] ?? "";
    const base = field.replace(/^DCGM_(FI_)?(DEV_|PROF_)?/, "").toLowerCase();
    out[field] = {
      name: `nvidia_${base}`,
      header: text.replace(/\s*\(in [^)]+\)\.?$/, "").replace(/\.$/, "") || base,
      unit,
      scale: 1,
      counter: type.toLowerCase() === "counter",
      core: true,
    };
  }
  return out;
}

/** One GPU as an exporter describes it. */
export interface GpuIdentity {
  gpu_index: number;
  gpu_uuid: string;
  gpu_model_name: string;
  pci_bus_id: string;
  device: string;
  hostname: string;
}

/** One GPU's fields at one scrape. */
export interface GpuSample extends GpuIdentity {
  values: Record<string, number>;
}

/**
 * The GPUs of one exposition and their fields (scaled, sentinels dropped); a GPU is told apart by
 * its UUID (its index when the exporter gives none).
 */
export function gpuSamples(
  families: Map<string, Family>,
  fields: Record<string, DcgmField>,
): GpuSample[] {
  const gpus = new Map<string, GpuSample>();
  for (const [dcgm, field] of Object.entries(fields)) {
    const family = families.get(dcgm);
    if (!family) continue;
    for (const s of family.series.values()) {
      if (s.value === undefined || !Number.isFinite(s.value) || s.value >= SENTINEL) continue;
      const l = s.labels;
      const index = Number(l.gpu ?? l.GPU_I_ID ?? 0);
      const uuid = l.UUID ?? l.uuid ?? `gpu-${index}`;
      const key = `${uuid}|${index}`;
      let gpu = gpus.get(key);
      if (!gpu) {
        gpus.set(
          key,
          gpu = {
            gpu_index: Number.isFinite(index) ? index : 0,
            gpu_uuid: uuid,
            gpu_model_name: l.modelName ?? l.model_name ?? "",
            pci_bus_id: l.pci_bus_id ?? "",
            device: l.device ?? "",
            hostname: l.Hostname ?? l.hostname ?? "",
            values: {},
          },
        );
      }
      gpu.values[field.name] = s.value * field.scale;
    }
  }
  return [...gpus.values()].sort((a, b) => a.gpu_index - b.gpu_index);
}

/** The default DCGM exporters AIPerf tries (Dynamo's on 9401): skipped in silence when absent. */
export const DEFAULT_DCGM_URLS = ["http://localhost:9400/metrics", "http://localhost:9401/metrics"];
