/**
 * A run's results as they accumulate: each record is measured, appended to
 * `profile_export.jsonl` and aggregated the moment it arrives; `finish` writes the summary files.
 * It lives in export/ because it does both things export/ is for, writing the artifacts from
 * metrics: it feeds metrics/ (layer 5) and drives the writers next to it, so export/ (layer 7) is
 * the lowest layer that may import both; the load (layer 6) never sees it, and the command only
 * hands it records. A failed artifact write (a full disk) never throws out of `add`: it is kept
 * (`writeFailure`), told to the run (`onWriteFailure`) so that it stops issuing, and reported
 * with the summary, which is still written if it fits.
 */

import { join } from "node:path";
import type { Endpoint } from "../endpoints/types.ts";
import { ArtifactError, writeArtifact, writeFailure } from "../export/artifact.ts";
import { renderConsoleTable } from "../export/console_table.ts";
import { aiperfInputConfig } from "../export/input_config.ts";
import { writeInputsJson } from "../export/inputs_json.ts";
import { bodyText } from "../util/body_store.ts";
import { EntryBodies } from "./entry_body.ts";
import { MediaInputs } from "../export/media_inputs.ts";
import { RecordWriter } from "../export/record_writer.ts";
import { writeSummaryCsv } from "../export/summary_csv.ts";
import { type RunInfo, summaryJson } from "../export/summary_json.ts";
import type { PlannedConversation } from "../plan/types.ts";
import type { RequestRecord } from "../record/record.ts";
import { MetricsAggregator } from "../metrics/aggregator.ts";
import { computeRecordValues, inUsageSample } from "../metrics/record_metrics.ts";
import type { RecordValues } from "../metrics/definitions.ts";
import { builtinTokenizer, type Tokenizer } from "../tokenizer/tokenizer.ts";
import { countInput } from "../tokenizer/chat_template.ts";
import type { GoodputSlo } from "../metrics/goodput.ts";
import { requestedOutputTokens } from "../metrics/requested_osl.ts";
import { TimesliceCollector } from "../metrics/timeslices.ts";
import type { MetricResult, Summary } from "../metrics/summary.ts";
import { missingUsageWarnings, runWarnings, samplingWarnings } from "../metrics/warnings.ts";
import { scheduleLagWarnings } from "../metrics/lag_warning.ts";
import { writeTimeslices } from "../export/timeslices.ts";
import {
  exportNames,
  LineFile,
  outputEntry,
  rawLine,
  writeOutputsJson,
} from "../export/raw_export.ts";

/** What `finish` reports back to the command. */
export interface RunOutcome {
  /** The console table. */
  table: string;
  /** The text of `profile_export_aiperf.json`. */
  json: string;
  completed: number;
  errors: number;
  errorTypes: Set<string>;
  /** End-of-run warnings (OSL mismatch, usage vs tokenizer), one line each, for stderr. */
  warnings: string[];
  /** The first artifact write that failed (records or summary), or null. */
  writeFailure: ArtifactError | null;
  /** Whether the summary files (JSON, CSV, timeslices) were written. */
  summaryWritten: boolean;
}

/** The parts of {@link RunInfo} known before the run starts. */
export type RunIdentity = Omit<RunInfo, "startNs" | "endNs" | "wasCancelled">;

/** Accumulates one run's records into metrics and artifacts. */
export class Results {
  readonly aggregator: MetricsAggregator;
  /** The warmup phase's metrics: kept apart, exported as `warmup_metrics`. */
  readonly warmup: MetricsAggregator;
  /** `profile_export.jsonl`'s writer; null at `--export-level summary`. */
  #writer: RecordWriter | null;
  /** `<prefix>_raw.jsonl`, at `--export-level raw`. */
  #raw: LineFile | null = null;
  /** The entries of `outputs.json`, when asked for. */
  #outputs: Record<string, unknown>[] | null;
  #names: ReturnType<typeof exportNames>;
  #tokenizer: Tokenizer;
  #inputTokens: (number | null)[][];
  #requested: (number | null)[][];
  #media: MediaInputs;
  #entries: EntryBodies;
  /** Turns whose chat input was counted without the chat template, by conversation. */
  #bare: Set<number>[] = [];
  #slices: TimesliceCollector | null;
  #opts: ResultsOptions;
  #errorTypes = new Set<string>();
  #usageRecords = 0;
  /** Successful profiling answers without usage, under --use-server-token-count. */
  #missingUsage = 0;
  #writeFailure: ArtifactError | null = null;
  #onWriteFailure: ((e: ArtifactError) => void) | null = null;

  private constructor(opts: ResultsOptions, writer: RecordWriter | null) {
    this.#opts = opts;
    this.#writer = writer;
    this.#names = exportNames(opts.exportPrefix);
    this.#outputs = opts.outputsJson || opts.exportLevel === "raw" ? [] : null;
    this.#tokenizer = opts.tokenizer ?? builtinTokenizer();
    this.aggregator = new MetricsAggregator({ goodput: opts.goodput });
    this.warmup = new MetricsAggregator({ goodput: opts.goodput });
    this.#slices = opts.sliceDurationS
      ? new TimesliceCollector(opts.sliceDurationS, { goodput: opts.goodput })
      : null;
    this.#inputTokens = opts.conversations.map((c) => new Array(c.bodies.length).fill(undefined));
    this.#requested = opts.conversations.map((c) => new Array(c.bodies.length).fill(undefined));
    this.#entries = new EntryBodies(opts.conversations);
    this.#media = new MediaInputs(this.#entries);
  }

