/**
 * `reprise merge`: the shards of one sharded run joined into one artifact set, as if one machine
 * had run it. The summary is recomputed from every record of every shard by the same aggregator
 * a run uses (exact percentiles over all values, throughput over the global window: the
 * earliest start to the latest end of any shard), not merged from the shards' summaries. What
 * the records files do not carry per request (the hidden per-request flags under
 * `osl_mismatch_count` and `usage_discrepancy_count`) is summed from the shards' counts.
 */

import { join } from "node:path";
import { writeArtifact } from "./artifact.ts";
import { renderConsoleTable } from "./console_table.ts";
import { aiperfInputConfig } from "./input_config.ts";
import { writeSummaryCsv } from "./summary_csv.ts";
import { newBenchmarkId, summaryJson } from "./summary_json.ts";
import { writeTimeslices } from "./timeslices.ts";
import { CLOCK_BOUND_MS, clockWarning, parseShardInfo, type ShardInfo } from "./shard_info.ts";
import { MetricsAggregator } from "../metrics/aggregator.ts";
import { METRICS, RECORD_DEFS, recordIndex, type RecordValues } from "../metrics/definitions.ts";
import { displayDivisor } from "../metrics/units.ts";
import { type GoodputSlo, parseGoodput } from "../metrics/goodput.ts";
import { TimesliceCollector } from "../metrics/timeslices.ts";
import type { RecordError, RequestRecord } from "../record/record.ts";

/** One shard's artifacts as read from its folder or its live API. */
export interface ShardArtifacts {
  /** Where they came from (a folder or a URL), for messages and the breakdown. */
  source: string;
  /** `profile_export_aiperf.json`'s text; null when the shard wrote none (it did not finish). */
  summary: string | null;
  /** `profile_export.jsonl`'s text; null when absent. */
  records: string | null;
  /** `inputs.json`'s text; null when absent. */
  inputs: string | null;
  /** `shard.json`'s text; null when absent. */
  shardInfo: string | null;
}

/** A merge input that cannot be read: the message names the source and what is wrong. */
export class MergeInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MergeInputError";
  }
}

/** One shard's line of the breakdown (`shards.json`). */
export interface ShardBreakdown {
  source: string;
  index: number | null;
  count: number | null;
  /** Successful and failed profiling requests. */
  requests: number;
  errors: number;
  /** Earliest start and latest end of its profiling requests (epoch ns), null without any. */
  firstStartNs: bigint | null;
  lastEndNs: bigint | null;
  /** Its profiling phase's time zero on its own clock (shard.json), or null. */
  profilingStartNs: bigint | null;
  clock: ShardInfo["clock"];
  wasCancelled: boolean | null;
}

/** What a merge wrote and found. */
export interface MergeOutcome {
  /** The merged `profile_export_aiperf.json` text. */
  json: string;
  /** The console table of the merged summary. */
  table: string;
  /** One line each: missing or failed shards, shards far apart in time, clocks off. */
  warnings: string[];
  shards: ShardBreakdown[];
  requests: number;
  errors: number;
}

/** A parsed line of a records file: what the aggregator reads, and the line's text. */
interface MergedLine {
  record: RequestRecord;
  values: RecordValues;
  line: string;
  /** Position of its shard among the merge's inputs. */
  shard: number;
  /** The `shard_index` the line carries, or null. */
  said: number | null;
}

/** The float just above or below `x` (x finite, not zero). */
function nextFloat(x: number, up: boolean): number {
  const f = new Float64Array([x]);
  const b = new BigInt64Array(f.buffer);
  b[0] += (x > 0) === up ? 1n : -1n;
  return f[0];
}

/**
 * The base-unit value whose display value (`v / divisor`, as a line writes it) is `shown`: the
 * whole number when it is one (times are whole ns), else the float next to `shown * divisor`
 * that divides back to it. Values come back exactly as the shard measured them.
 */
export function fromShown(shown: number, divisor: number): number {
  if (divisor === 1 || !Number.isFinite(shown) || shown === 0) return shown * divisor;
  const c = shown * divisor;
  const r = Math.round(c);
  if (r / divisor === shown) return r;
  if (c / divisor === shown) return c;
  for (const up of [true, false]) {
    let x = c;
    for (let k = 0; k < 4; k++) {
      x = nextFloat(x, up);
      if (x / divisor === shown) return x;
    }
  }
  return c;
}

const DIVISORS = RECORD_DEFS.map(displayDivisor);

/** An epoch-ns field of a line as exact digits (JSON numbers lose them). */
function nsField(line: string, key: string): bigint | null {
  const m = new RegExp(`"${key}":(-?\\d+)`).exec(line);
  return m === null ? null : BigInt(m[1]);
}

