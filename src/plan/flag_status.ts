/**
 * What each given flag does in this run, judged from its declared status (`options/spec.ts`):
 * a `not-yet` flag whose value would change the run stops the plan with one line, before
 * anything is sent; a `no-effect` flag is noted, for `--verbose`.
 */

import { type OptionSpec, type OptionTable, statusOf } from "../config/options.ts";
import { ConfigError } from "../config/parse.ts";

/** Whether `a` and `b` are the same value (numbers, strings, booleans, arrays of them). */
function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => same(v, b[i]));
  }
  return a === b;
}

/** Whether a `not-yet` flag's value leaves the run as it would be without the flag. */
export function isNoop(spec: OptionSpec, value: unknown): boolean {
  if (spec.noop) return spec.noop(value);
  if (spec.default !== undefined) return same(value, spec.default);
  return spec.kind === "boolean" && value === false;
}

/**
 * Checks the given flags against their status; returns one `--verbose` line per given flag that
 * has no effect. Throws a `ConfigError` ("--X: not supported yet (why)") for the first `not-yet`
 * flag given with a value that would change the run, and for several models in `--model`.
 */
export function checkFlagStatus(
  table: OptionTable,
  config: Record<string, unknown>,
  given: ReadonlySet<string>,
): string[] {
  const notes: string[] = [];
  for (const [key, spec] of Object.entries(table)) {
    if (!given.has(key)) continue;
    const status = statusOf(spec);
    if (status === "not-yet" && !isNoop(spec, config[key])) {
      throw new ConfigError(`--${spec.flag}: not supported yet (${spec.why})`);
    }
    if (status === "no-effect") notes.push(`--${spec.flag} has no effect in reprise: ${spec.why}`);
  }
  const model = config.model;
  if (typeof model === "string" && model.includes(",")) {
    throw new ConfigError(
      "--model: not supported yet (several models in one run; give one model name)",
    );
  }
  return notes;
}

/**
 * The config as the artifacts record it: options that do nothing in reprise are left out unless
 * the user gave them, so that `input_config` lists what the run used.
 */
export function recordedConfig<T extends Record<string, unknown>>(
  table: OptionTable,
  config: T,
  given: ReadonlySet<string>,
): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    const spec = table[key];
    if (spec && statusOf(spec) !== "works" && !given.has(key)) continue;
    out[key] = value;
  }
  return out as Partial<T>;
}