  /** The output tokens a turn's body asks for, read once per dataset entry. */
  #requestedOsl(conv: number, turn: number): number | null {
    const cached = this.#requested[conv]?.[turn];
    if (cached !== undefined) return cached;
    let n: number | null = null;
    try {
      n = requestedOutputTokens(this.#entries.json(conv, turn));
    } catch {
      n = null;
    }
    if (this.#requested[conv]) this.#requested[conv][turn] = n;
    return n;
  }

  /**
   * Creates the run directory, writes `inputs.json`, and opens `profile_export.jsonl` (unless
   * the export level is `summary`) and the raw export (when it is `raw`).
   */
  static async open(opts: ResultsOptions): Promise<Results> {
    await Deno.mkdir(opts.runDir, { recursive: true }).catch((e) => {
      throw writeFailure(opts.runDir, e);
    });
    await writeInputsJson(
      join(opts.runDir, "inputs.json"),
      opts.conversations.map((c) => ({ sessionId: c.sessionId, payloads: c.bodies })),
    );
    // A failed write arrives here once lines are written: `results` exists by then.
    const names = exportNames(opts.exportPrefix);
    const writer = opts.exportLevel === "summary"
      ? null
      : await RecordWriter.open(join(opts.runDir, names.records), {
        onError: (e) => results.#failed(e),
      });
    const results = new Results(opts, writer);
    if (opts.exportLevel === "raw") results.#raw = LineFile.open(join(opts.runDir, names.raw));
    return results;
  }

  /** The first artifact write that failed, or null; no record line is written after one. */
  get writeFailure(): ArtifactError | null {
    return this.#writeFailure;
  }

  /** Tells `listener` of the first failed artifact write (at once if one has failed already). */
  onWriteFailure(listener: (e: ArtifactError) => void): void {
    this.#onWriteFailure = listener;
    if (this.#writeFailure !== null) listener(this.#writeFailure);
  }

  /** Keeps the first failed write and tells the listener; anything but a failed write is a bug. */
  #failed(e: unknown): void {
    if (!(e instanceof ArtifactError)) throw e;
    if (this.#writeFailure !== null) return;
    this.#writeFailure = e;
    this.#onWriteFailure?.(e);
  }

  /** Appends a record's line, unless a write has failed: the file keeps its whole lines. */
  #write(record: RequestRecord, values: RecordValues): void {
    if (this.#writeFailure !== null) return;
    try {
      this.#writer?.writeValues(record, values);
      if (this.#raw) {
        const body = this.#opts.conversations[record.conversationIndex]?.bodies[record.turnIndex];
        this.#raw.add(
          rawLine(record, body === undefined ? body : bodyText(body), this.#opts.secrets ?? []),
        );
      }
    } catch (e) {
      this.#failed(e);
    }
    this.#outputs?.push(outputEntry(record));
  }

  /** Input tokens of a turn, counted once per dataset entry, off the Workers' request path. */
  #isl(conv: number, turn: number): number | null {
    const cached = this.#inputTokens[conv]?.[turn];
    if (cached !== undefined) return cached;
    let n: number | null = null;
    try {
      const body = this.#entries.json(conv, turn) as { messages?: unknown } | null;
      n = countInput(this.#tokenizer, body);
      // A chat body counted without its template is not compared with the server's count.
      if (!this.#tokenizer.countChat && Array.isArray(body?.messages)) {
        (this.#bare[conv] ??= new Set()).add(turn);
      }
    } catch {
      n = null;
    }
    this.#inputTokens[conv][turn] = n;
    return n;
  }

  /**
   * Whether this record's answer is tokenized to compare with the server's usage. Without
   * --use-server-token-count the tokenizer decides the output counts, so the answer is tokenized
   * anyway and every record is checked at no extra cost. With it, tokenizing every answer only
   * for the comparison was about half the main thread's time at high rates: a sample is checked
   * instead (`inUsageSample`).
   */
  #checkUsage(record: RequestRecord): boolean {
    if (this.#opts.preferUsage === false || record.usage == null) return true;
    return inUsageSample(this.#usageRecords++);
  }

  #measured: ((record: RequestRecord, values: RecordValues) => void) | null = null;

  /**
   * Hands every measured request (warmup's too) and its values to `fn`, as they are measured:
   * for what reads the run as it goes (the OpenTelemetry push). No cost when none is set.
   */
  onMeasured(fn: (record: RequestRecord, values: RecordValues) => void): void {
    this.#measured = fn;
  }

  /** Measures, records and aggregates one finished request. */
  add(record: RequestRecord): void {
    const values = computeRecordValues(record, {
      inputTokens: this.#isl(record.conversationIndex, record.turnIndex),
      tokenizer: this.#tokenizer,
      // A replayed body may ask to stream on its own; its answer then has streaming metrics too.
      streaming: this.#opts.streaming || record.responseNs.length > 1,
      producesTokens: this.#opts.endpoint.producesTokens !== false,
      preferUsage: this.#opts.preferUsage,
      requestedOutputTokens: this.#requestedOsl(record.conversationIndex, record.turnIndex),
      checkUsage: this.#checkUsage(record),
      promptComparable: !this.#bare[record.conversationIndex]?.has(record.turnIndex),
      media: this.#media.of(record.conversationIndex, record.turnIndex),
    });
    this.#measured?.(record, values);
    if (record.phase === "warmup") {
      // Warmup lines stay in the records file (benchmark_phase says which), out of the results.
      this.warmup.addValues(record, values);
      this.#write(record, values);
      return;
    }
    if (record.error) this.#errorTypes.add(record.error.type);
    else if (this.#opts.preferUsage && record.usage == null) this.#missingUsage++;
    this.aggregator.addValues(record, values);
    this.#slices?.addValues(record, values);
    this.#write(record, values);
  }

  /**
   * Closes the records file and writes the summary JSON and CSV, of every record added (also
   * those whose line a failed write kept out of the records file). A summary that does not fit
   * on the disk is left out (`summaryWritten` false), not thrown.
   */
  async finish(
    run: { startNs: bigint; endNs: bigint; wasCancelled: boolean },
    opts: {
      color?: boolean;
      /** What the summary gains from outside the records (GPU energy, `telemetry_data`). */
      extras?: (summary: Summary) => { metrics: MetricResult[]; sections: Record<string, unknown> };
    } = {},
  ): Promise<RunOutcome> {
    try {
      this.#writer?.close();
    } catch (e) {
      this.#failed(e);
    }
    try {
      this.#raw?.close();
    } catch (e) {
      this.#failed(e);
    }
    const summary = this.aggregator.summary();
    const extras = opts.extras?.(summary);
    if (extras) summary.metrics.push(...extras.metrics);
    const info: RunInfo = { ...this.#opts.run, ...run };
    const warmedUp = this.warmup.requestCount + this.warmup.errorCount > 0;
    const json = summaryJson(summary, info, {
      errorSummary: this.aggregator.errorSummary(),
      warmupMetrics: warmedUp ? this.warmup.summary() : undefined,
      sections: extras?.sections,
    });
    let summaryWritten = true;
    try {
      await writeArtifact(join(this.#opts.runDir, this.#names.json), json);
      await writeSummaryCsv(join(this.#opts.runDir, this.#names.csv), summary);
      if (this.#slices) {
        await writeTimeslices(
          this.#opts.runDir,
          this.#slices.slices(),
          aiperfInputConfig(this.#opts.run.inputConfig),
          this.#names.timeslices,
        );
      }
      if (this.#outputs) {
        await writeOutputsJson(
          join(this.#opts.runDir, "outputs.json"),
          this.#outputs,
          this.#opts.secrets ?? [],
        );
      }
    } catch (e) {
      this.#failed(e);
      summaryWritten = false;
    }
    const title = `reprise | ${this.#opts.endpoint.metricsTitle}`;
    const errors = this.aggregator.errorCount;
    return {
      json,
      table: renderConsoleTable(summary, title, { color: opts.color }),
      completed: this.aggregator.requestCount + errors,
      errors,
      errorTypes: this.#errorTypes,
      writeFailure: this.#writeFailure,
      summaryWritten,
      warnings: [
        ...runWarnings(summary, this.#tokenizer),
        ...missingUsageWarnings(this.#missingUsage, this.aggregator.requestCount),
        ...samplingWarnings(this.warmup.sampledMetrics(), "warmup"),
        ...samplingWarnings(this.aggregator.sampledMetrics()),
        ...scheduleLagWarnings(summary),
      ],
    };
  }
}

/** How to set up a run's results. */
export interface ResultsOptions {
  runDir: string;
  conversations: PlannedConversation[];
  streaming: boolean;
  endpoint: Endpoint;
  run: RunIdentity;
  /** `--use-server-token-count`: token counts from the server's `usage` when present. Default true. */
  preferUsage?: boolean;
  /** Counts tokens; default the built-in o200k. */
  tokenizer?: Tokenizer;
  /** `--goodput` SLOs. */
  goodput?: GoodputSlo[];
  /** `--slice-duration` in seconds: also export per-window metrics. */
  sliceDurationS?: number;
  /** `--profile-export-prefix`: every export named after it (`exportNames`). */
  exportPrefix?: string;
  /** `--export-level`: summary (no records file), records (the default), raw (also raw lines). */
  exportLevel?: "summary" | "records" | "raw";
  /** `--export-outputs-json`: also write each answer's text to `outputs.json`. */
  outputsJson?: boolean;
  /** The target's secrets, redacted from the raw export and `outputs.json`. */
  secrets?: string[];
}