/** Parses one shard's records file; `shard` is its position among the merge's inputs. */
function parseLines(text: string, source: string, shard: number, out: MergedLine[]): void {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    let doc: {
      metadata?: Record<string, unknown>;
      metrics?: Record<string, { value?: unknown }>;
      error?: RecordError | null;
    };
    try {
      doc = JSON.parse(line);
    } catch {
      throw new MergeInputError(
        `Cannot read the records of ${source}: line ${i + 1} is not valid JSON`,
      );
    }
    const meta = doc.metadata ?? {};
    const startNs = nsField(line, "request_start_ns");
    const endNs = nsField(line, "request_end_ns");
    if (startNs === null || endNs === null) {
      throw new MergeInputError(
        `Cannot read the records of ${source}: line ${
          i + 1
        } has no request_start_ns or request_end_ns`,
      );
    }
    const values: RecordValues = new Array(RECORD_DEFS.length).fill(undefined);
    for (const [tag, m] of Object.entries(doc.metrics ?? {})) {
      const at = recordIndex(tag);
      if (at < 0) continue;
      const v = m?.value;
      if (typeof v === "number") values[at] = fromShown(v, DIVISORS[at]);
      else if (Array.isArray(v)) {
        values[at] = v.map((x) => typeof x === "number" ? fromShown(x, DIVISORS[at]) : NaN);
      }
    }
    const record = {
      phase: meta.benchmark_phase === "warmup" ? "warmup" : "profiling",
      startNs,
      endNs: Number(endNs - startNs),
      error: doc.error ?? null,
    } as RequestRecord;
    const said = typeof meta.shard_index === "number" ? meta.shard_index : null;
    out.push({ record, values, line, shard, said });
  }
}

/** `isoUtc`'s text (microseconds, UTC, no zone) back to epoch ns; null when it is not one. */
export function parseIsoUtc(text: unknown): bigint | null {
  if (typeof text !== "string") return null;
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z?$/.exec(text);
  if (m === null) return null;
  const s = Date.parse(`${m[1]}Z`);
  if (!Number.isFinite(s)) return null;
  const frac = BigInt((m[2] ?? "").padEnd(9, "0"));
  return BigInt(s) * 1_000_000n + frac;
}

/** A shard's summary read as JSON; null when it has none. */
function readSummary(s: ShardArtifacts): Record<string, unknown> | null {
  if (s.summary === null) return null;
  try {
    return JSON.parse(s.summary);
  } catch {
    throw new MergeInputError(`Cannot read the summary of ${s.source}: not valid JSON`);
  }
}

/** The hidden per-request flags (records files do not carry them) and their counts' tags. */
const HIDDEN = RECORD_DEFS.flatMap((d, i) =>
  d.flags.includes("hidden") && METRICS.some((m) => m.tag === `${d.tag}_count`)
    ? [{ index: i, count: `${d.tag}_count` }]
    : []
);

/**
 * Sets the hidden flags of a shard's lines so that their sums are the shard's counts: only the
 * sum of a hidden flag is ever read (its run-level count), and the summary cannot say which
 * requests it counted.
 */
function spreadHiddenCounts(
  lines: MergedLine[],
  blocks: Record<string, unknown> | null,
): void {
  if (blocks === null || lines.length === 0) return;
  for (const h of HIDDEN) {
    const block = blocks[h.count] as { avg?: unknown } | undefined;
    const n = typeof block?.avg === "number" ? block.avg : null;
    if (n === null) continue;
    for (let k = 0; k < lines.length; k++) lines[k].values[h.index] = k < n ? 1 : 0;
  }
}

/** The run's reprise config as the first shard recorded it, without what only a shard has. */
function oneMachineConfig(summary: Record<string, unknown> | null): Record<string, unknown> {
  const c = { ...(summary?.reprise_input_config as Record<string, unknown> | undefined ?? {}) };
  delete c.shard;
  delete c.shards;
  delete c.startAt;
  delete c.clockReference;
  delete c.startBarrier;
  return c;
}

/** Milliseconds between two epoch-ns times, for messages. */
function msBetween(a: bigint, b: bigint): number {
  return Number(b - a) / 1e6;
}

/**
 * Merges `shards` into `outDir` (created): the summary JSON and CSV, the records file (all
 * lines in start order, each with its `shard_index`), `inputs.json`, timeslices when the run had
 * them, and `shards.json` (the per-shard breakdown and the warnings).
 */
