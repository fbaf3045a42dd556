/**
 * Writes docs/aiperf-flags.md: every `aiperf profile` flag (AIPerf 0.12, grouped as AIPerf's
 * `docs/cli-options.md` groups them), what it does in reprise and why, and reprise's own flags.
 * The statuses come from the option table (`src/config/options/*.ts`), the one place they are
 * declared; a flag no option declares is listed as `missing`. `deno run --allow-read
 * --allow-write scripts/gen_aiperf_flags.ts` writes the file; `--check` only compares.
 */

import { profileOptions } from "../src/config/options.ts";
import { type FlagStatus, type OptionSpec, statusOf } from "../src/config/options/spec.ts";

/**
 * AIPerf's `profile` flags, by AIPerf's groups; each row holds the spellings of one option
 * (`-m`, `--model`, `--model-names`).
 */
export const AIPERF_FLAG_GROUPS: [string, string[][]][] = [
  ["Endpoint", [
    ["-m", "--model", "--model-names"],
    ["--model-selection-strategy"],
    ["--endpoint", "--custom-endpoint"],
    ["--endpoint-type"],
    ["--streaming"],
    ["-u", "--url"],
    ["--url-strategy"],
    ["--request-timeout-seconds"],
    ["--wait-for-model-timeout"],
    ["--wait-for-model-mode"],
    ["--wait-for-model-interval"],
    ["--reset-kv-cache"],
    ["--reset-kv-cache-timeout-seconds"],
    ["--reset-kv-cache-path"],
    ["--server-profiler"],
    ["--server-profiler-timeout-seconds"],
    ["--server-profiler-start-path"],
    ["--server-profiler-stop-path"],
    ["--api-key"],
    ["--transport"],
    ["--use-legacy-max-tokens"],
    ["--use-server-token-count"],
    ["--connection-reuse-strategy"],
    ["--download-video-content"],
    ["--request-content-type"],
    ["--session-header"],
    ["--uuid-and-strip"],
  ]],
  ["Tokenizer", [["--tokenizer"], ["--tokenizer-revision"], ["--tokenizer-trust-remote-code"], [
    "--apply-chat-template",
  ]]],
  ["Input", [
    ["--extra-inputs"],
    ["-H", "--header"],
    ["--input-file"],
    ["--public-dataset"],
    ["--hf-subset"],
    ["--hf-weka-dataset"],
    ["--dataset-filter"],
    ["--custom-dataset-type"],
    ["--ignore-trace-delays"],
    ["--use-think-time-only"],
    ["--max-context-length"],
    ["--dataset-sampling-strategy"],
    ["--allow-dataset-wrap"],
    ["--random-seed"],
    ["--trace-session-sample-ratio"],
    ["-f", "--config"],
  ]],
  ["Fixed Schedule", [
    ["--fixed-schedule"],
    ["--no-fixed-schedule"],
    ["--fixed-schedule-auto-offset"],
    ["--fixed-schedule-start-offset"],
    ["--fixed-schedule-end-offset"],
  ]],
  ["Goodput", [["--goodput"]]],
  ["Conversation Input", [
    ["--num-conversations", "--num-sessions", "--conversation-num"],
    ["--num-dataset-entries", "--num-prompts"],
    ["--session-turns-mean"],
    ["--session-turns-stddev"],
    ["--session-turn-delay-mean"],
    ["--session-turn-delay-stddev"],
    ["--session-delay-ratio"],
    ["--inter-turn-delay-cap-seconds"],
    ["--max-idle-gap-cap-seconds"],
    ["--replay-speedup"],
    ["--open-loop-replay"],
    ["--open-loop-strict"],
    ["--omit-kv-hints"],
    ["--force-min-tokens"],
  ]],
  ["Prompt / Cache-bust / Prefix", [
    ["-b", "--batch-size"],
    ["--prompt-corpus"],
    ["--cache-bust"],
    ["--num-prefix-prompts"],
    ["--prefix-prompt-length"],
    ["--shared-system-prompt-length"],
    ["--user-context-prompt-length"],
  ]],
  ["ISL/OSL", [
    ["--isl", "--synthetic-input-tokens-mean"],
    ["--isl-stddev"],
    ["--isl-block-size"],
    ["--seq-dist"],
    ["--osl", "--output-tokens-mean"],
    ["--osl-stddev"],
  ]],
  ["Audio", [
    ["--audio-batch-size"],
    ["--audio-length-mean"],
    ["--audio-length-stddev"],
    ["--audio-format"],
    ["--audio-depths"],
    ["--audio-sample-rates"],
    ["--audio-num-channels"],
  ]],
  ["Image", [
    ["--image-width-mean"],
    ["--image-width-stddev"],
    ["--image-height-mean"],
    ["--image-height-stddev"],
    ["--image-batch-size"],
    ["--image-format"],
    ["--image-source"],
    ["--image-source-sampling"],
  ]],
  ["Video", [
    ["--video-batch-size"],
    ["--video-duration"],
    ["--video-fps"],
    ["--video-width"],
    ["--video-height"],
    ["--video-synth-type"],
    ["--video-format"],
    ["--video-codec"],
    ["--video-audio-sample-rate"],
    ["--video-audio-num-channels"],
    ["--video-audio-codec"],
    ["--video-audio-depth"],
  ]],
  ["Rankings", [
    ["--rankings-passages-mean"],
    ["--rankings-passages-stddev"],
    ["--rankings-passages-prompt-token-mean"],
    ["--rankings-passages-prompt-token-stddev"],
    ["--rankings-query-prompt-token-mean"],
    ["--rankings-query-prompt-token-stddev"],
  ]],
  ["Synthesis", [
    ["--synthesis-speedup-ratio"],
    ["--synthesis-prefix-len-multiplier"],
    ["--synthesis-prefix-root-multiplier"],
    ["--synthesis-prompt-len-multiplier"],
    ["--synthesis-output-len-multiplier"],
    ["--synthesis-max-isl"],
    ["--synthesis-max-osl"],
  ]],
  ["Load Generator", [
    ["--benchmark-duration"],
    ["--benchmark-grace-period"],
    ["--concurrency"],
    ["--prefill-concurrency"],
    ["--request-rate"],
    ["--arrival-pattern", "--request-rate-mode"],
    ["--arrival-smoothness", "--vllm-burstiness"],
    ["--request-count", "--num-requests"],
    ["--concurrency-ramp-duration"],
    ["--prefill-concurrency-ramp-duration"],
    ["--request-rate-ramp-duration"],
    ["--request-rate-series"],
    ["--failed-request-threshold"],
    ["--trajectory-start-min-ratio"],
    ["--trajectory-start-max-ratio"],
    ["--burst-phase-starts"],
    ["--trace-idle-gap-cap-seconds"],
    ["--system-idle-gap-cap-seconds"],
  ]],
  ["Scenario", [["--scenario"], ["--unsafe-override"]]],
  ["Warmup", [
    ["--warmup-request-count"],
    ["--warmup-duration"],
    ["--num-warmup-sessions"],
    ["--warmup-concurrency"],
    ["--warmup-prefill-concurrency"],
    ["--warmup-request-rate"],
    ["--warmup-arrival-pattern"],
    ["--warmup-grace-period"],
    ["--warmup-concurrency-ramp-duration"],
    ["--warmup-prefill-concurrency-ramp-duration"],
    ["--warmup-request-rate-ramp-duration"],
    ["--agentic-cache-warmup-duration"],
    ["--agentic-warmup-grace-period"],
  ]],
  ["User-Centric Rate", [["--user-centric-rate"], ["--num-users"]]],
  ["Request Cancellation", [["--request-cancellation-rate"], ["--request-cancellation-delay"]]],
  ["Output", [
    ["--artifact-dir", "--output-artifact-dir"],
    ["--profile-export-prefix", "--profile-export-file"],
    ["--export-level"],
    ["--slice-duration"],
    ["--auto-plot"],
    ["--plot-required"],
    ["--export-outputs-json"],
    ["--otel-url"],
    ["--stream"],
    ["--otel-resource-attributes"],
    ["--gen-ai-provider"],
    ["--mlflow-tracking-uri"],
    ["--mlflow-experiment"],
    ["--mlflow-run-name"],
    ["--mlflow-tag"],
    ["--mlflow-parent-run-id"],
    ["--mlflow-artifact-glob"],
    ["--wandb-project"],
    ["--wandb-entity"],
    ["--wandb-run-name"],
    ["--wandb-tag"],
  ]],
  ["HTTP Trace", [["--export-http-trace"], ["--show-trace-timing"]]],
  ["Server Metrics", [["--server-metrics"], ["--no-server-metrics"], ["--server-metrics-formats"]]],
  ["Network Latency", [["--network-latency-automatic"], ["--network-latency-mean"], [
    "--network-latency-ping-interval",
  ]]],
  ["GPU Telemetry", [["--gpu-telemetry"], ["--no-gpu-telemetry"]]],
  ["UI", [["--ui", "--ui-type"]]],
  ["Multi-Run / sweep / search", [
    ["--num-profile-runs"],
    ["--profile-run-cooldown-seconds"],
    ["--confidence-level"],
    ["--profile-run-disable-warmup-after-first"],
    ["--set-consistent-seed"],
    ["--vary-seed-per-trial"],
    ["--convergence-metric"],
    ["--convergence-stat"],
    ["--convergence-threshold"],
    ["--convergence-mode"],
    ["--parameter-sweep-cooldown-seconds"],
    ["--parameter-sweep-same-seed"],
    ["--parameter-sweep-mode"],
    ["--sweep-type"],
    ["--no-sweep-table"],
    ["--variant"],
    ["--search-space"],
    ["--search-metric"],
    ["--search-stat"],
    ["--search-direction"],
    ["--search-max-iterations"],
    ["--search-initial-points"],
    ["--search-random-seed"],
    ["--search-planner"],
    ["--optuna-sampler"],
    ["--optuna-acquisition"],
    ["--optuna-terminator"],
    ["--search-percentile-pooling"],
    ["--bo-constraint-mode"],
    ["--search-sla"],
    ["--search-sla-tier"],
    ["--ttft-sla-ms"],
    ["--itl-sla-ms"],
    ["--tpot-sla-ms"],
    ["--e2e-sla-ms"],
    ["--error-rate-sla"],
    ["--slo-attainment-fraction"],
    ["--search-recipe"],
    ["--search-style"],
    ["--isl-osl-pairs"],
    ["--degradation-threshold"],
    ["--degradation-metric-tag"],
    ["--degradation-stat"],
    ["--isl-min"],
    ["--isl-max"],
    ["--isl-steps"],
    ["--concurrency-min"],
    ["--concurrency-max"],
    ["--concurrency-steps"],
    ["--osl-min"],
    ["--osl-max"],
    ["--osl-steps"],
  ]],
  ["Accuracy", [
    ["--accuracy-benchmark"],
    ["--accuracy-tasks"],
    ["--accuracy-n-shots"],
    ["--accuracy-enable-cot"],
    ["--accuracy-grader"],
    ["--accuracy-system-prompt"],
    ["--accuracy-verbose"],
  ]],
  ["Service", [
    ["--log-level"],
    ["-v", "--verbose"],
    ["-vv", "--extra-verbose"],
    ["--record-processors"],
    ["--api-port"],
    ["--api-host"],
    ["--stats-interval"],
  ]],
  ["Workers", [["--workers-max", "--max-workers"]]],
  ["ZMQ", [["--zmq-host"], ["--zmq-ipc-path"], ["--zmq-dual-bind"]]],
];

