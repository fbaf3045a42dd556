import assert from "node:assert/strict";
import parsePrometheus from "parse-prometheus-text-format";
import {
  escapeLabelValue,
  formatPrometheus,
  formatValue,
  sanitizeName,
  sanitizeUnit,
} from "../../src/api/prometheus.ts";
import type { RunInfo } from "../../src/api/types.ts";
import { AIPERF_COMPAT_VERSION } from "../../src/export/summary_json.ts";
import { sampleSnapshot } from "./fake_source.ts";

interface Family {
  name: string;
  help: string;
  type: string;
  metrics: {
    value?: string;
    labels?: Record<string, string>;
    quantiles?: Record<string, string>;
  }[];
}

const run: RunInfo = { benchmark_id: "bench-1", random_seed: null, cli_command: "" };

function families(text: string): Map<string, Family> {
  const parsed = parsePrometheus(text) as Family[];
  return new Map(parsed.map((f) => [f.name, f]));
}

// The 0.0.4 line grammar, checked line by line (the npm parser is lenient in places).
const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"`;
const VALUE = "(?:[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?|NaN|\\+Inf|-Inf)";
const SAMPLE = new RegExp(`^${NAME}(?:\\{${LABEL}(?:,${LABEL})*\\})? ${VALUE}$`);
const COMMENT = new RegExp(
  `^# (?:HELP ${NAME} .*|TYPE ${NAME} (?:counter|gauge|summary|histogram|untyped))$`,
);

Deno.test("formatPrometheus output", async (t) => {
  const snap = sampleSnapshot();
  const text = formatPrometheus(snap, run, "running");
  const fams = families(text);

  await t.step("every line is valid exposition format, ending with a newline", () => {
    assert.ok(text.endsWith("\n"));
    for (const line of text.slice(0, -1).split("\n")) {
      assert.ok(SAMPLE.test(line) || COMMENT.test(line), `invalid line: ${line}`);
    }
  });

  await t.step("each family has HELP and TYPE once, before its samples", () => {
    const seen = new Set<string>();
    for (const m of text.matchAll(/^# TYPE (\S+) /gm)) {
      assert.ok(!seen.has(m[1]), `duplicate TYPE ${m[1]}`);
      seen.add(m[1]);
      assert.match(text, new RegExp(`^# HELP ${m[1]} `, "m"));
    }
    assert.equal(seen.size, fams.size);
  });

  await t.step("aiperf_info with AIPerf's labels; reprise's version under its own label", () => {
    const info = fams.get("aiperf_info")!;
    assert.equal(info.type, "GAUGE");
    assert.equal(info.metrics[0].value, "1");
    assert.deepEqual(info.metrics[0].labels, {
      benchmark_id: "bench-1",
      model: snap.info.model,
      endpoint_type: "chat",
      streaming: "true",
      concurrency: "4",
      version: AIPERF_COMPAT_VERSION,
      reprise_version: "0.1.0",
    });
    assert.equal(fams.get("reprise_info")!.metrics[0].labels!.version, "0.1.0");
  });

  await t.step("every metric series carries the run labels, without version", () => {
    const lat = fams.get("aiperf_request_latency_avg_ms")!;
    assert.deepEqual(lat.metrics[0].labels, {
      benchmark_id: "bench-1",
      model: snap.info.model,
      endpoint_type: "chat",
      streaming: "true",
      concurrency: "4",
    });
  });

  await t.step("no reprise_-named copy of an AIPerf metric family", () => {
    assert.ok(fams.has("aiperf_request_latency_ms"));
    assert.ok(!fams.has("reprise_request_latency_ms"));
    assert.ok(!fams.has("reprise_request_latency_avg_ms"));
  });

  await t.step("distribution as a summary with _sum and _count", () => {
    const s = fams.get("aiperf_request_latency_ms")!;
    assert.equal(s.type, "SUMMARY");
    assert.equal(s.help, "Request Latency (in ms)");
    assert.deepEqual(s.metrics[0].quantiles, {
      "0.01": "11",
      "0.5": "95",
      "0.9": "180",
      "0.95": "190",
      "0.99": "195",
    });
    assert.match(text, /^aiperf_request_latency_ms_sum\{[^}]*\} 50250$/m);
    assert.match(text, /^aiperf_request_latency_ms_count\{[^}]*\} 500$/m);
  });

  await t.step("scalar stats as gauges aiperf_{tag}_{stat}_{unit}", () => {
    const expect: [string, string][] = [
      ["aiperf_request_latency_avg_ms", "100.5"],
      ["aiperf_request_latency_min_ms", "10"],
      ["aiperf_request_latency_max_ms", "300"],
      ["aiperf_request_latency_std_ms", "12.25"],
      ["aiperf_request_throughput_avg_requests_per_sec", "12.5"],
      ["aiperf_output_token_throughput_per_user_avg_tps_per_user", "42"],
      ["aiperf_error_rate_avg_percent", "NaN"],
    ];
    for (const [name, value] of expect) {
      const f = fams.get(name);
      assert.ok(f, `missing ${name}`);
      assert.equal(f.type, "GAUGE");
      assert.equal(f.metrics[0].value, value, name);
      assert.equal(f.metrics[0].labels?.benchmark_id, "bench-1");
    }
  });

  await t.step("NaN and infinities spelled per the format", () => {
    assert.equal(
      fams.get("aiperf_output_token_throughput_per_user_tps_per_user")!.metrics[0]
        .quantiles!["0.99"],
      "+Inf",
    );
    assert.equal(fams.get("aiperf__1st_weird_tag_avg")!.metrics[0].value, "-Inf");
  });

  await t.step("count and sum become gauges when there are no quantiles", () => {
    assert.equal(fams.get("aiperf__1st_weird_tag_count")!.metrics[0].value, "3");
    assert.equal(fams.get("aiperf__1st_weird_tag_sum")!.metrics[0].value, "9");
  });

  await t.step("progress counters per phase", () => {
    const completed = fams.get("reprise_requests_completed_total")!;
    assert.equal(completed.type, "COUNTER");
    const byPhase = Object.fromEntries(completed.metrics.map((m) => [m.labels!.phase, m.value]));
    assert.deepEqual(byPhase, { warmup: "10", profiling: "100" });
    const inflight = fams.get("reprise_requests_in_flight")!;
    assert.equal(inflight.type, "GAUGE");
    for (
      const name of [
        "reprise_requests_sent_total",
        "reprise_requests_errors_total",
        "reprise_requests_cancelled_total",
        "reprise_sessions_started_total",
        "reprise_sessions_completed_total",
        "reprise_worker_requests_total",
        "reprise_worker_in_flight",
      ]
    ) assert.ok(fams.has(name), name);
    const errors = fams.get("reprise_requests_errors_total")!;
    assert.equal(errors.metrics.find((m) => m.labels!.phase === "profiling")!.value, "3");
  });

  await t.step("run status gauge", () => {
    const st = fams.get("reprise_run_status")!;
    const on = st.metrics.filter((m) => m.value === "1").map((m) => m.labels!.status);
    assert.deepEqual(on, ["running"]);
  });

  await t.step("label values are escaped and parse back unchanged", () => {
    // The model name holds a quote and a backslash.
    assert.equal(fams.get("aiperf_info")!.metrics[0].labels!.model, 'Qwen/Qwen3 "0.6B"\\x');
  });
});

