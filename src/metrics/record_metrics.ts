/** Per-request metrics: one pass over the metric table for one finished request. */

import type { RequestRecord } from "../record/record.ts";
import {
  type MetricDef,
  METRICS,
  RECORD_DEFS,
  type RecordContext,
  recordIndex,
  type RecordMetrics,
  type RecordValues,
} from "./definitions.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";

export type { RecordContext, RecordMetrics, RecordValues } from "./definitions.ts";

/** A record metric with its applicability flags read once. */
interface RecordStep {
  tag: string;
  /** Its position in RECORD_DEFS. */
  index: number;
  record: NonNullable<MetricDef["record"]>;
}

/** The record metrics that apply to one kind of request, and the objects their values go in. */
interface StepList {
  steps: readonly RecordStep[];
  /**
   * By the set of steps that gave a value (bit i: steps[i]), an object with just their tags;
   * null when there are too many steps for the bits of a number.
   */
  shapes: Map<number, RecordMetrics> | null;
}

/** Sets of present metrics kept per kind of request; past this, results are built key by key. */
const MAX_SHAPES = 256;

/**
 * An object with `keys` in order, each `value`. Made by JSON.parse, which keeps any number of
 * keys as fast properties, whereas adding keys one by one (`m[tag] = v`) turns an object into
 * a slow dictionary past a dozen or so; copies of it (`{...o}`) keep its fast layout.
 */
function shaped<T>(keys: readonly string[], value: T): Record<string, T> {
  const o = JSON.parse(`{${keys.map((k) => `${JSON.stringify(k)}:null`).join(",")}}`);
  for (const k of keys) o[k] = value;
  return o;
}

/**
 * The record metrics that apply to each kind of request, in table order, indexed by
 * `stepsIndex`: the flags are read once here rather than on every request.
 */
const STEPS: readonly StepList[] = (() => {
  const lists: StepList[] = [];
  for (let i = 0; i < 8; i++) {
    const failed = (i & 1) !== 0;
    const streaming = (i & 2) !== 0;
    const producesTokens = (i & 4) !== 0;
    const steps = METRICS.filter((def) =>
      def.kind === "record" && def.record !== undefined &&
      failed === def.flags.includes("error_only") &&
      (streaming || !def.flags.includes("streaming_only")) &&
      (producesTokens || !def.flags.includes("produces_tokens"))
    ).map((def) => ({ tag: def.tag, index: recordIndex(def.tag), record: def.record! }));
    lists.push({ steps, shapes: steps.length <= 32 ? new Map() : null });
  }
  return lists;
})();

function stepsIndex(failed: boolean, streaming: boolean, producesTokens: boolean): number {
  return (failed ? 1 : 0) | (streaming ? 2 : 0) | (producesTokens ? 4 : 0);
}

/** The object with just the tags of the steps in `present`, or undefined when not kept. */
function shapeOf(list: StepList, present: number): RecordMetrics | undefined {
  if (list.shapes === null) return undefined;
  let shape = list.shapes.get(present);
  if (shape === undefined && list.shapes.size < MAX_SHAPES) {
    const tags = list.steps.filter((_, i) => (present & (1 << i)) !== 0).map((s) => s.tag);
    list.shapes.set(present, shape = shaped(tags, 0));
  }
  return shape;
}

/**
 * The record metrics of one request, by tag, in base units (ns, tokens). A failed request
 * gets only the error-side metrics (`error_isl`); streaming-only metrics need
 * `ctx.streaming`; token metrics need an endpoint that produces tokens. A metric that does
 * not apply to this request (TTST with one chunk, ITL with one token) is absent.
 */
export function computeRecordMetrics(rec: RequestRecord, ctx: RecordContext): RecordMetrics {
  const values = computeRecordValues(rec, ctx);
  const list = STEPS[stepsIndex(rec.error !== null, !!ctx.streaming, ctx.producesTokens !== false)];
  const steps = list.steps;
  // An object holding only the tags that got a value, in table order, made from the shape kept
  // for that set of tags: it keeps fast properties.
  let present = 0;
  for (let i = 0; i < steps.length; i++) {
    if (values[steps[i].index] !== undefined) present |= 1 << i;
  }
  const shape = shapeOf(list, present);
  const m: RecordMetrics = shape === undefined ? {} : { ...shape };
  for (let i = 0; i < steps.length; i++) {
    const v = values[steps[i].index];
    if (v !== undefined) m[steps[i].tag] = v;
  }
  return m;
}

