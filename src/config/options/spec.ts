/** What an option declaration is, and the schemas several option groups share. */

import { z } from "zod";

/** How a raw command-line or environment string becomes a value. */
export type OptionKind = "string" | "number" | "boolean" | "list";

/**
 * What a flag does in reprise. `works`: it does what AIPerf documents. `no-effect`: it cannot
 * apply to reprise (AIPerf's internals), so it is accepted and `--verbose` says so. `not-yet`: a
 * feature reprise does not have yet; the flag parses, and a value that would change the run
 * stops the plan with "not supported yet" (its default, or a value {@link OptionSpec.noop}
 * accepts, is fine).
 */
export type FlagStatus = "works" | "no-effect" | "not-yet";

/** One option. `T` is the validated value's type. */
export interface OptionSpec<T = unknown> {
  /** The long flag without dashes (`request-count`). */
  flag: string;
  /** One-letter flag without the dash (`m`). */
  short?: string;
  /** Other long flags accepted for the same option (AIPerf's spellings). */
  aliases?: string[];
  /** Environment variables read when the flag is absent, first set wins. */
  env?: string[];
  kind: OptionKind;
  /** Validates the typed value (after string → number/boolean conversion). */
  schema: z.ZodType<T>;
  /** What a valid value is, for error messages: "must be <expect>". */
  expect: string;
  /** The value when neither flag nor env var is given; undefined means unset. */
  default?: T;
  /** Help section. */
  group: string;
  help: string;
  /** Placeholder for the value in help text. */
  metavar?: string;
  /** Never echoed: excluded from config dumps and redacted in the command line. */
  secret?: boolean;
  /**
   * A check beyond the schema, for a message more precise than "must be <expect>": returns
   * what is wrong (said after the flag's name), or undefined when the value is fine.
   */
  check?(value: T): string | undefined;
  /** What the flag does in reprise; absent means `works`. */
  status?: FlagStatus;
  /** Why a `no-effect` or `not-yet` flag is so, in a few words (said in errors and the docs). */
  why?: string;
  /**
   * For a `not-yet` flag: whether a given value leaves the run as it is (accepted). Absent: the
   * value equals the default (false for a boolean without one).
   */
  noop?(value: T): boolean;
  /** The flag may stand alone (`--server-metrics`) or take values (`--server-metrics URL`). */
  optionalValue?: boolean;
  /**
   * A list flag takes every value that follows it up to the next flag
   * (`--server-metrics-formats json csv jsonl`), as AIPerf's lists do.
   */
  manyValues?: boolean;
  /** Other spellings of values, mapped to the value they stand for (`http` → `auto`). */
  valueAliases?: Record<string, string>;
  /** Not one of AIPerf's flags: reprise's own (listed apart in docs/aiperf-flags.md). */
  repriseOnly?: boolean;
}

/** Declares an option; keeps the value type attached to the spec. */
export function opt<T>(spec: OptionSpec<T>): OptionSpec<T> {
  return spec;
}

/** A positive integer (counts). */
export const positiveInt = z.number().int().positive();
/** Zero or more (durations, offsets). */
export const nonNegative = z.number().nonnegative();
/** A fraction from 0 to 1. */
export const fraction = z.number().min(0).max(1);

/** A table of options, keyed by config field name. */
export type OptionTable = Record<string, OptionSpec<unknown>>;

/** The validated values of a table: each field typed by its schema. */
export type ConfigOf<T extends OptionTable> = {
  [K in keyof T]: T[K] extends OptionSpec<infer V> ? V : never;
};

/** The status of a declared option (`works` when it says none). */
export function statusOf(spec: OptionSpec): FlagStatus {
  return spec.status ?? "works";
}

/** What a compat declaration says; the rest (schema, expect, metavar) follows from `kind`. */
interface CompatSpec<T> {
  flag: string;
  short?: string;
  aliases?: string[];
  kind: OptionKind;
  /** For a string: the values it may take (AIPerf's choices). */
  values?: readonly string[];
  default?: T;
  group: string;
  help: string;
  status: FlagStatus;
  why: string;
  noop?(value: T): boolean;
  optionalValue?: boolean;
}

/**
 * Declares one of AIPerf's flags that does not work in reprise (`no-effect` or `not-yet`): its
 * name, value syntax and default as AIPerf has them, a schema from its kind, and the reason.
 */
export function compat<T>(c: CompatSpec<T>): OptionSpec<T> {
  const byKind: Record<OptionKind, [z.ZodType, string, string | undefined]> = {
    number: [z.number(), "a number", "N"],
    boolean: [z.boolean(), "true or false", undefined],
    list: [z.array(z.string()), "one or more values", "VALUE"],
    string: c.values
      ? [z.enum(c.values as [string, ...string[]]), `one of ${c.values.join(", ")}`, "CHOICE"]
      : [z.string(), "a value", "VALUE"],
  };
  const [schema, expect, metavar] = byKind[c.kind];
  return {
    flag: c.flag,
    ...(c.short ? { short: c.short } : {}),
    ...(c.aliases ? { aliases: c.aliases } : {}),
    kind: c.kind,
    schema: schema as z.ZodType<T>,
    expect,
    ...(c.default !== undefined ? { default: c.default } : {}),
    group: c.group,
    help: c.help,
    ...(metavar ? { metavar } : {}),
    status: c.status,
    why: c.why,
    ...(c.noop ? { noop: c.noop } : {}),
    ...(c.optionalValue ? { optionalValue: true } : {}),
  };
}