/** The table's status of a flag: `missing` when no option declares it. */
export type TableStatus = FlagStatus | "missing";

/** The option declaring one of AIPerf's spellings (`--no-X` reads the boolean `X`), if any. */
export function optionFor(
  table: Record<string, OptionSpec>,
  spelling: string,
): OptionSpec | undefined {
  const specs = Object.values(table);
  if (/^-[a-zA-Z]$/.test(spelling)) return specs.find((s) => s.short === spelling.slice(1));
  if (spelling === "-vv") return specs.find((s) => s.flag === "extra-verbose");
  const name = spelling.replace(/^--/, "");
  const named = (n: string) => specs.find((s) => s.flag === n || (s.aliases ?? []).includes(n));
  const found = named(name);
  if (found) return found;
  const negated = name.startsWith("no-") ? named(name.slice(3)) : undefined;
  return negated?.kind === "boolean" ? negated : undefined;
}

/** Every spelling AIPerf has for its flags. */
export function aiperfSpellings(): Set<string> {
  return new Set(AIPERF_FLAG_GROUPS.flatMap(([, rows]) => rows.flat()));
}

const WORDS: Record<TableStatus, string> = {
  "works": "works",
  "no-effect": "no effect",
  "not-yet": "not yet",
  "missing": "missing",
};

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** The text of docs/aiperf-flags.md for `table`. */
export function renderAiperfFlags(table: Record<string, OptionSpec> = profileOptions): string {
  const counts: Record<TableStatus, number> = {
    "works": 0,
    "no-effect": 0,
    "not-yet": 0,
    "missing": 0,
  };
  const sections: string[] = [];
  const aiperfOptions = new Set<OptionSpec>();
  for (const [group, rows] of AIPERF_FLAG_GROUPS) {
    const lines = [
      `### ${group}`,
      "",
      "| AIPerf flag | In reprise | What it does here |",
      "|---|---|---|",
    ];
    for (const spellings of rows) {
      const spec = spellings.map((s) => optionFor(table, s)).find((s) => s !== undefined);
      const status: TableStatus = spec ? statusOf(spec) : "missing";
      counts[status]++;
      if (spec) aiperfOptions.add(spec);
      const what = !spec
        ? "Not declared: `Unknown option` (exit 2)."
        : status === "works"
        ? spec.help
        : status === "no-effect"
        ? `Accepted; \`--verbose\` says it has no effect: ${spec.why}.`
        : `Parses; a value that would change the run stops it before anything is sent: ${spec.why}.`;
      lines.push(`| \`${spellings.join("`, `")}\` | ${WORDS[status]} | ${cell(what)} |`);
    }
    sections.push(lines.join("\n"));
  }
  const own = Object.values(table).filter((s) => !aiperfOptions.has(s));
  const ownLines = ["| Flag | What it does |", "|---|---|"];
  for (const s of own) {
    const names = [
      ...(s.short ? [`-${s.short}`] : []),
      `--${s.flag}`,
      ...(s.aliases ?? []).map((a) => `--${a}`),
    ];
    ownLines.push(`| \`${names.join("`, `")}\` | ${cell(s.help)} |`);
  }
  const total = counts.works + counts["no-effect"] + counts["not-yet"] + counts.missing;
  return [
    "# AIPerf's `profile` flags in reprise",
    "",
    "<!-- Generated by scripts/gen_aiperf_flags.ts from the option table; do not edit. -->",
    "",
    "A script written for `aiperf profile` runs under `reprise profile`: every flag of AIPerf 0.12 parses,",
    "with AIPerf's names, aliases, value syntax and defaults. What each one does here:",
    "",
    "- **works**: it does what AIPerf documents.",
    "- **no effect**: it cannot apply to reprise (AIPerf's internal services); it is accepted, and",
    "  `--verbose` prints one line per such flag given, saying why.",
    "- **not yet**: a feature reprise does not have yet. The flag parses; given with a value that",
    "  would change the run, the plan stops with `--X: not supported yet (…)` and exit code 2 before",
    "  anything is sent; its default, or a value that changes nothing (`--num-profile-runs 1`,",
    "  `--no-server-metrics`), is accepted.",
    "- **missing**: not declared yet: `Unknown option` (exit 2).",
    "",
    `Of ${total} AIPerf options: ${counts.works} work, ${counts["no-effect"]} have no effect, ${
      counts["not-yet"]
    } are not supported yet, ${counts.missing} are missing.`,
    "",
    "## AIPerf's flags",
    "",
    sections.join("\n\n"),
    "",
    "## reprise's own flags",
    "",
    "Flags AIPerf does not have:",
    "",
    ownLines.join("\n"),
    "",
  ].join("\n");
}

/** Where the generated file lives. */
export const DOC_PATH = new URL("../docs/aiperf-flags.md", import.meta.url);

if (import.meta.main) {
  const text = renderAiperfFlags();
  if (Deno.args.includes("--check")) {
    const current = await Deno.readTextFile(DOC_PATH).catch(() => "");
    if (current !== text) {
      console.error("docs/aiperf-flags.md is stale: run deno run -A scripts/gen_aiperf_flags.ts");
      Deno.exit(1);
    }
  } else {
    await Deno.writeTextFile(DOC_PATH, text);
    console.log(`wrote ${DOC_PATH.pathname}`);
  }
}
