/**
 * Turns argv and environment variables into a validated config, using an option table.
 * Every message names the flag and says what was expected.
 */

import { parseArgs } from "node:util";
import type { ConfigOf, OptionSpec, OptionTable } from "./options.ts";

/** A config problem the user must fix; the CLI prints it and exits 2. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** The result of parsing: validated values, positional arguments, and which options were given. */
export interface Parsed<T extends OptionTable> {
  values: ConfigOf<T>;
  positionals: string[];
  /** Config keys set on the command line or by an env var (not defaults). */
  given: Set<keyof T>;
}

/** Reads an environment variable; absent, or not permitted to read, both mean unset. */
export type EnvReader = (name: string) => string | undefined;

/** Levenshtein distance, for "did you mean" suggestions. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

/** The name in `names` closest to `name`, when close enough to be a likely typo. */
export function suggestName(names: readonly string[], name: string): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const n of names) {
    const d = distance(name, n);
    if (d < bestD) {
      bestD = d;
      best = n;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** A value a config file sets for an option, with where it came from (key path, file, line). */
export interface FileValue {
  raw: unknown;
  /** How messages name it: `benchmark.endpoint.url (bench.yaml line 7)`. */
  source: string;
}

/** The known flag closest to `flag`, when it is close enough to be a likely typo. */
export function suggestFlag(table: OptionTable, flag: string): string | undefined {
  const name = flag.replace(/^-+/, "").split("=")[0];
  let best: string | undefined;
  let bestD = Infinity;
  for (const spec of Object.values(table)) {
    for (const f of [spec.flag, ...(spec.aliases ?? [])]) {
      const d = distance(name, f);
      if (d < bestD) {
        bestD = d;
        best = f;
      }
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(name.length / 3))
    ? `--${best}`
    : undefined;
}

function display(spec: OptionSpec): string {
  return `--${spec.flag}`;
}

function convert(spec: OptionSpec, raw: unknown, source: string): unknown {
  if (typeof raw === "object" && raw !== null && (spec.kind !== "list" || !Array.isArray(raw))) {
    const what = spec.kind === "list" ? "a list or a single value" : "a single value";
    throw new ConfigError(`${source} must be ${what} (${spec.expect})`);
  }
  if (spec.kind === "number") {
    const text = String(raw).trim();
    const n = text === "" ? NaN : Number(text);
    if (!Number.isFinite(n)) {
      // AIPerf reads a comma list of a sweepable flag as a parameter sweep (docs/sweeps.md).
      const sweep = /^\s*[\d.]+(\s*,\s*[\d.]+)+\s*$/.test(text)
        ? " (a comma list is a parameter sweep, which this flag does not take)"
        : "";
      throw new ConfigError(
        `${source} must be ${spec.expect}, got ${JSON.stringify(String(raw))}${sweep}`,
      );
    }
    return n;
  }
  if (spec.kind === "boolean") {
    if (typeof raw === "boolean") return raw;
    const text = String(raw).trim().toLowerCase();
    if (["1", "true", "yes", "on"].includes(text)) return true;
    if (["0", "false", "no", "off", ""].includes(text)) return false;
    throw new ConfigError(`${source} must be true or false, got ${JSON.stringify(String(raw))}`);
  }
  const alias = (v: string) => spec.valueAliases?.[v] ?? v;
  if (spec.kind === "list") {
    // A flag given alone (`--server-metrics`) carries no value.
    const items = Array.isArray(raw) ? raw.map(String) : [String(raw)];
    return spec.optionalValue ? items.filter((v) => v !== "").map(alias) : items.map(alias);
  }
  return alias(String(raw));
}

function validate(spec: OptionSpec, value: unknown, raw: unknown, source: string): unknown {
  const result = spec.schema.safeParse(value);
  if (!result.success) {
    const shown = spec.secret
      ? "<redacted>"
      : JSON.stringify(Array.isArray(raw) ? raw : String(raw));
    throw new ConfigError(`${source} must be ${spec.expect}, got ${shown}`);
  }
  const problem = spec.check?.(result.data);
  if (problem !== undefined) throw new ConfigError(`${source} ${problem}`);
  return result.data;
}

/**
 * `--flag -5` as `--flag=-5`: a value-taking flag followed by a negative number takes it as its
 * value, so a negative count is judged as a value ("must be a positive integer, got -5") instead
 * of being taken for a flag (which would read as "--flag needs a value").
 */
function joinNegativeValues(
  argv: string[],
  options: Record<string, { type: "string" | "boolean"; short?: string }>,
): string[] {
  const takesValue = new Map<string, string>();
  for (const [name, o] of Object.entries(options)) {
    if (o.type !== "string") continue;
    takesValue.set(`--${name}`, `--${name}`);
    if (o.short) takesValue.set(`-${o.short}`, `--${name}`);
  }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") return out.concat(argv.slice(i));
    const long = takesValue.get(arg);
    const next = argv[i + 1];
    if (long !== undefined && next !== undefined && /^-(\d|\.\d)/.test(next)) {
      out.push(`${long}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/**
 * The name a flag has for `parseArgs`: a flag spelled `no-X` (`--no-server-metrics`, an option
 * of its own) would be read as the negation of `X`, so it goes by another name.
 */
function argName(flag: string): string {
  return flag.startsWith("no-") ? `literal-${flag}` : flag;
}

/**
 * AIPerf's spellings the parser cannot read as they are: `-vv` (`--extra-verbose` when the table
 * has it), a flag that may stand alone (`optionalValue`) given without a value, which becomes
 * `--flag=` (no value), and a flag of several values (`manyValues`) followed by them, which
 * becomes one `--flag=value` per value.
 */
function aiperfSpellings(argv: string[], table: OptionTable): string[] {
  const bare = new Set<string>();
  const literalNo = new Set<string>();
  const many = new Set<string>();
  let extraVerbose = false;
  for (const spec of Object.values(table)) {
    if (spec.manyValues) {
      for (const f of [spec.flag, ...(spec.aliases ?? [])]) many.add(`--${f}`);
    }
    if (spec.flag === "extra-verbose") extraVerbose = true;
    for (const f of [spec.flag, ...(spec.aliases ?? [])]) {
      if (f.startsWith("no-")) literalNo.add(`--${f}`);
    }
    if (spec.optionalValue) {
      for (const f of [spec.flag, ...(spec.aliases ?? [])]) bare.add(`--${f}`);
    }
  }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") return out.concat(argv.slice(i));
    const [name, ...value] = arg.split("=");
    if (arg === "-vv" && extraVerbose) out.push("--extra-verbose");
    else if (literalNo.has(name)) out.push([`--${argName(name.slice(2))}`, ...value].join("="));
    else if (many.has(arg) && i + 1 < argv.length && !argv[i + 1].startsWith("-")) {
      while (i + 1 < argv.length && !argv[i + 1].startsWith("-")) out.push(`${arg}=${argv[++i]}`);
    } else if (bare.has(arg) && (i + 1 >= argv.length || argv[i + 1].startsWith("-"))) {
      out.push(`${arg}=`);
    } else out.push(arg);
  }
  return out;
}

/**
 * Parses `argv` against `table`. Precedence: command line, then env vars, then the config file's
 * values (`file`, keyed by option), then defaults. Throws {@link ConfigError} for unknown flags
 * (suggesting the nearest), missing values and invalid values.
 */
export function parseOptions<T extends OptionTable>(
  table: T,
  argv: string[],
  env: EnvReader = () => undefined,
  file: ReadonlyMap<string, FileValue> = new Map(),
): Parsed<T> {
  const options: Record<
    string,
    { type: "string" | "boolean"; short?: string; multiple?: boolean }
  > = {};
  const owner = new Map<string, string>();
  for (const [key, spec] of Object.entries(table)) {
    for (const [i, flag] of [spec.flag, ...(spec.aliases ?? [])].entries()) {
      const name = argName(flag);
      options[name] = {
        type: spec.kind === "boolean" ? "boolean" : "string",
        multiple: spec.kind === "list",
        ...(i === 0 && spec.short ? { short: spec.short } : {}),
      };
      owner.set(name, key);
    }
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: joinNegativeValues(aiperfSpellings(argv, table), options),
      options,
      strict: true,
      allowPositionals: true,
      allowNegative: true,
    });
  } catch (e) {
    const err = e as Error & { code?: string };
    const m = /'([^']+)'/.exec(err.message);
    if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && m) {
      const flag = m[1];
      const hint = suggestFlag(table, flag);
      throw new ConfigError(
        `Unknown option ${flag}${hint ? `; did you mean ${hint}?` : ""} (see --help)`,
      );
    }
    if (err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
      const flagMatch = /--([a-z0-9-]+)/.exec(err.message);
      const key = flagMatch ? owner.get(flagMatch[1]) : undefined;
      const spec = key ? table[key] : undefined;
      throw new ConfigError(
        spec ? `${display(spec)} needs a value: ${spec.expect}` : err.message,
      );
    }
    throw new ConfigError(err.message);
  }
  const raw = parsed.values as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  const given = new Set<keyof T>();
  for (const [key, spec] of Object.entries(table)) {
    let value: unknown;
    let source = display(spec);
    let rawValue: unknown;
    for (const name of [spec.flag, ...(spec.aliases ?? [])]) {
      if (raw[argName(name)] === undefined) continue;
      if (spec.kind === "list" && Array.isArray(rawValue)) {
        rawValue = [...rawValue, ...(raw[argName(name)] as unknown[])];
      } else rawValue = raw[argName(name)];
      source = `--${name}`;
    }
    if (rawValue === undefined) {
      for (const name of spec.env ?? []) {
        const v = env(name);
        if (v !== undefined && v !== "") {
          rawValue = v;
          source = `${name} (environment)`;
          break;
        }
      }
    }
    const fromFile = file.get(key);
    if (rawValue === undefined && fromFile !== undefined) {
      rawValue = fromFile.raw;
      source = fromFile.source;
    }
    if (rawValue !== undefined) {
      value = validate(spec, convert(spec, rawValue, source), rawValue, source);
      given.add(key as keyof T);
    } else value = spec.default;
    values[key] = value;
  }
  return { values: values as ConfigOf<T>, positionals: parsed.positionals, given };
}
