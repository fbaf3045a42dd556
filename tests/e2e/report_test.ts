/**
 * Metrics completeness, AIPerf compatibility, the HTML report and `compare`, end to end: two
 * profile runs against the mock server (streaming, reasoning, --goodput; the second with
 * failures), checked against AIPerf's own export files, then reported and compared.
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../../src/mock/server.ts";
import { readRecords, runCli } from "./helpers.ts";
import { REFERENCE } from "../_reference.ts";

const REF = join(REFERENCE, "aiperf");
const REF_DIR = fileURLToPath(new URL("../../../shared/reference/aiperf", import.meta.url));
const REFS = existsSync(REF_DIR) ? REF_DIR : REF;
const PAYLOADS = fileURLToPath(new URL("../../examples/payloads.jsonl", import.meta.url));
const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
const DRIVER = fileURLToPath(new URL("./report_browser_driver.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

type Json = Record<string, unknown>;

function kind(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

/** Keys of `ref` (with a non-null value) that `ours` lacks or holds with another JSON type. */
function missingKeys(ref: Json, ours: Json, path: string): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(ref)) {
    if (v === null) continue;
    if (!(k in ours)) out.push(`${path}.${k} missing`);
    else if (kind(ours[k]) !== kind(v)) {
      out.push(`${path}.${k} is ${kind(ours[k])}, AIPerf has ${kind(v)}`);
    }
  }
  return out;
}

function isMetric(v: unknown): v is Json {
  return kind(v) === "object" && typeof (v as Json).unit === "string";
}

/** Metric tags AIPerf exports that do not apply to a run against the mock server. */
const NOT_APPLICABLE = new Set([
  "prefill_throughput", // pre-1.0 name of prefill_throughput_per_user
  "telemetry_data",
]);

async function profile(url: string, dir: string, extra: string[]) {
  const res = await runCli([
    "profile",
    "--url",
    url.replace("http://", ""),
    "--model",
    "Qwen/Qwen3-0.6B",
    "--input-file",
    PAYLOADS,
    "--custom-dataset-type",
    "raw_payload",
    "--streaming",
    "--request-count",
    "12",
    "--goodput",
    "time_to_first_token:200 inter_token_latency:20",
    "--artifact-dir",
    dir,
    "--ui",
    "none",
    ...extra,
  ]);
  return res;
}

