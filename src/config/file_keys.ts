/**
 * The YAML config file's keys (AIPerf's `schemaVersion: "2.0"`), each mapped onto the option it
 * sets in the one option table. A key declares no option of its own: its flag, validation and help
 * come from the option it names. Keys of features reprise does not have yet are listed apart,
 * with the value that changes nothing (accepted) — any other value is "not supported yet".
 */

/** Thrown by a conversion: the value is not what the key takes (said after the key's path). */
export class Expected extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Expected";
  }
}

/** Thrown by a conversion: the value asks for a feature reprise does not have yet. */
export class NotYet extends Error {
  constructor(feature: string) {
    super(feature);
    this.name = "NotYet";
  }
}

/** One YAML key path and the option it sets. Several entries may share a path. */
export interface YamlKey {
  /** The canonical snake_case path from the file's root, phases by role (`warmup`, `profiling`). */
  path: string;
  /** The option's key in the `profile` table. */
  option: string;
  /** The file's value to the option's raw value; undefined sets nothing. Throws Expected/NotYet. */
  convert?: (value: unknown) => unknown;
}

/** A key of a feature not built yet; `isDefault` says when its value changes nothing. */
export interface NotYetKey {
  path: string;
  feature: string;
  isDefault: (value: unknown) => boolean;
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const empty = (v: unknown) =>
  v === null || v === undefined || v === false || (isMap(v) && Object.keys(v).length === 0) ||
  (Array.isArray(v) && v.length === 0);
const disabled = (v: unknown) => empty(v) || (isMap(v) && v.enabled === false);

function scalar(v: unknown): unknown {
  if (isMap(v) || Array.isArray(v)) throw new Expected("must be a single value");
  return v;
}

/** `512` or `{mean: 512, stddev: 50}`: the part named by `part`. */
function dist(part: "mean" | "stddev") {
  return (v: unknown): unknown => {
    if (!isMap(v)) return part === "mean" ? scalar(v) : undefined;
    for (const k of Object.keys(v)) {
      if (k !== "mean" && k !== "stddev") {
        throw new Expected(`must be a number or {mean, stddev}, got key "${k}"`);
      }
    }
    return v[part];
  };
}

/** A name or a list of names; one is all reprise sends to for now. */
function oneOf(what: string) {
  return (v: unknown): unknown => {
    let list: unknown[] = Array.isArray(v) ? v : [v];
    if (isMap(v) && Array.isArray(v.items)) list = v.items;
    list = list.map((x) => isMap(x) && "name" in x ? x.name : x);
    if (list.length === 0) throw new Expected(`must name at least one ${what}`);
    if (list.length > 1) throw new NotYet(`more than one ${what}`);
    return scalar(list[0]);
  };
}

/**
 * One part of a telemetry section (`gpu_telemetry`, `server_metrics`): the section must be a
 * mapping of the `allowed` keys (or false/null: nothing set); `pick` reads the part.
 */
function telemetry(allowed: string[], pick: (v: Record<string, unknown>) => unknown) {
  return (v: unknown): unknown => {
    if (v === null || v === undefined || v === false) return undefined;
    if (!isMap(v)) throw new Expected(`must be a mapping (${allowed.join(", ")})`);
    for (const k of Object.keys(v)) {
      if (!allowed.includes(k)) {
        throw new Expected(`has no key "${k}" (known: ${allowed.join(", ")})`);
      }
    }
    return pick(v);
  };
}

/** A list of strings (or one string) from a section's key; undefined when absent. */
function strings(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  const list = Array.isArray(v) ? v : [v];
  return list.map((x) => String(scalar(x)));
}

const GPU_KEYS = ["enabled", "collector", "mode", "urls", "metrics_file"];
const OTEL_KEYS = [
  "metrics_url",
  "stream_metrics_enabled",
  "stream_timing_enabled",
  "custom_resource_attributes",
  "gen_ai_provider",
];
const SERVER_KEYS = ["enabled", "urls", "formats"];

const RATE_TYPES = ["constant", "poisson", "gamma"];
const PHASE_TYPES = ["concurrency", ...RATE_TYPES, "fixed_schedule"];

function phaseType(v: unknown): string {
  const t = String(scalar(v));
  if (PHASE_TYPES.includes(t)) return t;
  if (["user_centric", "burst", "adaptive"].includes(t)) throw new NotYet(`phase type ${t}`);
  throw new Expected(`must be one of ${PHASE_TYPES.join(", ")}, got "${t}"`);
}

/** `30`, `"30s"`, `"500ms"`, `"2m"`: seconds. */
function seconds(v: unknown): unknown {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(String(scalar(v)));
  if (!m) throw new Expected(`must be a duration such as 30 or "30s", got "${v}"`);
  const mult = { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2] ?? "s"]!;
  return Number(m[1]) * mult;
}

