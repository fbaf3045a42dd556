/**
 * Flags that contradict each other. Where AIPerf refuses a combination, so does reprise (a
 * `ConfigError` before anything runs); where one flag only makes another pointless, the run goes
 * on with a one-line warning saying which flag is ignored.
 */

import type { ProfileConfig } from "../config/options.ts";
import { ConfigError } from "../config/parse.ts";

/** The options the checks read. */
type ConflictConfig = Pick<
  ProfileConfig,
  | "requestRate"
  | "fixedSchedule"
  | "requestRateRampDuration"
  | "fixedScheduleAutoOffset"
  | "fixedScheduleStartOffset"
  | "fixedScheduleEndOffset"
  | "requestCancellationRate"
  | "requestCancellationDelay"
  | "datasetSamplingStrategy"
  | "arrivalPattern"
  | "arrivalSmoothness"
  | "benchmarkDuration"
  | "benchmarkGracePeriod"
  | "warmupRequestCount"
  | "warmupDuration"
  | "warmupRequestRate"
  | "warmupConcurrency"
  | "numWarmupSessions"
  | "requestRateSeries"
>;

/**
 * Throws a `ConfigError` for a combination AIPerf refuses; returns the warnings (one line each)
 * for flags the run will ignore. `fixed` says whether the run replays recorded timestamps
 * (asked for, or the dataset carries them); `given` holds the options set by the user.
 */
export function checkConflicts(
  config: ConflictConfig,
  given: ReadonlySet<string>,
  fixed: boolean,
): string[] {
  const warnings: string[] = [];
  const asked = (key: keyof ConflictConfig) => given.has(key);
  const fixedAsked = asked("fixedSchedule") && config.fixedSchedule;

  if (fixed) {
    if (asked("requestRate")) {
      if (fixedAsked) {
        throw new ConfigError(
          "--request-rate cannot be used with --fixed-schedule: the dataset's timestamps say " +
            "when each request is sent (drop one of them)",
        );
      }
      warnings.push(
        "warning: --request-rate is ignored: the dataset's timestamps set the schedule " +
          "(pass --no-fixed-schedule to send at the rate instead)",
      );
    }
    if (asked("requestRateRampDuration")) {
      throw new ConfigError(
        "--request-rate-ramp-duration cannot be used with a fixed schedule: the dataset's " +
          "timestamps say when each request is sent",
      );
    }
    if (asked("datasetSamplingStrategy")) {
      throw new ConfigError(
        "--dataset-sampling-strategy cannot be used with a fixed schedule: conversations are " +
          "sent in the order of their timestamps",
      );
    }
    for (const key of ["arrivalPattern", "arrivalSmoothness"] as const) {
      if (asked(key)) warnings.push(`warning: ${flag(key)} is ignored under a fixed schedule`);
    }
  } else {
    for (
      const key of [
        "fixedScheduleAutoOffset",
        "fixedScheduleStartOffset",
        "fixedScheduleEndOffset",
      ] as const
    ) {
      if (asked(key)) {
        throw new ConfigError(
          `${flag(key)} can only be used with --fixed-schedule (or a dataset with timestamps)`,
        );
      }
    }
    // A rate series draws its gaps as a rate does; concurrency_burst asks for no rate.
    if (config.requestRate === undefined && config.requestRateSeries === undefined) {
      for (
        const key of ["arrivalPattern", "arrivalSmoothness", "requestRateRampDuration"] as const
      ) {
        if (key === "arrivalPattern" && config.arrivalPattern === "concurrency_burst") continue;
        if (asked(key)) warnings.push(`warning: ${flag(key)} is ignored without --request-rate`);
      }
    }
  }
  if (
    asked("fixedScheduleAutoOffset") && config.fixedScheduleAutoOffset &&
    asked("fixedScheduleStartOffset")
  ) {
    throw new ConfigError(
      "--fixed-schedule-auto-offset cannot be used with --fixed-schedule-start-offset: both " +
        "say where the schedule starts",
    );
  }
  if (asked("requestCancellationDelay") && !asked("requestCancellationRate")) {
    throw new ConfigError(
      "--request-cancellation-delay can only be used with --request-cancellation-rate",
    );
  }
  if (asked("benchmarkGracePeriod") && !asked("benchmarkDuration")) {
    warnings.push("warning: --benchmark-grace-period is ignored without --benchmark-duration");
  }
  const warmup = config.warmupRequestCount !== undefined || config.warmupDuration !== undefined ||
    config.numWarmupSessions !== undefined;
  for (const key of ["warmupRequestRate", "warmupConcurrency"] as const) {
    if (!warmup && asked(key)) {
      warnings.push(
        `warning: ${
          flag(key)
        } is ignored without --warmup-request-count, --warmup-duration or --num-warmup-sessions`,
      );
    }
  }
  return warnings;
}

/** The flag of a config key (`requestRate` → `--request-rate`). */
function flag(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}
