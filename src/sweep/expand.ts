/**
 * AIPerf's magic-list sweeps: a sweepable flag given a comma list (`--concurrency 1,2,4`) makes a
 * sweep; several lists combine as a grid (every combination, the default) or zipped
 * (`--sweep-type zip`, element by element). Each variation is the command line with one value in
 * place of each list, so every variation parses and validates exactly as a single run does.
 */

import type { OptionTable } from "../config/options.ts";
import { ConfigError } from "../config/parse.ts";
import type { ParamValue } from "./aggregate.ts";

/**
 * The flags AIPerf marks sweepable, by the name its sweep artifacts use, and the config key of
 * each in reprise.
 */
export const SWEEPABLE: readonly { name: string; key: string }[] = [
  { name: "concurrency", key: "concurrency" },
  { name: "prefill_concurrency", key: "prefillConcurrency" },
  { name: "request_rate", key: "requestRate" },
  { name: "request_count", key: "requestCount" },
  { name: "benchmark_duration", key: "benchmarkDuration" },
  { name: "num_conversations", key: "numConversations" },
  { name: "num_users", key: "numUsers" },
  { name: "isl", key: "isl" },
  { name: "osl", key: "osl" },
  { name: "isl_stddev", key: "islStddev" },
  { name: "osl_stddev", key: "oslStddev" },
  { name: "conversation_turn_mean", key: "sessionTurnsMean" },
];

/** One swept flag: its name in the artifacts, its flag, and the values listed. */
export interface SweepAxis {
  name: string;
  key: string;
  flag: string;
  values: string[];
}

/** Where a list sits in the command line. */
interface Slot {
  index: number;
  axis: number;
  /** `--flag=a,b` (the value shares the argument) rather than `--flag a,b`. */
  inline: string | null;
}

/** The command line's sweep: its axes, and where their lists sit. */
export interface SweepArgs {
  args: readonly string[];
  axes: SweepAxis[];
  slots: Slot[];
}

/** Finds the comma lists of sweepable flags in `args` (`table`: the profile options). */
export function findSweep(args: readonly string[], table: OptionTable): SweepArgs {
  const byFlag = new Map<string, { name: string; key: string; flag: string }>();
  for (const s of SWEEPABLE) {
    const spec = table[s.key];
    if (!spec) continue;
    for (const f of [spec.flag, ...(spec.aliases ?? [])]) {
      byFlag.set(`--${f}`, { ...s, flag: spec.flag });
    }
  }
  const axes: SweepAxis[] = [];
  const slots: Slot[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") break;
    const eq = a.indexOf("=");
    const name = eq > 0 ? a.slice(0, eq) : a;
    const def = byFlag.get(name);
    if (!def) continue;
    const value = eq > 0 ? a.slice(eq + 1) : args[i + 1];
    if (value === undefined || !value.includes(",")) continue;
    const values = value.split(",").map((v) => v.trim());
    if (values.some((v) => v === "")) {
      throw new ConfigError(`--${def.flag} ${value}: an empty value in the list`);
    }
    if (axes.some((x) => x.key === def.key)) {
      throw new ConfigError(`--${def.flag} is given two lists; give one`);
    }
    axes.push({ ...def, values });
    slots.push({ index: eq > 0 ? i : i + 1, axis: axes.length - 1, inline: eq > 0 ? name : null });
    if (eq <= 0) i++;
  }
  return { args, axes, slots };
}

/**
 * The variations: for each, the value index of every axis. A grid is every combination (the
 * first axis slowest); a zip pairs the i-th values and needs lists of one length.
 */
export function combinations(axes: readonly SweepAxis[], type: string): number[][] {
  if (axes.length === 0) return [[]];
  if (type === "zip") {
    const n = axes[0].values.length;
    const other = axes.find((a) => a.values.length !== n);
    if (other) {
      throw new ConfigError(
        `--sweep-type zip pairs the lists element by element: --${
          axes[0].flag
        } has ${n} values, --${other.flag} ${other.values.length}`,
      );
    }
    return Array.from({ length: n }, (_, i) => axes.map(() => i));
  }
  let out: number[][] = [[]];
  for (const a of axes) out = out.flatMap((c) => a.values.map((_, i) => [...c, i]));
  return out;
}

/** The command line of one variation: each list replaced by that variation's value. */
export function variationArgs(sweep: SweepArgs, pick: readonly number[]): string[] {
  const out = [...sweep.args];
  for (const s of sweep.slots) {
    const v = sweep.axes[s.axis].values[pick[s.axis]];
    out[s.index] = s.inline === null ? v : `${s.inline}=${v}`;
  }
  return out;
}

/** A value as the artifacts write it: a number when it reads as one. */
export function paramValue(text: string): ParamValue {
  const n = Number(text);
  return text.trim() !== "" && Number.isFinite(n) ? n : text;
}

/** A variation's parameters, by name. */
export function variationParameters(
  axes: readonly SweepAxis[],
  pick: readonly number[],
): Record<string, ParamValue> {
  return Object.fromEntries(axes.map((a, i) => [a.name, paramValue(a.values[pick[i]])]));
}

/** AIPerf's variation directory: `{name}_{value}` of each parameter, joined by `__`. */
export function variationDir(parameters: Record<string, ParamValue>): string {
  return Object.entries(parameters)
    .map(([k, v]) => `${k}_${String(v).replace(/[^A-Za-z0-9._-]+/g, "_")}`)
    .join("__");
}