export async function mergeShards(
  shards: ShardArtifacts[],
  outDir: string,
  opts: { version: string; color?: boolean; now?: () => bigint },
): Promise<MergeOutcome> {
  if (shards.length === 0) throw new MergeInputError("merge needs at least one shard");
  const warnings: string[] = [];
  const summaries = shards.map(readSummary);
  const infos = shards.map((s) => {
    if (s.shardInfo === null) return null;
    try {
      return parseShardInfo(s.shardInfo, `${s.source}/shard.json`);
    } catch (e) {
      throw new MergeInputError((e as Error).message);
    }
  });
  const first = summaries.find((s) => s !== null) ?? null;
  const config = oneMachineConfig(first);
  let goodput: GoodputSlo[] | undefined;
  if (typeof config.goodput === "string") {
    try {
      goodput = parseGoodput(config.goodput);
    } catch {
      goodput = undefined;
    }
  }
  const profiling = new MetricsAggregator({ goodput });
  const warmup = new MetricsAggregator({ goodput });
  const sliceS = typeof config.sliceDuration === "number" ? config.sliceDuration : undefined;
  const slices = sliceS ? new TimesliceCollector(sliceS, { goodput }) : null;

  const all: MergedLine[] = [];
  const breakdown: ShardBreakdown[] = [];
  shards.forEach((s, k) => {
    const lines: MergedLine[] = [];
    if (s.records === null) {
      warnings.push(`warning: ${s.source} has no records file: none of its requests are merged`);
    } else parseLines(s.records, s.source, k, lines);
    const summary = summaries[k];
    if (summary === null) {
      warnings.push(
        `warning: ${s.source} has no summary (the shard failed or is still running): its ${lines.length} finished requests are merged`,
      );
    } else if (summary.was_cancelled === true) {
      warnings.push(`warning: ${s.source} was stopped before its end: its part is incomplete`);
    }
    const prof = lines.filter((l) => l.record.phase === "profiling");
    spreadHiddenCounts(prof, summary);
    spreadHiddenCounts(
      lines.filter((l) => l.record.phase === "warmup"),
      (summary?.warmup_metrics as Record<string, unknown> | undefined) ?? null,
    );
    const info = infos[k];
    const given = typeof summary?.reprise_input_config === "object"
      ? (summary.reprise_input_config as Record<string, unknown>).shard
      : undefined;
    const [gi, gn] = typeof given === "string" ? given.split("/").map(Number) : [null, null];
    // Without shard.json or a summary, the lines say which shard sent them.
    const said = lines.find((l) => l.said !== null)?.said ?? null;
    let firstStart: bigint | null = null;
    let lastEnd: bigint | null = null;
    let errors = 0;
    for (const l of prof) {
      const end = l.record.startNs + BigInt(l.record.endNs);
      if (firstStart === null || l.record.startNs < firstStart) firstStart = l.record.startNs;
      if (lastEnd === null || end > lastEnd) lastEnd = end;
      if (l.record.error) errors++;
    }
    breakdown.push({
      source: s.source,
      index: info?.index ?? gi ?? said,
      count: info?.count ?? gn,
      requests: prof.length,
      errors,
      firstStartNs: firstStart,
      lastEndNs: lastEnd,
      profilingStartNs: info?.profilingStartNs ?? null,
      clock: info?.clock ?? null,
      wasCancelled: summary === null ? null : summary.was_cancelled === true,
    });
    for (const l of lines) all.push(l);
  });
  warnings.push(...planWarnings(shards, summaries, breakdown));

  // In start order, as one machine's records file would roughly be, and its timeslices count.
  all.sort((a, b) =>
    a.record.startNs < b.record.startNs
      ? -1
      : a.record.startNs > b.record.startNs
      ? 1
      : a.shard - b.shard
  );
  for (const l of all) {
    if (l.record.phase === "warmup") warmup.addValues(l.record, l.values);
    else {
      profiling.addValues(l.record, l.values);
      slices?.addValues(l.record, l.values);
    }
  }

  const starts = summaries.map((s) => parseIsoUtc(s?.start_time)).filter((x) => x !== null);
  const ends = summaries.map((s) => parseIsoUtc(s?.end_time)).filter((x) => x !== null);
  const range = profiling.timeRange;
  const now = (opts.now ?? (() => BigInt(Date.now()) * 1_000_000n))();
  const startNs = starts.length ? starts.reduce((a, b) => a < b ? a : b) : range?.startNs ?? now;
  const endNs = ends.length ? ends.reduce((a, b) => a > b ? a : b) : range?.endNs ?? now;
  const runInfo = first?.run_info as Record<string, unknown> | undefined;
  const summary = profiling.summary();
  const warmedUp = warmup.requestCount + warmup.errorCount > 0;
  const json = summaryJson(summary, {
    benchmarkId: newBenchmarkId(),
    cliCommand: typeof runInfo?.cli_command === "string" ? runInfo.cli_command : null,
    randomSeed: typeof runInfo?.random_seed === "number" ? runInfo.random_seed : null,
    startNs,
    endNs,
    wasCancelled: summaries.some((s) => s === null || s.was_cancelled === true),
    inputConfig: config,
    version: opts.version,
  }, {
    errorSummary: profiling.errorSummary(),
    warmupMetrics: warmedUp ? warmup.summary() : undefined,
  });

  await Deno.mkdir(outDir, { recursive: true });
  await writeArtifact(join(outDir, "profile_export_aiperf.json"), json);
  await writeSummaryCsv(join(outDir, "profile_export_aiperf.csv"), summary);
  await writeArtifact(
    join(outDir, "profile_export.jsonl"),
    all.map((l) => l.line + "\n").join(""),
  );
  const inputs = shards.find((s) => s.inputs !== null)?.inputs;
  if (inputs) await writeArtifact(join(outDir, "inputs.json"), inputs);
  if (slices) {
    await writeTimeslices(outDir, slices.slices(), aiperfInputConfig(config));
  }
  await writeArtifact(join(outDir, "shards.json"), shardsJson(breakdown, warnings));
  return {
    json,
    table: renderConsoleTable(summary, `reprise | merged ${shards.length} shards`, {
      color: opts.color,
    }),
    warnings,
    shards: breakdown,
    requests: profiling.requestCount,
    errors: profiling.errorCount,
  };
}

