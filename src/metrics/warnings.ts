/** The end-of-run warnings AIPerf gives: answers of the wrong length, counts that disagree. */

import { HISTOGRAM_RELATIVE_ERROR } from "./histogram.ts";
import { USAGE_DIFF_THRESHOLD_PCT } from "./definitions.ts";
import type { SampledMetric } from "./aggregator.ts";
import type { Summary } from "./summary.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";

function scalar(summary: Summary, tag: string): number | undefined {
  return summary.metrics.find((m) => m.tag === tag)?.avg;
}

/**
 * What to do when the server's counts and the tokenizer's disagree: name a tokenizer when none
 * was named; when one was, never ask for it again: say it may not be the server's.
 */
function usageAdvice(tokenizer: Tokenizer | undefined): string {
  if (tokenizer?.fallbackFrom !== undefined) {
    return `o200k counted in place of "${tokenizer.fallbackFrom}", which could not be had ` +
      `(see the warning before the run): make it available to count as the server does`;
  }
  if (tokenizer === undefined || (!tokenizer.given && tokenizer.name === "builtin")) {
    return `pass the model's tokenizer with --tokenizer <Hugging Face name or path to ` +
      `tokenizer.json> so input and output counts agree`;
  }
  const from = tokenizer.given ? "--tokenizer" : "the model name";
  return `the tokenizer "${tokenizer.name}" (from ${from}) may not be the one the server ` +
    `uses: check that it is the served model's (and --tokenizer-revision)` +
    (tokenizer.name === "builtin" ? ", or name the model's own tokenizer" : "");
}

/**
 * Warnings for a finished run, one line each (empty when all is well): requests whose output
 * length missed what they asked for (`osl_mismatch_count`), and server `usage` counts more than
 * 10 % away from the tokenizer's (`usage_discrepancy_count`), with advice fitting `tokenizer`.
 */
export function runWarnings(summary: Summary, tokenizer?: Tokenizer): string[] {
  const out: string[] = [];
  const completed = scalar(summary, "request_count") ?? 0;
  const osl = scalar(summary, "osl_mismatch_count");
  if (osl !== undefined && osl > 0) {
    const diff = summary.metrics.find((m) => m.tag === "osl_mismatch_diff_pct")?.avg;
    out.push(
      `warning: ${osl} of ${completed} requests got an output length differing from the ` +
        `requested max tokens by more than min(5 %, 50 tokens)` +
        (diff === undefined ? "" : ` (average ${diff.toFixed(1)} %)`) +
        `; the server may stop early: ask for a fixed length (e.g. "ignore_eos": true, ` +
        `"min_tokens"), or count with --use-server-token-count`,
    );
  }
  const usage = scalar(summary, "usage_discrepancy_count");
  if (usage !== undefined && usage > 0) {
    // With server counts, only a sample of answers is tokenized: say how many were checked.
    const checked = summary.metrics.find((m) => m.tag === "usage_completion_tokens_diff_pct")
      ?.count;
    const of = checked !== undefined && checked < completed
      ? `${checked} checked (a sample)`
      : `${completed}`;
    const pct = (tag: string) => summary.metrics.find((m) => m.tag === tag)?.avg;
    const p = pct("usage_prompt_tokens_diff_pct");
    const c = pct("usage_completion_tokens_diff_pct");
    const avgs = [
      p === undefined ? "" : `input ${p.toFixed(1)} %`,
      c === undefined ? "" : `output ${c.toFixed(1)} %`,
    ].filter((x) => x !== "").join(", ");
    out.push(
      `warning: for ${usage} of ${of} requests the server's usage token counts differ ` +
        `from the tokenizer's by more than ${USAGE_DIFF_THRESHOLD_PCT} %` +
        (avgs === "" ? "" : ` (average ${avgs})`) + `; ${usageAdvice(tokenizer)}`,
    );
  }
  return out;
}

/**
 * With `--use-server-token-count`, the warning AIPerf gives when the server reports no usage:
 * those answers' token counts come from the tokenizer instead (empty when every answer had it).
 */
export function missingUsageWarnings(missing: number, answers: number): string[] {
  if (missing <= 0) return [];
  return [
    `warning: --use-server-token-count: the server reported no token usage for ${missing} of ` +
    `${answers} answers; their token counts come from the tokenizer (for an OpenAI-compatible ` +
    `server check that it supports usage reporting; reprise asks for it with ` +
    `stream_options.include_usage when streaming)`,
  ];
}

/** How close a percentile read from a histogram is to the true one, in percent: "0.025%". */
const WITHIN = `${Math.ceil(HISTOGRAM_RELATIVE_ERROR * 1e5) / 1e3}%`;

/**
 * One warning per metric whose percentiles come from a histogram: a per-request metric keeps up
 * to 8 Mi values and the gaps between chunks 2 Mi (passed after about 8,200 answers of 256
 * tokens), then counts every value in a histogram, read back within 0.025%. Count, average, min,
 * max and std stay exact over every value. `phase` names a phase other than profiling (the
 * warmup's metrics are exported too).
 */
export function samplingWarnings(sampled: readonly SampledMetric[], phase = ""): string[] {
  const n = (x: number) => x.toLocaleString("en-US");
  const which = phase === "" ? "" : `${phase} `;
  return sampled.map((m) =>
    `warning: ${which}${m.tag} has ${n(m.count)} values, more than the ${n(m.cap)} kept ` +
    `exactly; its percentiles come from a histogram of all of them, within ${WITHIN} (its ` +
    `count, average, min, max and std are exact)`
  );
}