/**
 * {@link computeRecordMetrics}, as values by position in RECORD_DEFS: what the main thread
 * aggregates and writes each request with, without an object keyed by tag.
 */
export function computeRecordValues(rec: RequestRecord, ctx: RecordContext): RecordValues {
  // Several metrics count the same answer (output tokens, the usage comparison): count it once.
  // The context the definitions get is made once and refilled: nothing is made per request but
  // the values.
  MEMO.reset(ctx.tokenizer);
  const c = CTX;
  c.inputTokens = ctx.inputTokens;
  c.streaming = ctx.streaming;
  c.producesTokens = ctx.producesTokens;
  c.preferUsage = ctx.preferUsage;
  c.requestedOutputTokens = ctx.requestedOutputTokens;
  c.checkUsage = ctx.checkUsage;
  c.promptComparable = ctx.promptComparable;
  c.media = ctx.media;
  const list = STEPS[stepsIndex(rec.error !== null, !!ctx.streaming, ctx.producesTokens !== false)];
  const steps = list.steps;
  // Definitions read the values above theirs from this array, by position.
  const values: RecordValues = new Array(RECORD_DEFS.length).fill(undefined);
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    const v = step.record(rec, values, c);
    if (v === undefined) continue;
    if (typeof v === "number" && !Number.isFinite(v)) continue;
    values[step.index] = v;
  }
  return values;
}

/** A tokenizer remembering the last two texts it counted (one record's output and reasoning). */
class MemoTokenizer implements Tokenizer {
  name = "";
  #tokenizer: Tokenizer | null = null;
  #a = "";
  #na = 0;
  #b = "";
  #nb = 0;

  /** Forgets what was counted; counts with `tokenizer` from now on. */
  reset(tokenizer: Tokenizer): void {
    this.#tokenizer = tokenizer;
    this.name = tokenizer.name;
    this.#a = this.#b = "";
  }

  count(text: string): number {
    const tokenizer = this.#tokenizer!;
    if (text === "") return tokenizer.count(text);
    if (text === this.#a) return this.#na;
    if (text === this.#b) return this.#nb;
    const n = tokenizer.count(text);
    this.#b = this.#a;
    this.#nb = this.#na;
    this.#a = text;
    this.#na = n;
    return n;
  }
}

/**
 * The fields `computeRecordValues` refills, each one of RecordContext's: a field added to the
 * interface fails to compile here until it is refilled there too.
 */
const REFILLED = {
  inputTokens: true,
  tokenizer: true,
  streaming: true,
  producesTokens: true,
  preferUsage: true,
  requestedOutputTokens: true,
  checkUsage: true,
  promptComparable: true,
  media: true,
} as const satisfies Record<keyof RecordContext, true>;
void REFILLED;

/** The memo and context `computeRecordValues` hands the definitions, refilled for each request. */
const MEMO = new MemoTokenizer();
const CTX: RecordContext = {
  inputTokens: null,
  tokenizer: MEMO,
  streaming: false,
  producesTokens: undefined,
  preferUsage: undefined,
  requestedOutputTokens: undefined,
  checkUsage: undefined,
  promptComparable: undefined,
  media: undefined,
};

/** Records with server usage whose answers are all checked against the tokenizer. */
export const USAGE_CHECK_FIRST = 100;
/** After the first ones, one record with usage in this many is checked. */
export const USAGE_CHECK_EVERY = 50;

/**
 * Whether the n-th record with server usage (from 0) is among those whose answer is tokenized
 * to check the usage when the server's counts are used: all of the first USAGE_CHECK_FIRST, so
 * a short run is checked whole, then one in USAGE_CHECK_EVERY, so a long one still is throughout.
 */
export function inUsageSample(n: number): boolean {
  return n < USAGE_CHECK_FIRST || n % USAGE_CHECK_EVERY === 0;
}
