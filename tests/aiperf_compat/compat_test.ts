/**
 * An AIPerf user's own tooling, written from AIPerf's documentation, run unchanged against a
 * reprise run: the Prometheus scrape config (prometheus.yml) must find every series it keeps on
 * reprise's `/metrics`, with the labels its relabelling reads; the jq script (summary.jq) must
 * read profile_export_aiperf.json and profile_export.jsonl into the values the run had.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { parse as parseYaml } from "yaml";
import { startMockServer } from "../../src/mock/server.ts";
import { startCli } from "../e2e/helpers.ts";

const HERE = new URL(".", import.meta.url).pathname;
const PAYLOADS = new URL("../../examples/payloads.jsonl", import.meta.url).pathname;

interface Family {
  name: string;
  metrics: { labels?: Record<string, string> }[];
}

interface RelabelRule {
  source_labels?: string[];
  regex?: string;
  action?: string;
}

/** Whether `jq` runs here; the jq test is skipped with a note when it does not. */
function hasJq(): boolean {
  try {
    return new Deno.Command("jq", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

async function waitFor<T>(f: () => T | undefined, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("timed out");
}

/**
 * The series names a `keep` regex of the form `aiperf_(a|b|…)(_sum|_count)?` selects: the
 * prefix joined to each alternative of the first group.
 */
function keptNames(regex: string): string[] {
  const m = /^([a-z_]+)\(([^()]+)\)/.exec(regex);
  assert.ok(m, `unexpected keep regex ${regex}`);
  return m[2].split("|").map((alt) => m[1] + alt);
}

/** One run with the live API, scraped once complete; its artifact directory stays for jq. */
async function runAndScrape(dir: string): Promise<{ metrics: string; runDir: string }> {
  const server = await startMockServer({ ttftMs: 5, itlMs: 1, outputTokens: 8 });
  const run = startCli([
    "profile",
    "-m",
    "Qwen/Qwen3-0.6B",
    "--url",
    server.url,
    "--input-file",
    PAYLOADS,
    "--custom-dataset-type",
    "raw_payload",
    "--streaming",
    "--concurrency",
    "2",
    "--request-count",
    "8",
    "--api-port",
    "0",
    "--api-linger-seconds",
    "30",
    "--artifact-dir",
    dir,
    "--ui",
    "none",
  ]);
  try {
    const api = await waitFor(
      () => /live API on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stderr())?.[1],
      30_000,
    );
    let status = "";
    for (let i = 0; i < 600 && status !== "complete"; i++) {
      status = (await (await fetch(`${api}/api/results`)).json()).status;
      if (status !== "complete") await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, "complete");
    const metrics = await (await fetch(`${api}/metrics`)).text();
    // A signal during the linger ends it; the run keeps its exit code.
    run.interrupt();
    const out = await run.done();
    assert.equal(out.code, 0, out.stderr);
    let runDir = "";
    for await (const e of Deno.readDir(dir)) if (e.isDirectory) runDir = join(dir, e.name);
    return { metrics, runDir };
  } finally {
    run.interrupt();
    await run.done().catch(() => {});
    await server.close();
  }
}

Deno.test("an AIPerf user's scrape config and jq script work on reprise's outputs", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "reprise-aiperf-compat-" });
  try {
    const { metrics, runDir } = await runAndScrape(dir);

    await t.step(
      "every series the scrape config keeps is on /metrics, with its labels",
      async () => {
        const config = parseYaml(await Deno.readTextFile(join(HERE, "prometheus.yml"))) as {
          scrape_configs: { metrics_path: string; metric_relabel_configs: RelabelRule[] }[];
        };
        const job = config.scrape_configs[0];
        assert.equal(job.metrics_path, "/metrics");
        const families = parsePrometheusTextFormat(metrics) as Family[];
        const byName = new Map(families.map((f) => [f.name, f]));
        const rules = job.metric_relabel_configs;
        const keep = rules.find((r) => r.action === "keep" && r.source_labels?.[0] === "__name__");
        assert.ok(keep?.regex, "the config keeps series by name");
        // Prometheus anchors relabel regexes at both ends.
        const anchored = new RegExp(`^(?:${keep.regex})$`);
        const names = keptNames(keep.regex);
        assert.ok(names.length >= 10);
        const missing = names.filter((n) => !byName.has(n));
        assert.deepEqual(
          missing,
          [],
          `not on reprise's /metrics:\n${[...byName.keys()].join("\n")}`,
        );
        // The labels the other rules read are on every kept series.
        const read = new Set(
          rules.filter((r) => r !== keep).flatMap((r) => r.source_labels ?? []),
        );
        // Read from the sample lines: the npm parser drops a summary's labels.
        for (const name of names) {
          assert.ok(anchored.test(name), name);
          const sample = new RegExp(`^${name}(?:_sum|_count)?\\{([^}]*)\\}`, "gm");
          const samples = [...metrics.matchAll(sample)];
          assert.ok(samples.length > 0, `no labelled sample of ${name}`);
          for (const [, labels] of samples) {
            for (const label of read) {
              assert.match(labels, new RegExp(`(?:^|,)${label}="[^"]+"`), `${name}: ${label}`);
            }
          }
        }
        // The summaries' _sum and _count series are selected too.
        assert.match(metrics, /^aiperf_request_latency_ms_count\{[^}]*\} 8$/m);
        assert.ok(anchored.test("aiperf_request_latency_ms_count"));
      },
    );

    const jq = hasJq();
    if (!jq) console.log("jq is not installed: the jq script was not run (apt-get install jq)");
    await t.step({
      name: "the jq script reads the summary and records unchanged",
      ignore: !jq,
      fn: async () => {
        const out = await new Deno.Command("jq", {
          args: [
            "-n",
            "-c",
            "-f",
            join(HERE, "summary.jq"),
            "--slurpfile",
            "summary",
            join(runDir, "profile_export_aiperf.json"),
            "--slurpfile",
            "records",
            join(runDir, "profile_export.jsonl"),
          ],
          stdout: "piped",
          stderr: "piped",
        }).output();
        const err = new TextDecoder().decode(out.stderr);
        assert.ok(out.success, err);
        const row = JSON.parse(new TextDecoder().decode(out.stdout));
        const nulls = Object.entries(row).filter(([, v]) => v === null).map(([k]) => k);
        assert.deepEqual(nulls, [], "every value the script reads is there");
        assert.equal(row.schema_version, "1.5");
        assert.match(row.benchmark_id, /^[0-9a-f]{32}$/);
        assert.equal(row.run_benchmark_id, row.benchmark_id);
        assert.match(row.start_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
        assert.match(row.cli_command, /profile/);
        assert.equal(row.model, "Qwen/Qwen3-0.6B");
        assert.equal(row.endpoint_type, "chat");
        assert.equal(row.streaming, true);
        assert.equal(row.concurrency, 2);
        assert.equal(row.request_count, 8);
        assert.equal(row.request_throughput_unit, "requests/sec");
        assert.equal(row.latency_unit, "ms");
        assert.equal(row.latency_count, 8);
        assert.equal(row.errors, 0);
        assert.equal(row.records, 8);
        assert.equal(row.records_ok, 8);
        assert.ok(row.records_last_end_ns > row.records_first_start_ns);
        assert.ok(row.benchmark_duration_sec > 0);
        assert.ok(row.ttft_p99_ms >= row.ttft_p50_ms);
      },
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