/**
 * What the shards say about the plan they shared: indexes missing or twice, shards of other
 * plans (another seed, other inputs), and shards that started too far apart or whose clocks
 * were off.
 */
function planWarnings(
  shards: ShardArtifacts[],
  summaries: (Record<string, unknown> | null)[],
  breakdown: ShardBreakdown[],
): string[] {
  const out: string[] = [];
  const counts = new Set(breakdown.map((b) => b.count).filter((c) => c !== null));
  if (counts.size > 1) {
    out.push(`warning: the shards say different shard counts: ${[...counts].join(", ")}`);
  }
  const count = counts.size === 1 ? [...counts][0]! : null;
  if (count !== null) {
    const seen = new Map<number, number>();
    for (const b of breakdown) {
      if (b.index !== null) seen.set(b.index, (seen.get(b.index) ?? 0) + 1);
    }
    const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !seen.has(i));
    if (missing.length) {
      out.push(
        `warning: shard${missing.length > 1 ? "s" : ""} ${
          missing.join(", ")
        } of ${count} missing: the merge holds only part of the run`,
      );
    }
    for (const [i, n] of seen) {
      if (n > 1) {
        out.push(`warning: shard ${i} is given ${n} times: its requests are counted ${n} times`);
      }
    }
  }
  const seeds = new Set(
    summaries.map((s) => (s?.run_info as { random_seed?: unknown })?.random_seed).filter((x) =>
      x !== undefined
    ),
  );
  if (seeds.size > 1) {
    out.push(
      `warning: the shards ran with different seeds (${
        [...seeds].join(", ")
      }): they did not share one plan`,
    );
  }
  const inputs = new Set(shards.map((s) => s.inputs).filter((x) => x !== null));
  if (inputs.size > 1) {
    out.push("warning: the shards' inputs.json differ: they did not share one plan");
  }
  const zeros = breakdown.filter((b) => b.profilingStartNs !== null);
  if (zeros.length > 1) {
    const ts = zeros.map((b) => b.profilingStartNs!);
    const lo = ts.reduce((a, b) => a < b ? a : b);
    const hi = ts.reduce((a, b) => a > b ? a : b);
    const spread = msBetween(lo, hi);
    if (spread > CLOCK_BOUND_MS) {
      out.push(
        `warning: the shards started up to ${
          spread.toFixed(0)
        } ms apart (bound ${CLOCK_BOUND_MS} ms): the merged schedule is not one machine's (start them with one --start-at)`,
      );
    }
  }
  for (const b of breakdown) {
    const w = clockWarning(b.clock);
    if (w !== null) out.push(`warning: ${b.source}: ${w}`);
  }
  return out;
}

/** `shards.json`: the per-shard breakdown (epoch ns as exact strings) and the warnings. */
function shardsJson(breakdown: ShardBreakdown[], warnings: string[]): string {
  const ns = (v: bigint | null) => v === null ? null : v.toString();
  return JSON.stringify(
    {
      shards: breakdown.map((b) => ({
        source: b.source,
        shard_index: b.index,
        shard_count: b.count,
        request_count: b.requests - b.errors,
        error_request_count: b.errors,
        first_request_start_ns: ns(b.firstStartNs),
        last_response_end_ns: ns(b.lastEndNs),
        profiling_start_ns: ns(b.profilingStartNs),
        clock: b.clock === null ? null : {
          reference: b.clock.reference,
          offset_low_ms: b.clock.lowMs,
          offset_high_ms: b.clock.highMs,
        },
        was_cancelled: b.wasCancelled,
      })),
      warnings: warnings.map((w) => w.replace(/^warning: /, "")),
    },
    null,
    2,
  ) + "\n";
}
