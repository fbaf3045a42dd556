/**
 * One run of a sweep, of repeated runs or of a search: a variation's command line planned as a
 * single run is (src/plan/), then run by `runBenchmark` into the directory the layout gives it.
 * Sweeps, repeated runs and searches are lists of such plans, run one after another.
 */

import { join } from "node:path";
import { type ProfileConfig, profileOptions } from "../config/options.ts";
import { parseWithConfigFile } from "../config/file.ts";
import type { Parsed } from "../config/parse.ts";
import { exportNames } from "../export/raw_export.ts";
import { writeArtifact } from "../export/artifact.ts";
import type { ParamValue, RunRef, RunSummary } from "../sweep/aggregate.ts";
import { signalExitCode } from "./exit_codes.ts";
import { type Io, stopSignal } from "./io.ts";
import { runInputFor } from "./run_input.ts";
import { type Planned, planStep, runBenchmark, type RunInput } from "./run.ts";

/** The seed AIPerf sets when none is given and `--set-consistent-seed` is on (the default). */
export const CONSISTENT_SEED = 42;

/** The warmup limits; a run after a configuration's first goes without them. */
const WARMUP_KEYS = ["warmupRequestCount", "warmupDuration", "numWarmupSessions"] as const;

/** A variation, planned: its command line, parameters, and its first run's input and plan. */
export interface Variation {
  index: number;
  args: string[];
  parameters: Record<string, ParamValue>;
  /** Its directory name (`concurrency_4`). */
  dir: string;
  /** Its seed (the base seed, plus its index unless `--parameter-sweep-same-seed`). */
  seed: number;
  config: ProfileConfig;
  given: ReadonlySet<string>;
  input: RunInput;
  planned: Planned;
}

/**
 * Parses (unless `parsed` is given) and plans one variation's command line: every config error
 * of it is thrown here, before any run starts. `overrides` set config values (a search's load).
 */
export async function planVariation(
  index: number,
  args: string[],
  parameters: Record<string, ParamValue>,
  dir: string,
  seed: number,
  io: Io,
  parsed?: Parsed<typeof profileOptions>,
  overrides: Partial<ProfileConfig> = {},
): Promise<Variation> {
  parsed ??= await parseWithConfigFile(profileOptions, args, io.env);
  const given = new Set([...parsed.given as Set<string>, ...Object.keys(overrides)]);
  const config = { ...parsed.values, ...overrides, randomSeed: seed };
  const input = await runInputFor(config, given, args, io);
  if (typeof input === "number") throw new Interrupted(input);
  const planned = await planStep(input);
  return { index, args, parameters, dir, seed, config, given, input, planned };
}

/** A signal taken while planning: the command ends with its exit code. */
export class Interrupted extends Error {
  constructor(readonly code: number) {
    super("interrupted");
  }
}

/** The base seed of a command: `--random-seed`, else 42 with `--set-consistent-seed`, else drawn. */
export function baseSeed(config: ProfileConfig): number {
  if (config.randomSeed !== undefined) return config.randomSeed;
  return config.setConsistentSeed ? CONSISTENT_SEED : Math.floor(Math.random() * 2 ** 31);
}

/** The seed of run `trial` (from 1): the variation's, plus `trial - 1` with `--vary-seed-per-trial`. */
export function trialSeed(v: Variation, trial: number): number {
  return v.config.varySeedPerTrial ? v.seed + trial - 1 : v.seed;
}

/** What one run left: its reference for the aggregates and its exit code. */
export interface RunDone {
  ref: RunRef;
  code: number;
  /** The run was stopped by a signal: the command stops too. */
  interrupted: boolean;
}

/**
 * Runs variation `v` once into `dir` as run `trial` (from 1) of the sweep `sweepId`: with `seed`,
 * and without warmup unless `warmup`. The run's result table is not printed (the command prints
 * its own table); its stderr lines are.
 */
export async function runVariation(
  v: Variation,
  opts: {
    dir: string;
    label: string;
    seed: number;
    warmup: boolean;
    sweepId: string;
    trial: number;
  },
  io: Io,
): Promise<RunDone> {
  let { input, planned } = v;
  if (opts.seed !== v.seed || !opts.warmup) {
    const config: ProfileConfig = { ...v.config, randomSeed: opts.seed };
    const given = new Set(v.given);
    if (!opts.warmup) {
      for (const k of WARMUP_KEYS) {
        (config as Record<string, unknown>)[k] = undefined;
        given.delete(k);
      }
    }
    const next = await runInputFor(config, given, v.args, io);
    if (typeof next === "number") return interrupted(opts.label, next);
    input = next;
    planned = await planStep(input);
  }
  input = {
    ...input,
    io: { ...input.io, stdout: () => {} },
    variation: {
      sweepId: opts.sweepId,
      trial: opts.trial - 1,
      runLabel: opts.label,
      variationLabel: Object.keys(v.parameters).length > 0 ? v.dir : "base",
      variationIndex: v.index,
      variationValues: v.parameters,
    },
  };
  planned = { ...planned, plan: { ...planned.plan, runDir: opts.dir } };
  if (io.signal?.aborted) return interrupted(opts.label, signalExitCode(stopSignal(io)));
  const code = await runBenchmark(input, planned);
  const summary = await readSummary(join(opts.dir, exportNames(v.config.profileExportPrefix).json));
  const stopped = io.signal?.aborted === true;
  const ref: RunRef = { label: opts.label, summary };
  if (v.config.exportLevel !== "summary") {
    ref.records = join(opts.dir, exportNames(v.config.profileExportPrefix).records);
  }
  if (code !== 0 || summary === null || stopped) {
    ref.error = stopped ? "interrupted" : `exit code ${code}`;
  }
  return { ref, code, interrupted: stopped };
}

function interrupted(label: string, code: number): RunDone {
  return { ref: { label, summary: null, error: "interrupted" }, code, interrupted: true };
}

/** A run's summary file, parsed; null when it was not written. */
export async function readSummary(path: string): Promise<RunSummary | null> {
  try {
    return JSON.parse(await Deno.readTextFile(path)) as RunSummary;
  } catch {
    return null;
  }
}

/** Waits `seconds` between runs; false when a signal came meanwhile. */
export function cooldown(seconds: number, io: Io): Promise<boolean> {
  if (io.signal?.aborted) return Promise.resolve(false);
  if (seconds <= 0) return Promise.resolve(true);
  io.stderr(`cooldown: ${seconds} s\n`);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      io.signal?.removeEventListener("abort", done);
      resolve(!io.signal?.aborted);
    };
    const t = setTimeout(done, seconds * 1000);
    io.signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Writes `text` to `path`, creating its directory; a failure is an `ArtifactError` (its own exit
 * code), as for a single run's artifacts.
 */
export function writeText(path: string, text: string): Promise<void> {
  return writeArtifact(path, text);
}

/** Writes `value` as indented JSON to `path`. */
export function writeJson(path: string, value: unknown): Promise<void> {
  return writeText(path, JSON.stringify(value, null, 2) + "\n");
}

/** `model-openai-chat-<what>`: the base directory name of a sweep or search. */
export function baseName(v: Variation, what: string): string {
  const safe = v.planned.plan.model.replace(/[^A-Za-z0-9._-]+/g, "_");
  return `${safe}-openai-${v.config.endpointType}-${what}`;
}
