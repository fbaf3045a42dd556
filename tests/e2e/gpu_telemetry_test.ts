/**
 * GPU telemetry end to end, against the mock's fake DCGM exporter: every scrape lands in
 * `gpu_telemetry_export.jsonl`, the profiling phase in the summary's `telemetry_data`, and the
 * energy metrics agree with a hand computation from the exported samples.
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { runCli } from "./helpers.ts";

function args(url: string, dir: string, ...more: string[]): string[] {
  return [
    "profile",
    "--url",
    url,
    "--model",
    "m",
    "--endpoint-type",
    "chat",
    "--streaming",
    "--synthetic-input-tokens-mean",
    "20",
    "--output-tokens-mean",
    "16",
    "--artifact-dir",
    dir,
    "--no-server-metrics",
    ...more,
  ];
}

function runDirOf(dir: string): string {
  const entries = [...Deno.readDirSync(dir)].filter((e) => e.isDirectory);
  assert.equal(entries.length, 1);
  return join(dir, entries[0].name);
}

/** Nanoseconds of an ISO time with microseconds (as the summary writes them). */
function isoNs(iso: string): bigint {
  const [whole, frac = "0"] = iso.split(".");
  const ms = Date.parse(`${whole}Z`);
  return BigInt(ms) * 1_000_000n + BigInt(frac.padEnd(6, "0").slice(0, 6)) * 1000n;
}

interface GpuLine {
  timestamp_ns: bigint;
  dcgm_url: string;
  gpu_uuid: string;
  telemetry_data: Record<string, number>;
}

Deno.test("GPU telemetry: jsonl, telemetry_data and energy metrics from the fake DCGM", async () => {
  const server = await startMockServer({ ttftMs: 100, itlMs: 20, outputTokens: 16, dcgm: true });
  const dir = await Deno.makeTempDir();
  try {
    const dcgm = `${server.url}/dcgm/metrics`;
    const res = await runCli(
      args(server.url, dir, "--concurrency", "4", "--request-count", "24", "--gpu-telemetry", dcgm),
    );
    assert.equal(res.code, 0, res.stderr);
    // The default exporters, absent here, are skipped in silence.
    assert.ok(!res.stderr.includes("GPU telemetry"), res.stderr);
    assert.match(res.stdout, /GPU Telemetry Summary\n1\/1 DCGM endpoints reachable/);
    const runDir = runDirOf(dir);
    const text = await Deno.readTextFile(join(runDir, "gpu_telemetry_export.jsonl"));
    const lines: GpuLine[] = text.trim().split("\n").map((l) => {
      const o = JSON.parse(l);
      // Exact nanoseconds: read from the text, a double cannot hold them.
      o.timestamp_ns = BigInt(/"timestamp_ns":(\d+)/.exec(l)![1]);
      return o;
    });
    assert.deepEqual([...new Set(lines.map((l) => l.dcgm_url))], [dcgm]);
    assert.equal(new Set(lines.map((l) => l.gpu_uuid)).size, 2);
    assert.ok(lines.length >= 6, `${lines.length} lines`);

    const summary = JSON.parse(await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")));
    const td = summary.telemetry_data;
    assert.deepEqual(td.summary.endpoints_successful, [dcgm]);
    const host = new URL(server.url).host;
    const gpu0 = td.endpoints[host].gpus.gpu_0;
    assert.equal(gpu0.gpu_name, "Mock GPU 80GB");
    assert.equal(gpu0.metrics.nvidia_power_usage.unit, "W");
    assert.ok(
      gpu0.metrics.nvidia_power_usage.avg >= 150 && gpu0.metrics.nvidia_power_usage.avg <= 250,
    );

    // By hand: per GPU, the energy counter's last sample of the phase less its reference (the
    // last sample at or before its start), MJ to J, summed.
    const start = isoNs(td.summary.start_time) + 999n;
    const end = isoNs(td.summary.end_time) + 999n;
    let energyJ = 0;
    for (const uuid of new Set(lines.map((l) => l.gpu_uuid))) {
      const mine = lines.filter((l) => l.gpu_uuid === uuid);
      const ref = mine.filter((l) => l.timestamp_ns <= start).at(-1) ?? mine[0];
      const last = mine.filter((l) => l.timestamp_ns <= end).at(-1)!;
      energyJ += (last.telemetry_data.nvidia_energy_consumption -
        ref.telemetry_data.nvidia_energy_consumption) * 1e6;
      assert.ok(last.timestamp_ns > ref.timestamp_ns);
    }
    const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.abs(b);
    const got = summary.nvidia_total_gpu_energy.avg;
    assert.ok(close(got, energyJ), `${got} J vs ${energyJ} J by hand`);
    // The fake GPUs draw 150-250 W and 250-350 W: the energy fits the phase's length.
    const duration = summary.benchmark_duration.avg;
    const watts = energyJ / duration;
    assert.ok(watts > 350 && watts < 650, `${watts} W`);
    const osl = summary.total_osl.avg;
    assert.equal(osl, 24 * 16);
    assert.ok(close(summary.nvidia_output_tokens_per_joule.avg, osl / energyJ));
    assert.ok(close(summary.nvidia_energy_per_output_token.avg, energyJ * 1000 / osl));
    assert.ok(close(summary.nvidia_average_gpu_power.avg, energyJ / duration));
    assert.ok(close(
      summary.nvidia_output_tps_per_watt.avg,
      summary.output_token_throughput.avg / (energyJ / duration),
    ));
    assert.ok(close(summary.nvidia_energy_per_user.avg, energyJ / 4));
    assert.equal(summary.nvidia_output_tokens_per_joule.unit, "tokens/J");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GPU telemetry: no exporter answering writes nothing and says nothing", async () => {
  const server = await startMockServer({ outputTokens: 4 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(args(server.url, dir, "--request-count", "4"));
    assert.equal(res.code, 0, res.stderr);
    assert.ok(!res.stderr.includes("GPU"), res.stderr);
    const runDir = runDirOf(dir);
    assert.equal(existsSync(join(runDir, "gpu_telemetry_export.jsonl")), false);
    const summary = JSON.parse(await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")));
    assert.equal("telemetry_data" in summary, false);
    assert.equal("nvidia_total_gpu_energy" in summary, false);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GPU telemetry: a given exporter that does not answer costs one warning", async () => {
  const server = await startMockServer({ outputTokens: 4 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(
      args(
        server.url,
        dir,
        "--request-count",
        "4",
        "--gpu-telemetry",
        `${server.url}/dcgm/metrics`,
      ),
    );
    assert.equal(res.code, 0, res.stderr);
    const warnings = res.stderr.split("\n").filter((l) => l.includes("GPU telemetry"));
    assert.equal(warnings.length, 1, res.stderr);
    assert.match(warnings[0], /no GPU telemetry from .*\/dcgm\/metrics \(HTTP 404\)/);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GPU telemetry: a bad custom-fields CSV is a config error before anything is sent", async () => {
  const server = await startMockServer({ outputTokens: 4 });
  const dir = await Deno.makeTempDir();
  try {
    const csv = join(dir, "fields.csv");
    await Deno.writeTextFile(csv, "# fields\nDCGM_FI_DEV_GPU_UTIL gauge GPU utilization\n");
    const res = await runCli(args(server.url, dir, "--request-count", "4", "--gpu-telemetry", csv));
    assert.equal(res.code, 2, res.stderr);
    assert.match(res.stderr, /--gpu-telemetry .*fields\.csv: line 2: expected "DCGM_FI_FIELD/);
    assert.equal(server.stats().requests, 0);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
