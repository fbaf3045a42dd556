/** AIPerf's Accuracy options of `profile`: graded benchmarks (MMLU, GSM8K, …). */

import { compat, type OptionKind } from "./spec.ts";

const WHY = "accuracy benchmarks are not built yet";

function acc<T>(flag: string, kind: OptionKind, def: T | undefined, help: string) {
  return compat<T>({
    flag,
    kind,
    default: def,
    group: "Accuracy",
    help,
    status: "not-yet",
    why: WHY,
  });
}

/** AIPerf's Accuracy options: they parse; asking for a benchmark is refused before the run. */
export const accuracyOptions = {
  accuracyBenchmark: acc("accuracy-benchmark", "string", undefined, "Benchmark to grade."),
  accuracyTasks: acc("accuracy-tasks", "list", undefined, "Benchmark tasks."),
  accuracyNShots: acc("accuracy-n-shots", "number", 0, "Few-shot examples (0-32)."),
  accuracyEnableCot: acc("accuracy-enable-cot", "boolean", false, "Chain-of-thought prompts."),
  accuracyGrader: acc("accuracy-grader", "string", undefined, "How answers are graded."),
  accuracySystemPrompt: acc("accuracy-system-prompt", "string", undefined, "System prompt."),
  accuracyVerbose: acc("accuracy-verbose", "boolean", false, "Per-question grading output."),
} as const;