Deno.test("formatPrometheus: an empty snapshot still has info and counters", () => {
  const snap = sampleSnapshot();
  snap.metrics = {};
  snap.workers = {};
  const fams = families(formatPrometheus(snap, run, "starting"));
  assert.ok(fams.has("aiperf_info"));
  assert.ok(fams.has("reprise_requests_sent_total"));
  assert.ok(!fams.has("reprise_worker_requests_total"), "no family without samples");
});

Deno.test("name helpers", () => {
  assert.equal(sanitizeUnit("tokens/sec"), "tps");
  assert.equal(sanitizeUnit("tokens/sec/user"), "tps_per_user");
  assert.equal(sanitizeUnit("requests/sec"), "requests_per_sec");
  assert.equal(sanitizeUnit("%"), "percent");
  assert.equal(sanitizeUnit("ms"), "ms");
  assert.equal(sanitizeUnit("GB/s"), "gb_per_s");
  assert.equal(sanitizeName("Time-To First.Token"), "time_to_first_token");
  assert.equal(sanitizeName("9lives"), "_9lives");
  assert.equal(escapeLabelValue('a"b\\c\nd'), 'a\\"b\\\\c\\nd');
  assert.equal(formatValue(NaN), "NaN");
  assert.equal(formatValue(Infinity), "+Inf");
  assert.equal(formatValue(-Infinity), "-Inf");
  assert.equal(formatValue(0.5), "0.5");
  assert.equal(formatValue(1e21), "1e+21");
});
