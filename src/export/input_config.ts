/**
 * `input_config` as AIPerf writes it in `profile_export_aiperf.json` (its `BenchmarkConfig`,
 * nested snake_case: `models`, `endpoint`, `datasets`, `phases`, `artifacts`, `tokenizer`,
 * `runtime`, `logging`), built from reprise's resolved (flat, already redacted) options, so
 * that scripts reading `.input_config.endpoint.streaming` or `.input_config.phases[0]` work on
 * reprise's files. Options AIPerf's shape has no place for are in the flat form, which the
 * summary keeps under `reprise_input_config`.
 */

type Flat = Record<string, unknown>;

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** `Name: value` header strings as AIPerf's `{name: value}` map. */
function headerMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(v)) return out;
  for (const h of v) {
    if (typeof h !== "string") continue;
    const i = h.indexOf(":");
    if (i > 0) out[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return out;
}

/** `key:value` extra inputs as AIPerf's `endpoint.extra` map (JSON values parsed). */
function extraMap(v: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(v)) return out;
  for (const e of v) {
    if (typeof e !== "string") continue;
    const i = e.indexOf(":");
    if (i <= 0) continue;
    const raw = e.slice(i + 1).trim();
    try {
      out[e.slice(0, i).trim()] = JSON.parse(raw);
    } catch {
      out[e.slice(0, i).trim()] = raw;
    }
  }
  return out;
}

/** Drops keys whose value is undefined (AIPerf writes no unset fields). */
function defined<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

function dataset(c: Flat): Record<string, unknown> {
  const sampling = str(c.datasetSamplingStrategy);
  const inputFile = str(c.inputFile);
  if (inputFile) {
    return defined({
      name: "main",
      type: "file",
      path: inputFile,
      format: str(c.customDatasetType),
      sampling,
      prompts: num(c.osl) === undefined ? undefined : {
        osl: { mean: num(c.osl), stddev: num(c.oslStddev) ?? 0 },
      },
    });
  }
  const publicDataset = str(c.publicDataset);
  if (publicDataset) {
    // A public dataset read from its local copy (dataset/public.ts).
    return defined({ name: "main", type: "public", public_dataset: publicDataset, sampling });
  }
  return defined({
    name: "main",
    type: "synthetic",
    entries: num(c.numDatasetEntries) ?? num(c.numConversations),
    sampling,
    prompts: defined({
      isl: defined({ mean: num(c.isl), stddev: num(c.islStddev) ?? 0 }),
      osl: num(c.osl) === undefined ? undefined : {
        mean: num(c.osl),
        stddev: num(c.oslStddev) ?? 0,
      },
      batch_size: 1,
    }),
  });
}

function phases(c: Flat): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const rate = num(c.requestRate);
  const warmupRequests = num(c.warmupRequestCount);
  const warmupDuration = num(c.warmupDuration);
  if ((warmupRequests ?? 0) > 0 || (warmupDuration ?? 0) > 0) {
    const warmupRate = num(c.warmupRequestRate) ?? rate;
    out.push(defined({
      name: "warmup",
      type: warmupRate === undefined ? "concurrency" : str(c.arrivalPattern) ?? "poisson",
      exclude_from_results: true,
      requests: warmupRequests || undefined,
      duration: warmupDuration || undefined,
      concurrency: num(c.warmupConcurrency) ?? num(c.concurrency),
      rate: warmupRate,
      seamless: false,
    }));
  }
  const fixed = c.fixedSchedule === true;
  out.push(defined({
    name: "profiling",
    type: fixed ? "fixed_schedule" : rate === undefined ? "concurrency" : str(c.arrivalPattern),
    exclude_from_results: false,
    requests: num(c.requestCount),
    duration: num(c.benchmarkDuration),
    grace_period: num(c.benchmarkDuration) === undefined ? undefined : num(c.benchmarkGracePeriod),
    concurrency: num(c.concurrency),
    rate: fixed ? undefined : rate,
    smoothness: rate !== undefined && c.arrivalPattern === "gamma"
      ? num(c.arrivalSmoothness)
      : undefined,
    rate_ramp: num(c.requestRateRampDuration) || undefined,
    concurrency_ramp: num(c.concurrencyRampDuration) || undefined,
    seamless: false,
  }));
  return out;
}

/** AIPerf's nested `input_config` from reprise's resolved flat options. */
export function aiperfInputConfig(c: Flat): Record<string, unknown> {
  const url = str(c.url);
  return defined({
    models: { strategy: "round_robin", items: [{ name: str(c.model) ?? "" }] },
    endpoint: defined({
      urls: url ? [url] : [],
      url_strategy: "round_robin",
      type: str(c.endpointType),
      path: str(c.endpoint),
      timeout: num(c.requestTimeoutSeconds),
      streaming: c.streaming === true,
      use_legacy_max_tokens: c.useLegacyMaxTokens === true,
      use_server_token_count: c.useServerTokenCount === true,
      headers: headerMap(c.header),
      extra: extraMap(c.extraInputs),
    }),
    datasets: [dataset(c)],
    phases: phases(c),
    artifacts: {
      dir: str(c.artifactDir) ?? "artifacts",
      prefix: "aiperf",
      summary: ["json", "csv"],
      records: ["jsonl"],
    },
    tokenizer: { name: str(c.tokenizer) ?? "builtin" },
    runtime: defined({
      ui: str(c.ui),
      workers: num(c.workersMax),
      api_port: num(c.apiPort),
      api_host: num(c.apiPort) === undefined ? undefined : str(c.apiHost),
    }),
    logging: { level: c.verbose === true ? "DEBUG" : c.quiet === true ? "ERROR" : "INFO" },
  });
}