/** `{Name: value}` or `["Name: value"]`: the `-H` list. */
function headers(v: unknown): string[] {
  if (Array.isArray(v)) return v.map((x) => String(scalar(x)));
  if (!isMap(v)) throw new Expected("must be a mapping of header names to values");
  return Object.entries(v).map(([k, x]) => `${k}:${String(scalar(x))}`);
}

/** Export formats reprise always writes; asking for exactly these changes nothing. */
function formats(allowed: string[], what: string) {
  return (v: unknown): undefined => {
    const list = Array.isArray(v) ? v : [v];
    for (const f of list) {
      if (!allowed.includes(String(f))) throw new NotYet(`${what} format ${f}`);
    }
    return undefined;
  };
}

/** Must equal `want` (a key with one meaning in reprise, checked rather than ignored). */
function only(want: unknown, feature: string) {
  return (v: unknown): undefined => {
    if (v !== want && v !== null) throw new NotYet(feature);
    return undefined;
  };
}

/** A list of values (`[16, 44.1]`) or one, as the strings a list option takes. */
function list(v: unknown): string[] {
  return (Array.isArray(v) ? v : [v]).map((x) => String(scalar(x)));
}

/** The synthetic images and audio of `dataset.images` / `dataset.audio` (AIPerf's templates). */
function mediaKeys(): YamlKey[] {
  const I = "benchmark.dataset.images";
  const A = "benchmark.dataset.audio";
  return [
    { path: `${I}.batch_size`, option: "imageBatchSize", convert: scalar },
    { path: `${I}.width`, option: "imageWidthMean", convert: dist("mean") },
    { path: `${I}.width`, option: "imageWidthStddev", convert: dist("stddev") },
    { path: `${I}.height`, option: "imageHeightMean", convert: dist("mean") },
    { path: `${I}.height`, option: "imageHeightStddev", convert: dist("stddev") },
    { path: `${I}.format`, option: "imageFormat", convert: scalar },
    { path: `${I}.source`, option: "imageSource", convert: scalar },
    { path: `${I}.source_sampling`, option: "imageSourceSampling", convert: scalar },
    { path: `${A}.batch_size`, option: "audioBatchSize", convert: scalar },
    { path: `${A}.length`, option: "audioLengthMean", convert: dist("mean") },
    { path: `${A}.length`, option: "audioLengthStddev", convert: dist("stddev") },
    { path: `${A}.format`, option: "audioFormat", convert: scalar },
    { path: `${A}.sample_rates`, option: "audioSampleRates", convert: list },
    { path: `${A}.depths`, option: "audioDepths", convert: list },
    { path: `${A}.channels`, option: "audioNumChannels", convert: scalar },
    { path: `${A}.num_channels`, option: "audioNumChannels", convert: scalar },
  ];
}

const B = "benchmark";
const P = `${B}.phases.profiling`;
const W = `${B}.phases.warmup`;
const D = `${B}.dataset`;

/**
 * Every YAML key reprise reads, and the option it sets. A path may name an option this version
 * lacks (options are added over time): loading it is then a clear error, never a crash.
 */
