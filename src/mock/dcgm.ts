/**
 * The mock's fake DCGM exporter (`reprise mock-server --dcgm`: `GET /dcgm/metrics`): two GPUs in
 * dcgm-exporter's exposition format, whose power follows a slow wave and whose energy counter is
 * exactly that power's integral, so that tests can check energy figures by hand.
 */

/** One fake GPU's figures. */
interface FakeGpu {
  uuid: string;
  /** Mean power, watts. */
  baseW: number;
  /** Energy counter at the mock's start, mJ. */
  energy0MJ: number;
}

const GPUS: FakeGpu[] = [
  { uuid: "GPU-00000000-0000-4000-8000-000000000000", baseW: 200, energy0MJ: 5e9 },
  { uuid: "GPU-00000000-0000-4000-8000-000000000001", baseW: 300, energy0MJ: 7e9 },
];

/** Amplitude (W) and period (s) of the power wave. */
const AMP_W = 50;
const PERIOD_S = 4;

/** Power (W) of GPU `i` at `t` seconds after the mock started. */
export function fakePowerW(i: number, t: number): number {
  return GPUS[i].baseW + AMP_W * Math.sin(2 * Math.PI * t / PERIOD_S);
}

/** The energy counter (mJ) of GPU `i` at `t` seconds: its start value plus the power's integral. */
export function fakeEnergyMJ(i: number, t: number): number {
  const w = 2 * Math.PI / PERIOD_S;
  return GPUS[i].energy0MJ + 1000 * (GPUS[i].baseW * t + AMP_W / w * (1 - Math.cos(w * t)));
}

const FAMILIES: [string, "gauge" | "counter", string][] = [
  ["DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz)."],
  ["DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C)."],
  ["DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W)."],
  [
    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
    "counter",
    "Total energy consumption since boot (in mJ).",
  ],
  ["DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %)."],
  ["DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %)."],
  ["DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB)."],
  ["DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB)."],
  ["DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered."],
  [
    "DCGM_FI_DEV_POWER_VIOLATION",
    "counter",
    "Throttling duration due to power constraints (in us).",
  ],
  ["DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C)."],
];

/** The exposition at `t` seconds after the mock started; `running` requests drive utilisation. */
export function dcgmExposition(t: number, running: number): string {
  const lines: string[] = [];
  for (const [name, type, help] of FAMILIES) {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (let i = 0; i < GPUS.length; i++) {
      const g = GPUS[i];
      const labels = `gpu="${i}",UUID="${g.uuid}",pci_bus_id="00000000:0${
        i + 1
      }:00.0",device="nvidia${i}",modelName="Mock GPU 80GB",Hostname="mock-host"`;
      const value = name === "DCGM_FI_DEV_POWER_USAGE"
        ? fakePowerW(i, t)
        : name === "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
        ? Math.round(fakeEnergyMJ(i, t))
        : name === "DCGM_FI_DEV_GPU_UTIL"
        ? Math.min(100, running * 10)
        : name === "DCGM_FI_DEV_FB_USED"
        ? 40000 + i * 1000
        : name === "DCGM_FI_DEV_FB_FREE"
        ? 41000 - i * 1000
        : name === "DCGM_FI_DEV_SM_CLOCK"
        ? 1980
        : name === "DCGM_FI_DEV_GPU_TEMP"
        ? 40 + i
        : name === "DCGM_FI_DEV_MEMORY_TEMP"
        // dcgm-exporter's marker for a field the GPU does not support.
        ? 9223372036854775794
        : 0;
      lines.push(`${name}{${labels}} ${value}`);
    }
  }
  return lines.join("\n") + "\n";
}