Deno.test("every metric, AIPerf's export schema, the HTML report and compare", async (t) => {
  const fast = await startMockServer({ ttftMs: 15, itlMs: 1, reasoningTokens: 6, seed: 1 });
  const slow = await startMockServer({
    ttftMs: 30,
    itlMs: 2,
    reasoningTokens: 6,
    errorRate: 0.25,
    seed: 7,
  });
  const tmp = await Deno.makeTempDir({ prefix: "reprise-report-" });
  const dirA = join(tmp, "a");
  const dirB = join(tmp, "b");
  try {
    const [resA, resB] = [
      await profile(fast.url, dirA, ["--concurrency", "1", "--slice-duration", "0.1", "--report"]),
      await profile(slow.url, dirB, ["--concurrency", "2"]),
    ];
    assert.equal(resA.code, 0, resA.stderr);
    assert.ok(resB.code === 0, resB.stderr);
    const runA = join(dirA, "Qwen_Qwen3-0.6B-openai-chat-concurrency1");
    const runB = join(dirB, "Qwen_Qwen3-0.6B-openai-chat-concurrency2");
    const a = JSON.parse(await Deno.readTextFile(join(runA, "profile_export_aiperf.json")));
    const b = JSON.parse(await Deno.readTextFile(join(runB, "profile_export_aiperf.json")));

    await t.step("part 1 metrics are exported, goodput included", () => {
      for (
        const tag of [
          "request_latency",
          "time_to_first_token",
          "time_to_second_token",
          "time_to_first_output_token",
          "decode_duration",
          "inter_token_latency",
          "inter_chunk_latency",
          "output_token_throughput_per_user",
          "prefill_throughput_per_user",
          "e2e_output_token_throughput",
          "input_sequence_length",
          "output_token_count",
          "reasoning_token_count",
          "output_sequence_length",
          "total_isl",
          "total_osl",
          "total_output_tokens",
          "total_reasoning_tokens",
          "request_count",
          "completed_request_count",
          "request_error_rate",
          "benchmark_duration",
          "request_throughput",
          "output_token_throughput",
          "input_token_throughput",
          "total_token_throughput",
          "good_request_count",
          "good_request_fraction",
          "goodput",
          "osl_mismatch_diff_pct",
          "osl_mismatch_count",
          "min_request_timestamp",
          "max_response_timestamp",
        ]
      ) assert.ok(isMetric(a[tag]), `run A lacks ${tag}`);
      assert.equal(a.request_count.avg, 12);
      assert.equal(a.reasoning_token_count.avg, 6);
      // The mock answers well within both SLOs.
      assert.equal(a.good_request_count.avg, 12);
      assert.equal(a.good_request_fraction.avg, 1);
      for (const tag of ["error_request_count", "error_isl", "total_error_isl"]) {
        assert.ok(isMetric(b[tag]), `run B lacks ${tag}`);
      }
      assert.ok(b.good_request_count.avg < 12);
      assert.ok(b.request_error_rate.avg > 0);
      assert.ok(b.error_summary.length > 0);
      // The mock adds reasoning on top of max_tokens: the run warns about the mismatch.
      assert.match(resA.stderr, /warning: \d+ of 12 requests got an output length/);
      assert.match(resA.stderr, /report: .*report\.html/);
    });

    await t.step("timeslices are exported in AIPerf's layout", async () => {
      const doc = JSON.parse(
        await Deno.readTextFile(join(runA, "profile_export_aiperf_timeslices.json")),
      );
      assert.ok(doc.timeslices.length >= 1);
      let total = 0;
      for (const s of doc.timeslices) {
        assert.equal(typeof s.timeslice_index, "number");
        total += s.request_count?.avg ?? 0;
      }
      assert.equal(total, 12);
      const csv = await Deno.readTextFile(join(runA, "profile_export_aiperf_timeslices.csv"));
      assert.equal(csv.split("\r\n")[0], "Timeslice,Metric,Unit,Stat,Value");
    });

    await t.step("profile_export_aiperf.json has every key and type of AIPerf's", async () => {
      const problems: string[] = [];
      for (const f of ["qwen_concurrency1", "smoke_100k_conc"]) {
        const ref = JSON.parse(
          await Deno.readTextFile(join(REFS, f, "profile_export_aiperf.json")),
        );
        for (const [k, v] of Object.entries(ref as Json)) {
          if (NOT_APPLICABLE.has(k) || v === null) continue;
          // Run B has the failures, so it is the one to hold the error metrics.
          const ours = k.startsWith("error") || k === "total_error_isl" ? b : a;
          if (isMetric(v)) {
            if (!isMetric(ours[k])) problems.push(`${f}: metric ${k} missing`);
            else problems.push(...missingKeys(v, ours[k], `${f}: ${k}`));
            if (isMetric(ours[k]) && ours[k].unit !== v.unit) {
              problems.push(`${f}: ${k} unit ${ours[k].unit}, AIPerf ${v.unit}`);
            }
          } else if (k === "error_summary") {
            for (const e of v as Json[]) {
              problems.push(...missingKeys({ count: e.count }, b.error_summary[0], `${f}: error`));
              const details = { ...(e.error_details as Json) };
              delete details.cause; // a Python exception's cause; reprise's errors have none
              delete details.cause_chain;
              problems.push(
                ...missingKeys(details, b.error_summary[0].error_details, `${f}: error_details`),
              );
            }
          } else if (k !== "input_config") {
            problems.push(...missingKeys({ [k]: v }, ours, f));
          }
        }
      }
      assert.deepEqual(problems, []);
      // The current schema's parts the fixtures predate.
      assert.equal(a.schema_version, "1.5");
      assert.equal(typeof a.run_info.benchmark_id, "string");
      assert.equal(typeof a.run_info.cli_command, "string");
      assert.equal(a.run_info.benchmark_id, a.benchmark_id);
      assert.equal(kind(a.input_config), "object");
      for (const tag of ["time_to_first_token", "inter_chunk_latency", "request_latency"]) {
        assert.equal(typeof a[tag].count, "number", `${tag}.count`);
        assert.equal(typeof a[tag].sum, "number", `${tag}.sum`);
      }
      assert.equal(a.warmup_metrics, undefined, "no warmup phase, no warmup_metrics");
    });

    await t.step("profile_export.jsonl has every key and type of AIPerf's records", async () => {
      const refLine =
        (await Deno.readTextFile(join(REFS, "qwen_concurrency1/profile_export.jsonl")))
          .split("\n")[0];
      const ref = JSON.parse(refLine);
      const ours = (await readRecords(join(runA, "profile_export.jsonl")))[0];
      const problems = missingKeys(ref.metadata, ours.metadata as Json, "metadata");
      for (const [tag, m] of Object.entries(ref.metrics as Record<string, Json>)) {
        if (NOT_APPLICABLE.has(tag)) continue;
        const o = (ours.metrics as Record<string, Json>)[tag];
        if (!o) problems.push(`metrics.${tag} missing`);
        else problems.push(...missingKeys(m, o, `metrics.${tag}`));
      }
      assert.deepEqual(problems, []);
      assert.ok("error" in ours);
    });

    await t.step("profile_export_aiperf.csv has AIPerf's columns and rows", async () => {
      const ref = (await Deno.readTextFile(join(REFS, "examples_run1/profile_export_aiperf.csv")))
        .split(/\r?\n/);
      const ours = (await Deno.readTextFile(join(runA, "profile_export_aiperf.csv")))
        .split(/\r?\n/);
      const oursB = (await Deno.readTextFile(join(runB, "profile_export_aiperf.csv")))
        .split(/\r?\n/);
      const ourCols = ours[0].split(",");
      for (const c of ref[0].split(",")) assert.ok(ourCols.includes(c), `column ${c} missing`);
      assert.ok(ours.includes("Metric,Value"));
      const names = new Set([...ours, ...oursB].map((l) => l.split(",")[0]));
      for (const line of ref.slice(1)) {
        const name = line.split(",")[0];
        if (name === "" || name === "Metric") continue;
        assert.ok(names.has(name), `row "${name}" missing`);
      }
    });

    await t.step("compare shows the change in percent, as text and JSON", async () => {
      const text = await runCli(["compare", runA, runB]);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^Metric\s+Stat/);
      assert.match(
        text.stdout,
        /time_to_first_token \(ms\)\s+avg\s+[\d.]+\s+[\d.]+\s+\+[\d.]+% worse/,
      );
      const json = await runCli(["compare", runA, runB, "--output-format", "json"]);
      assert.equal(json.code, 0, json.stderr);
      const doc = JSON.parse(json.stdout);
      const ttft = doc.metrics.find((m: Json) =>
        m.tag === "time_to_first_token" && m.stat === "avg"
      );
      assert.equal(ttft.base, a.time_to_first_token.avg);
      assert.equal(ttft.other, b.time_to_first_token.avg);
      assert.ok(Math.abs(ttft.change_pct - (ttft.other / ttft.base - 1) * 100) < 1e-9);
      const bad = await runCli(["compare", runA]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /exactly two artifact directories/);
      const missing = await runCli(["compare", runA, tmp]);
      assert.equal(missing.code, 3);
      assert.match(missing.stderr, /has no profile_export_aiperf\.json/);
    });

    const html = join(tmp, "out", "report.html");
    await t.step("report writes one self-contained HTML file of two runs", async () => {
      const res = await runCli(["report", runA, runB, "--output", html]);
      assert.equal(res.code, 0, res.stderr);
      const text = await Deno.readTextFile(html);
      assert.ok(text.includes("uPlot"), "charting library inlined");
      assert.ok(!/<script[^>]+src=|<link[^>]+href=/i.test(text), "no external resources");
      assert.ok(text.includes('id="comparison"'));
      assert.ok((await Deno.stat(join(runA, "report.html"))).size > 10_000);
    });

    await t.step({
      name: "the report's charts render in Chromium" +
        (CHROMIUM ? "" : " (skipped: no chromium at /usr/bin/chromium)"),
      ignore: CHROMIUM === undefined,
      fn: async () => {
        const screenshot = join(tmp, "out", "report.png");
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            `--config=${CONFIG}`,
            // Playwright probes /proc at load time, which Deno grants only with --allow-all.
            "--allow-all",
            DRIVER,
            CHROMIUM!,
            html,
            screenshot,
          ],
          stdout: "piped",
          stderr: "piped",
          signal: AbortSignal.timeout(150_000),
        }).output();
        const stdout = new TextDecoder().decode(out.stdout);
        assert.equal(
          out.code,
          0,
          `browser driver failed:\n${new TextDecoder().decode(out.stderr)}`,
        );
        const r = JSON.parse(stdout.trim().split("\n").pop()!);
        assert.deepEqual(r.foreign, []);
        assert.deepEqual(r.consoleErrors, []);
        const ids = r.charts.map((c: Json) => c.id);
        for (
          const id of [
            "ttft-time",
            "itl-time",
            "latency-time",
            "token-throughput-time",
            "request-throughput-time",
            "errors-time",
            "ttft-hist",
            "itl-hist",
            "latency-hist",
          ]
        ) assert.ok(ids.includes(`chart-${id}`), `chart ${id} missing`);
        // The server's charts (the mock's vLLM /metrics) sit under every client chart.
        const server = r.charts.filter((c: Json) => c.section === "server-charts");
        for (
          const id of [
            "server-waiting",
            "server-running",
            "server-ttft",
            "server-generation-tokens",
            "server-prompt-tokens",
          ]
        ) assert.ok(ids.includes(`chart-${id}`), `server chart ${id} missing`);
        const client = r.charts.filter((c: Json) => c.section === "charts");
        assert.ok(client.length >= 6 && server.length >= 5);
        const lowestClient = Math.max(...client.map((c: Json) => c.top as number));
        for (const c of server) {
          assert.ok(c.top > lowestClient, `${c.id} is not under the client's`);
        }
        assert.equal(r.rendered, r.charts.length);
        for (const c of r.charts) {
          assert.ok(c.width > 0 && c.painted > 1000, `${c.id} drew nothing (${c.painted} px)`);
          // Both runs are drawn on every chart.
          assert.ok(c.series.length >= 3, `${c.id} legend ${c.series}`);
        }
        assert.ok(r.comparisonRows > 20);
        assert.ok((await Deno.stat(screenshot)).size > 10_000);
        console.log(`report screenshot: ${screenshot}`);
      },
    });
  } finally {
    await fast.close();
    await slow.close();
  }
});