export const YAML_KEYS: readonly YamlKey[] = [
  { path: "random_seed", option: "randomSeed", convert: scalar },
  { path: `${B}.models`, option: "model", convert: oneOf("model") },
  { path: `${B}.endpoint.urls`, option: "url", convert: oneOf("URL") },
  { path: `${B}.endpoint.url`, option: "url", convert: scalar },
  { path: `${B}.endpoint.type`, option: "endpointType", convert: scalar },
  { path: `${B}.endpoint.path`, option: "endpoint", convert: scalar },
  { path: `${B}.endpoint.streaming`, option: "streaming", convert: scalar },
  { path: `${B}.endpoint.api_key`, option: "apiKey", convert: scalar },
  { path: `${B}.endpoint.timeout`, option: "requestTimeoutSeconds", convert: scalar },
  { path: `${B}.endpoint.headers`, option: "header", convert: headers },
  {
    path: `${B}.endpoint.extra`,
    option: "extraInputs",
    convert: (v) => {
      if (!isMap(v)) throw new Expected("must be a mapping of body fields to values");
      return [JSON.stringify(v)];
    },
  },
  { path: `${B}.endpoint.use_legacy_max_tokens`, option: "useLegacyMaxTokens", convert: scalar },
  { path: `${B}.endpoint.use_server_token_count`, option: "useServerTokenCount", convert: scalar },
  { path: `${B}.endpoint.download_video_content`, option: "downloadVideoContent", convert: scalar },
  { path: `${D}.path`, option: "inputFile", convert: scalar },
  { path: `${D}.format`, option: "customDatasetType", convert: scalar },
  { path: `${D}.sampling`, option: "datasetSamplingStrategy", convert: scalar },
  { path: `${D}.sampling_strategy`, option: "datasetSamplingStrategy", convert: scalar },
  { path: `${D}.entries`, option: "numDatasetEntries", convert: scalar },
  { path: `${D}.prompts.isl`, option: "isl", convert: dist("mean") },
  { path: `${D}.prompts.isl`, option: "islStddev", convert: dist("stddev") },
  { path: `${D}.prompts.osl`, option: "osl", convert: dist("mean") },
  { path: `${D}.prompts.osl`, option: "oslStddev", convert: dist("stddev") },
  { path: `${D}.isl`, option: "isl", convert: dist("mean") },
  { path: `${D}.isl`, option: "islStddev", convert: dist("stddev") },
  { path: `${D}.osl`, option: "osl", convert: dist("mean") },
  { path: `${D}.osl`, option: "oslStddev", convert: dist("stddev") },
  { path: `${P}.type`, option: "arrivalPattern", convert: (v) => rateType(phaseType(v)) },
  {
    path: `${P}.type`,
    option: "fixedSchedule",
    convert: (v) => phaseType(v) === "fixed_schedule" ? true : undefined,
  },
  { path: `${P}.concurrency`, option: "concurrency", convert: scalar },
  { path: `${P}.rate`, option: "requestRate", convert: scalar },
  { path: `${P}.requests`, option: "requestCount", convert: scalar },
  { path: `${P}.duration`, option: "benchmarkDuration", convert: seconds },
  { path: `${P}.grace_period`, option: "benchmarkGracePeriod", convert: seconds },
  { path: `${P}.smoothness`, option: "arrivalSmoothness", convert: scalar },
  { path: `${P}.rate_ramp`, option: "requestRateRampDuration", convert: seconds },
  { path: `${P}.concurrency_ramp`, option: "concurrencyRampDuration", convert: seconds },
  { path: `${P}.auto_offset`, option: "fixedScheduleAutoOffset", convert: scalar },
  { path: `${P}.start_offset`, option: "fixedScheduleStartOffset", convert: scalar },
  { path: `${P}.end_offset`, option: "fixedScheduleEndOffset", convert: scalar },
  { path: `${W}.concurrency`, option: "warmupConcurrency", convert: scalar },
  { path: `${W}.rate`, option: "warmupRequestRate", convert: scalar },
  { path: `${W}.requests`, option: "warmupRequestCount", convert: scalar },
  { path: `${W}.duration`, option: "warmupDuration", convert: seconds },
  { path: `${B}.artifacts.dir`, option: "artifactDir", convert: scalar },
  { path: `${B}.artifacts.slice_duration`, option: "sliceDuration", convert: seconds },
  { path: `${B}.tokenizer.name`, option: "tokenizer", convert: scalar },
  ...mediaKeys(),
  {
    path: `${B}.gpu_telemetry`,
    option: "noGpuTelemetry",
    convert: telemetry(GPU_KEYS, (v) => {
      if (v.collector !== undefined && v.collector !== "dcgm") {
        throw new NotYet(`the ${String(v.collector)} GPU collector`);
      }
      return v.enabled === false ? true : undefined;
    }),
  },
  {
    path: `${B}.gpu_telemetry`,
    option: "gpuTelemetry",
    convert: telemetry(GPU_KEYS, (v) => {
      if (v.enabled === false) return undefined;
      // Enabled, it shows the GPU table, as the flag does.
      const values = [...(strings(v.urls) ?? []), ...(strings(v.metrics_file) ?? [])];
      return values.length > 0 || v.enabled === true ? values : undefined;
    }),
  },
  {
    path: `${B}.server_metrics`,
    option: "noServerMetrics",
    convert: telemetry(SERVER_KEYS, (v) => v.enabled === false ? true : undefined),
  },
  {
    path: `${B}.server_metrics`,
    option: "serverMetrics",
    convert: telemetry(SERVER_KEYS, (v) => strings(v.urls)),
  },
  {
    path: `${B}.otel`,
    option: "otelUrl",
    convert: telemetry(
      OTEL_KEYS,
      (v) => v.metrics_url === undefined ? undefined : scalar(v.metrics_url),
    ),
  },
  {
    path: `${B}.otel`,
    option: "stream",
    convert: telemetry(OTEL_KEYS, (v) => {
      const metrics = v.stream_metrics_enabled !== false;
      const timing = v.stream_timing_enabled !== false;
      if (!metrics && !timing) throw new Expected("streams nothing: enable metrics or timing");
      return metrics && timing ? undefined : metrics ? "metrics" : "timing";
    }),
  },
  {
    path: `${B}.otel`,
    option: "otelResourceAttributes",
    convert: telemetry(OTEL_KEYS, (v) => {
      const a = v.custom_resource_attributes;
      if (a === undefined || a === null) return undefined;
      if (!isMap(a)) throw new Expected("custom_resource_attributes must be a mapping");
      return Object.entries(a).map(([k, x]) => `${k}=${scalar(x)}`);
    }),
  },
  {
    path: `${B}.otel`,
    option: "genAiProvider",
    convert: telemetry(OTEL_KEYS, (v) => v.gen_ai_provider ?? undefined),
  },
  {
    path: `${B}.server_metrics`,
    option: "serverMetricsFormats",
    convert: telemetry(SERVER_KEYS, (v) => strings(v.formats)),
  },
  {
    path: `${B}.slos`,
    option: "goodput",
    convert: (v) => {
      if (!isMap(v)) throw new Expected("must be a mapping of metric tags to thresholds");
      return Object.entries(v).map(([k, x]) => `${k}:${scalar(x)}`).join(" ");
    },
  },
];

