/** What an option declaration is, and the schemas several option groups share. */

import { z } from "zod";

/** How a raw command-line or environment string becomes a value. */
export type OptionKind = "string" | "number" | "boolean" | "list";

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
