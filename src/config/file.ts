/**
 * `-f/--config FILE`: AIPerf's YAML config (`schemaVersion: "2.0"`) read into the values of the
 * `profile` option table, one layer under the command line. Substitutes `${VAR:default}` from the
 * environment, then renders `{{ expr }}` with the file's `variables`, expands AIPerf's shorthands
 * (`model`, `dataset`, flat `phases`, `warmup`/`profiling`), accepts snake_case and camelCase, and
 * maps each key through the one table in file_keys.ts. Every problem is one line naming the file,
 * the key's path and line, and what was expected.
 */

import { isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { Template } from "@huggingface/jinja";
import type { OptionTable } from "./options/spec.ts";
import {
  ConfigError,
  type EnvReader,
  type FileValue,
  type Parsed,
  parseOptions,
  suggestName,
} from "./parse.ts";
import {
  CHECKED_KEYS,
  ENVELOPE_KEYS,
  Expected,
  NOT_YET_KEYS,
  NotYet,
  phaseArrival,
  YAML_KEYS,
} from "./file_keys.ts";

/** A YAML node with its line: the tree the loader walks, so every error can say where. */
type Located =
  | { kind: "map"; line: number; entries: { key: string; line: number; value: Located }[] }
  | { kind: "seq"; line: number; items: Located[] }
  | { kind: "scalar"; line: number; value: unknown; substituted?: boolean };

/** What a config file sets: option key → raw value with where it came from. */
export type FileValues = Map<string, FileValue>;

/** Paths whose map keys are data (header names, body fields, variable names), not config keys. */
const FREE_MAPS = new Set([
  "variables",
  "sweep",
  "plot",
  "benchmark.endpoint.headers",
  "benchmark.endpoint.extra",
  "benchmark.slos",
]);

function snake(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

class Loader {
  readonly values: FileValues = new Map();
  readonly lines = new Map<string, number>();
  private readonly known = [
    ...YAML_KEYS.map((k) => k.path),
    ...NOT_YET_KEYS.map((k) => k.path),
    ...CHECKED_KEYS.map((k) => k.path),
  ];
  private variables: Record<string, unknown> = {};

  constructor(
    private readonly file: string,
    private readonly table: OptionTable,
    private readonly env: EnvReader,
  ) {}

  fail(shown: string, line: number, what: string): never {
    throw new ConfigError(`${this.file} line ${line}: ${shown} ${what}`);
  }

  /** The yaml package's node → Located, with lines from the line counter. */
  locate(node: unknown, counter: LineCounter, doc: ReturnType<typeof parseDocument>): Located {
    const lineOf = (n: Node | null | undefined) => n?.range ? counter.linePos(n.range[0]).line : 1;
    if (isAlias(node)) return this.locate(node.resolve(doc), counter, doc);
    if (isMap(node)) {
      return {
        kind: "map",
        line: lineOf(node),
        entries: node.items.map((pair) => {
          const keyLine = lineOf(pair.key as Node);
          const value: Located = pair.value == null
            ? { kind: "scalar", line: keyLine, value: null }
            : this.locate(pair.value, counter, doc);
          return {
            key: String(isScalar(pair.key) ? pair.key.value : pair.key),
            line: keyLine,
            value,
          };
        }),
      };
    }
    if (isSeq(node)) {
      return {
        kind: "seq",
        line: lineOf(node),
        items: node.items.map((i) => this.locate(i, counter, doc)),
      };
    }
    if (isScalar(node)) return { kind: "scalar", line: lineOf(node), value: node.value };
    return { kind: "scalar", line: 1, value: null };
  }

  /** `${VAR}` / `${VAR:default}` from the environment; a lone reference takes the value's type. */
  substituteEnv(node: Located, shown: string): Located {
    if (node.kind === "map") {
      return {
        ...node,
        entries: node.entries.map((e) => ({
          ...e,
          value: this.substituteEnv(e.value, shown ? `${shown}.${e.key}` : e.key),
        })),
      };
    }
    if (node.kind === "seq") {
      return { ...node, items: node.items.map((n, i) => this.substituteEnv(n, `${shown}[${i}]`)) };
    }
    if (typeof node.value !== "string" || !node.value.includes("${")) return node;
    const re = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}/g;
    const text = node.value.replace(re, (_m, name: string, dflt: string | undefined) => {
      const v = this.env(name);
      if (v !== undefined && v !== "") return v;
      if (dflt !== undefined) return dflt;
      this.fail(
        shown,
        node.line,
        `needs the environment variable ${name}, which is not set (or write \${${name}:default})`,
      );
    });
    return { ...node, value: text, substituted: true };
  }

  /** Renders `{{ expr }}` with the file's variables; a name not among them is an error. */
  render(text: string, shown: string, line: number, vars: Record<string, unknown>): unknown {
    if (!text.includes("{{") && !text.includes("{%")) return text;
    for (const block of text.matchAll(/\{\{(.*?)\}\}/gs)) {
      // Names of variables only: not strings, filters (`| int`), tests (`is defined`), attributes.
      const code = block[1].replace(/(["'])(?:\\.|(?!\1).)*\1/g, "")
        .replace(/\|\s*\w+/g, "").replace(/\bis\s+(not\s+)?\w+/g, "");
      for (const m of code.matchAll(/(^|[^.|\w])([A-Za-z_]\w*)/g)) {
        const name = m[2];
        if (JINJA_WORDS.has(name) || name in vars) continue;
        const hint = suggestName(Object.keys(vars), name);
        this.fail(
          shown,
          line,
          `uses "${name}", which is not among the variables${
            hint ? `; did you mean "${hint}"?` : ""
          }`,
        );
      }
    }
    try {
      return coerce(new Template(text).render(vars));
    } catch (e) {
      this.fail(shown, line, `cannot be rendered: ${(e as Error).message.split("\n")[0]}`);
    }
  }

  /** Resolves `variables:` (which may refer to each other, in any order). */
  resolveVariables(node: Located | undefined): void {
    if (!node) return;
    if (node.kind !== "map") {
      this.fail("variables", node.line, "must be a mapping of names to values");
    }
    const pending = new Map(node.entries.map((e) => [e.key, e]));
    const vars: Record<string, unknown> = {};
    for (const [k, e] of pending) {
      const v = plain(e.value);
      if (typeof v !== "string" || !v.includes("{{")) {
        vars[k] = e.value.kind === "scalar" && e.value.substituted ? coerce(String(v)) : v;
        pending.delete(k);
      }
    }
    while (pending.size > 0) {
      let progressed = false;
      for (const [k, e] of pending) {
        const text = String(plain(e.value));
        const refs = [...text.matchAll(/[A-Za-z_]\w*/g)].map((m) => m[0]);
        if (refs.some((r) => pending.has(r) && r !== k)) continue;
        vars[k] = this.render(text, `variables.${k}`, e.line, vars);
        pending.delete(k);
        progressed = true;
      }
      if (!progressed) {
        const [k, e] = [...pending][0];
        this.fail(`variables.${k}`, e.line, "refers to itself through other variables (a cycle)");
      }
    }
    this.variables = vars;
  }

  /** The plain value of a node, with `{{ }}` rendered and substituted strings typed. */
  value(node: Located, shown: string, keepKeys = false): unknown {
    if (node.kind === "map") {
      return Object.fromEntries(
        node.entries.map((e) => [
          keepKeys ? e.key : snake(e.key),
          this.value(e.value, `${shown}.${e.key}`, keepKeys),
        ]),
      );
    }
    if (node.kind === "seq") {
      return node.items.map((n, i) => this.value(n, `${shown}[${i}]`, keepKeys));
    }
    if (typeof node.value !== "string") return node.value;
    const rendered = this.render(node.value, shown, node.line, this.variables);
    return node.substituted && typeof rendered === "string" ? coerce(rendered) : rendered;
  }

  /** Loads the whole document. */
  load(root: Located): void {
    if (root.kind !== "map") {
      this.fail("the file", root.line, "must be a mapping with a benchmark: section");
    }
    const top = new Map(root.entries.map((e) => [snake(e.key), e]));
    if (!top.has("benchmark") && !top.has("schema_version") && top.size > 0) {
      // A body without its envelope (the Kubernetes deployments' files): read as `benchmark:`.
      if ([...top.keys()].every((k) => BODY_KEYS.has(k))) {
        const loadgen = top.get("loadgen");
        if (loadgen) {
          throw new ConfigError(
            `${this.file} line ${loadgen.line}: ${loadgen.key}: AIPerf's earlier config layout: not supported yet; write schemaVersion "2.0" with a benchmark: section`,
          );
        }
        this.body(root, "");
        this.crossCheck();
        return;
      }
    }
    for (const e of root.entries) {
      const k = snake(e.key);
      if (ENVELOPE_KEYS.includes(k)) continue;
      const hint = suggestName(ENVELOPE_KEYS, k);
      const nested = BODY_KEYS.has(k) ? "; schemaVersion 2.0 puts it under benchmark:" : "";
      this.fail(
        e.key,
        e.line,
        `is not a top-level key${hint ? `; did you mean "${hint}"?` : nested} (top-level keys: ${
          ENVELOPE_KEYS.join(", ")
        })`,
      );
    }
    const version = top.get("schema_version");
    if (version) {
      const v = String(plain(version.value));
      if (v !== "2.0" && v !== "2") {
        this.fail(version.key, version.line, `must be "2.0", got "${v}"`);
      }
    }
    this.resolveVariables(top.get("variables")?.value);
    for (const [k, e] of top) {
      if (k === "schema_version" || k === "variables") continue;
      if (k === "benchmark") this.body(e.value, e.key);
      else this.leafOrMap(e.value, k, e.key);
    }
    this.crossCheck();
  }

  /** The `benchmark:` body with AIPerf's shorthands expanded. */
  body(node: Located, shown: string): void {
    if (node.kind !== "map") {
      this.fail(shown, node.line, "must be a mapping (model, endpoint, dataset, phases, …)");
    }
    const phases: { role: string; node: Located; shown: string }[] = [];
    for (const e of node.entries) {
      const k = snake(e.key);
      const at = shown ? `${shown}.${e.key}` : e.key;
      if (k === "model" || k === "models") this.leafOrMap(e.value, "benchmark.models", at);
      else if (k === "dataset") this.leafOrMap(e.value, "benchmark.dataset", at);
      else if (k === "datasets") this.datasets(e.value, at);
      else if (k === "phases") phases.push(...this.phaseList(e.value, at));
      else if (k === "warmup" || k === "profiling") {
        phases.push({ role: k, node: e.value, shown: at });
      } else this.leafOrMap(e.value, `benchmark.${k}`, at);
    }
    const roles = phases.map((p) => p.role);
    for (const role of ["warmup", "profiling"]) {
      const mine = phases.filter((p) => p.role === role);
      if (mine.length > 1) {
        const p = mine[1];
        throw new ConfigError(
          `${this.file} line ${p.node.line}: ${p.shown}: more than one ${
            role === "warmup" ? "warmup" : "measured"
          } phase: not supported yet`,
        );
      }
    }
    if (
      roles.includes("warmup") && roles.indexOf("warmup") > roles.indexOf("profiling") &&
      roles.includes("profiling")
    ) {
      const p = phases.find((x) => x.role === "warmup")!;
      throw new ConfigError(
        `${this.file} line ${p.node.line}: ${p.shown}: a warmup after the measured phase: not supported yet`,
      );
    }
    for (const p of phases) {
      if (p.node.kind !== "map") {
        this.fail(p.shown, p.node.line, "must be a mapping (type, concurrency, requests, …)");
      }
      for (const e of p.node.entries) {
        if (snake(e.key) === "name") continue;
        this.leafOrMap(
          e.value,
          `benchmark.phases.${p.role}.${snake(e.key)}`,
          `${p.shown}.${e.key}`,
        );
      }
    }
  }

  /** `datasets:` as a list of named entries or a mapping of name → dataset; one for now. */
  datasets(node: Located, shown: string): void {
    let items: { node: Located; shown: string }[];
    if (node.kind === "seq") {
      items = node.items.map((n, i) => ({ node: n, shown: `${shown}[${i}]` }));
    } else if (node.kind === "map") {
      items = node.entries.map((e) => ({ node: e.value, shown: `${shown}.${e.key}` }));
    } else this.fail(shown, node.line, "must be a list of datasets");
    if (items.length === 0) this.fail(shown, node.line, "must hold one dataset");
    if (items.length > 1) {
      throw new ConfigError(
        `${this.file} line ${items[1].node.line}: ${
          items[1].shown
        }: more than one dataset: not supported yet`,
      );
    }
    const only = items[0];
    if (only.node.kind !== "map") {
      this.fail(only.shown, only.node.line, "must be a mapping (type, path, prompts, …)");
    }
    for (const e of only.node.entries) {
      if (snake(e.key) === "name") continue;
      this.leafOrMap(e.value, `benchmark.dataset.${snake(e.key)}`, `${only.shown}.${e.key}`);
    }
  }

  /** `phases:` as one flat phase, a list of named phases, or a mapping of name → phase. */
  phaseList(node: Located, shown: string): { role: string; node: Located; shown: string }[] {
    const role = (n: Located, name: string | undefined) => {
      const v = n.kind === "map" ? this.value(n, shown) as Record<string, unknown> : {};
      return name === "warmup" || v.exclude_from_results === true ? "warmup" : "profiling";
    };
    if (node.kind === "seq") {
      return node.items.map((n, i) => {
        const name = n.kind === "map" ? this.value(n, shown) as Record<string, unknown> : {};
        return { role: role(n, name.name as string | undefined), node: n, shown: `${shown}[${i}]` };
      });
    }
    if (node.kind !== "map") this.fail(shown, node.line, "must be a phase or a list of phases");
    const flat = node.entries.some((e) => e.value.kind !== "map");
    if (flat) return [{ role: role(node, undefined), node, shown }];
    return node.entries.map((e) => ({
      role: role(e.value, e.key),
      node: e.value,
      shown: `${shown}.${e.key}`,
    }));
  }

  /** A key's value: mapped when the table names its path, walked into when it is a section. */
  leafOrMap(node: Located, path: string, shown: string): void {
    const keys = YAML_KEYS.filter((k) => k.path === path);
    const notYet = NOT_YET_KEYS.find((k) => k.path === path);
    const checked = CHECKED_KEYS.filter((k) => k.path === path);
    if (keys.length || notYet || checked.length) {
      // Header names and body fields are data: their spelling is kept.
      const value = this.value(node, shown, FREE_MAPS.has(path));
      if (path === "benchmark.phases.warmup.type") this.warmType = value;
      try {
        if (notYet && !notYet.isDefault(value)) throw new NotYet(notYet.feature);
        for (const c of checked) c.check(value);
        for (const k of keys) {
          this.set(k.option, k.convert ? k.convert(value) : value, path, shown, node.line);
        }
      } catch (e) {
        if (e instanceof NotYet) {
          throw new ConfigError(
            `${this.file} line ${node.line}: ${shown}: ${e.message}: not supported yet`,
          );
        }
        if (e instanceof Expected) this.fail(shown, node.line, e.message);
        throw e;
      }
      return;
    }
    if (FREE_MAPS.has(path)) return;
    const below = this.known.filter((k) => k.startsWith(`${path}.`));
    if (below.length && node.kind === "map") {
      for (const e of node.entries) {
        this.leafOrMap(e.value, `${path}.${snake(e.key)}`, `${shown}.${e.key}`);
      }
      return;
    }
    if (below.length) {
      this.fail(
        shown,
        node.line,
        `must be a mapping (${below.map((k) => k.slice(path.length + 1)).join(", ")})`,
      );
    }
    const parent = path.slice(0, path.lastIndexOf("."));
    const siblings = this.known.filter((k) => k.startsWith(`${parent}.`)).map((k) =>
      k.slice(parent.length + 1).split(".")[0]
    );
    const hint = suggestName(siblings, path.slice(parent.length + 1));
    this.fail(
      shown,
      node.line,
      `is not a key reprise knows${
        hint
          ? `; did you mean "${hint}"?`
          : siblings.length
          ? ` (known here: ${[...new Set(siblings)].join(", ")})`
          : ""
      }`,
    );
  }

  set(option: string, raw: unknown, path: string, shown: string, line: number): void {
    if (raw === undefined || raw === null) return;
    if (!(option in this.table)) {
      this.fail(
        shown,
        line,
        `sets the option "${option}", which this version of reprise does not have`,
      );
    }
    const before = this.values.get(option);
    if (before && JSON.stringify(before.raw) !== JSON.stringify(raw)) {
      this.fail(
        shown,
        line,
        `sets ${`--${this.table[option].flag}`} again (already set by ${before.source})`,
      );
    }
    this.values.set(option, { raw, source: `${this.file} line ${line}: ${shown}` });
    this.lines.set(path, line);
  }

  /** A warmup paced differently from the measured phase needs a warmup pattern of its own. */
  crossCheck(): void {
    const warm = this.warmType;
    if (warm === undefined) return;
    const pattern = this.values.get("arrivalPattern")?.raw ?? this.table.arrivalPattern?.default;
    const arrival = phaseArrival(warm);
    if (arrival !== undefined && arrival !== pattern) {
      throw new ConfigError(
        `${this.file}: benchmark.phases warmup type ${warm}: a warmup arrival pattern other than the measured phase's (${pattern}): not supported yet`,
      );
    }
  }

  /** The warmup phase's type, checked against the measured one's after both are read. */
  private warmType: unknown;
}

/** The keys of the `benchmark:` body (and of the earlier layout), for a body given bare. */
const BODY_KEYS = new Set([
  "model",
  "models",
  "endpoint",
  "dataset",
  "datasets",
  "phases",
  "profiling",
  "warmup",
  "artifacts",
  "loadgen",
  "tokenizer",
  "slos",
  "gpu_telemetry",
  "server_metrics",
  "runtime",
  "logging",
]);

const JINJA_WORDS = new Set([
  "and",
  "or",
  "not",
  "in",
  "is",
  "if",
  "else",
  "true",
  "false",
  "none",
  "True",
  "False",
  "None",
  "range",
  "loop",
]);

/** `"42"` → 42, `"3.5"` → 3.5, `"true"` → true: what AIPerf does to substituted strings. */
function coerce(text: string): unknown {
  const t = text.trim();
  if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(t)) return Number(t);
  if (t === "true" || t === "True") return true;
  if (t === "false" || t === "False") return false;
  return text;
}

function plain(node: Located): unknown {
  if (node.kind === "map") {
    return Object.fromEntries(node.entries.map((e) => [e.key, plain(e.value)]));
  }
  if (node.kind === "seq") return node.items.map(plain);
  return node.value;
}

/**
 * Reads a config file's text into option values for `table`. `file` names it in messages. Throws
 * {@link ConfigError} (one line: file, line, key path, what was expected) for any problem.
 */
export function loadConfigText(
  text: string,
  file: string,
  table: OptionTable,
  env: EnvReader = () => undefined,
): FileValues {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const err = doc.errors[0];
    const line = err.linePos?.[0]?.line ?? counter.linePos(err.pos[0]).line;
    throw new ConfigError(`${file} line ${line}: not valid YAML: ${err.message.split("\n")[0]}`);
  }
  const loader = new Loader(file, table, env);
  const located = loader.locate(doc.contents, counter, doc);
  const substituted = loader.substituteEnv(located, "");
  loader.load(substituted);
  return loader.values;
}

/** Reads `path` and loads it; a file that cannot be read is a config error naming it. */
export async function loadConfigFile(
  path: string,
  table: OptionTable,
  env: EnvReader = () => undefined,
): Promise<FileValues> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) throw e;
    const why = e instanceof Deno.errors.NotFound ? "no such file" : (e as Error).message;
    throw new ConfigError(`Cannot read config file "${path}": ${why}`);
  }
  return loadConfigText(text, path, table, env);
}

/** Every YAML key path that sets `option`, for `--help`. */
export function yamlPathsOf(option: string): string[] {
  return [...new Set(YAML_KEYS.filter((k) => k.option === option).map((k) => k.path))];
}

/**
 * Parses `argv` with the config file `-f/--config` names (when it names one) as the layer under
 * the command line and env vars: the precedence AIPerf documents, flags over the file.
 */
export async function parseWithConfigFile<T extends OptionTable>(
  table: T,
  argv: string[],
  env: EnvReader = () => undefined,
): Promise<Parsed<T>> {
  const first = parseOptions(table, argv, env);
  const path = (first.values as Record<string, unknown>).config;
  if (typeof path !== "string") return first;
  return parseOptions(table, argv, env, await loadConfigFile(path, table, env));
}