/** A key that sets no option but is checked: a value reprise cannot honour is an error. */
export interface CheckedKey {
  path: string;
  /** Throws Expected or NotYet when the value is not one reprise runs as asked. */
  check: (value: unknown) => void;
}

/** Keys that set nothing (reprise's behaviour already matches) but are checked, not ignored. */
export const CHECKED_KEYS: readonly CheckedKey[] = [
  {
    path: `${D}.type`,
    check: (v) => {
      const t = String(scalar(v));
      if (t === "public") throw new NotYet("public datasets");
      if (t !== "synthetic" && t !== "file") {
        throw new Expected(`must be synthetic or file, got "${t}"`);
      }
    },
  },
  { path: `${W}.type`, check: (v) => void phaseType(v) },
  { path: `${P}.exclude_from_results`, check: only(false, "a second phase left out of results") },
  { path: `${W}.exclude_from_results`, check: only(true, "a warmup phase counted in results") },
  { path: `${B}.artifacts.summary`, check: formats(["json", "csv"], "summary") },
  { path: `${B}.artifacts.records`, check: formats(["jsonl"], "records") },
];

function rateType(t: string): string | undefined {
  return RATE_TYPES.includes(t) ? t : undefined;
}

/** Keys of features reprise has not built yet; their default value is accepted. */
export const NOT_YET_KEYS: readonly NotYetKey[] = [
  {
    path: "sweep",
    feature: "sweeps",
    isDefault: (v) => empty(v) || (isMap(v) && empty(v.parameters) && empty(v.type)),
  },
  {
    path: "multi_run",
    feature: "multi-run confidence",
    isDefault: (v) => empty(v) || (isMap(v) && (v.num_runs === undefined || v.num_runs === 1)),
  },
  { path: "plot", feature: "plot configuration", isDefault: empty },
  { path: "no_sweep_table", feature: "sweep tables", isDefault: () => true },
  { path: `${B}.runtime`, feature: "runtime settings", isDefault: empty },
  { path: `${B}.logging`, feature: "logging settings", isDefault: empty },
  { path: `${D}.records`, feature: "inline dataset records", isDefault: empty },
  ...["video"].map((m) => ({
    path: `${D}.${m}`,
    feature: `synthetic ${m}`,
    isDefault: (v: unknown) => empty(v) || (isMap(v) && v.batch_size === 0),
  })),
  ...[P, W].flatMap((phase) =>
    ["adaptive_scale", "sla", "sessions", "users", "prefill_concurrency", "prefill_ramp"].map(
      (k) => ({
        path: `${phase}.${k}`,
        feature: `phases.${k}`,
        isDefault: (v: unknown) => disabled(v) || v === 0,
      }),
    )
  ),
  ...["grace_period", "rate_ramp", "concurrency_ramp", "smoothness", "auto_offset"].map((k) => ({
    path: `${W}.${k}`,
    feature: `a warmup ${k}`,
    isDefault: (v: unknown) => v === null || v === undefined,
  })),
];

/** The arrival pattern of a phase type, or undefined for closed-loop and scheduled phases. */
export function phaseArrival(type: unknown): string | undefined {
  return rateType(phaseType(type));
}

/** The top-level keys of the file (the envelope), snake_case. */
export const ENVELOPE_KEYS = [
  "schema_version",
  "benchmark",
  "random_seed",
  "variables",
  "sweep",
  "multi_run",
  "plot",
  "no_sweep_table",
];
