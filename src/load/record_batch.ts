/**
 * Records packed for the trip from a Worker to the main thread. Structured cloning an array of
 * record objects writes and reads every property name and makes one buffer per record's
 * response times; packed, the numbers of all the batch's records share one Float64Array and
 * their epoch times one BigInt64Array, both transferred (moved, not copied), and the strings go
 * in one array. The rare parts (errors, reasoning flags, media answers) travel aside as they are.
 */

import type { MediaAnswer, Phase, RecordError, RequestRecord, Usage } from "../record/record.ts";

/**
 * Records per message from a Worker to the main thread (or fewer, when a batch's time is up: see
 * worker.ts). Each message wakes the main thread: at 512 streams of 16-token answers, batches of
 * 128 cost 2.4-4 us less CPU per request than batches of 32 (three alternating pairs of runs); 512
 * saved nothing more.
 */
export const BATCH_SIZE = 128;

/** Every `Usage` field, in the order they are packed (the compiler checks none is missing). */
const USAGE_FIELDS = Object.keys(
  {
    promptTokens: true,
    completionTokens: true,
    totalTokens: true,
    reasoningTokens: true,
    promptCacheReadTokens: true,
    promptCacheWriteTokens: true,
    promptCacheMissTokens: true,
    promptAudioTokens: true,
    completionAudioTokens: true,
    promptAudioSeconds: true,
  } satisfies Record<keyof Usage, true>,
) as (keyof Usage)[];

/** Where each number of a record sits, from the record's first number. */
const enum At {
  PHASE,
  WORKER,
  SESSION,
  CONVERSATION,
  TURN,
  ACK,
  END,
  STATUS,
  CANCELLED,
  HAS_INTENDED,
  HAS_USAGE,
  URL,
  USAGE,
}
/** Numbers before a record's response times: the fields above, the usage, then the count. */
const FIXED = At.USAGE + USAGE_FIELDS.length + 1;
/** Strings per record: conversation id, request id, correlation id, output, reasoning. */
const STRINGS = 5;
/** Epoch times per record: start, intended start. */
const EPOCHS = 2;

/** Numbers a new batch has room for before it grows. */
const MIN_CAPACITY = 1024;

/** A batch as it crosses threads; `nums` and `epochs` are to be transferred with it. */
export interface RecordBatch {
  count: number;
  nums: Float64Array;
  epochs: BigInt64Array;
  strs: string[];
  /** Records of the media endpoints with what their answers said, by their index in the batch. */
  media?: [number, MediaAnswer][];
  /** Records that failed, by their index in the batch. */
  errors: [number, RecordError][];
  /** Records with reasoning-only responses, by their index in the batch. */
  reasoning: [number, Uint8Array | boolean[]][];
  /**
   * Records with a connection trace (`--export-http-trace`), by their index in the batch: the ns
   * spent connecting and 1 when the connection was reused (0 otherwise).
   */
  traces?: [number, number, number][];
}

/** Collects a Worker's finished records into batches. */
export class RecordPacker {
  #nums: Float64Array;
  #used = 0;
  #epochs: BigInt64Array;
  #count = 0;
  #strs: string[] = [];
  #media: [number, MediaAnswer][] = [];
  #errors: [number, RecordError][] = [];
  #reasoning: [number, Uint8Array | boolean[]][] = [];
  #traces: [number, number, number][] = [];

  /** @param capacity numbers held before the buffer first grows. */
  constructor(capacity = MIN_CAPACITY) {
    this.#nums = new Float64Array(capacity);
    this.#epochs = new BigInt64Array(64);
  }

  /** Records packed since the last `take`. */
  get count(): number {
    return this.#count;
  }

  add(rec: RequestRecord): void {
    const times = rec.responseNs;
    const need = this.#used + FIXED + times.length;
    if (need > this.#nums.length) {
      const grown = new Float64Array(Math.max(need, this.#nums.length * 2));
      grown.set(this.#nums.subarray(0, this.#used));
      this.#nums = grown;
    }
    if ((this.#count + 1) * EPOCHS > this.#epochs.length) {
      const grown = new BigInt64Array(this.#epochs.length * 2);
      grown.set(this.#epochs);
      this.#epochs = grown;
    }
    const n = this.#nums;
    const o = this.#used;
    n[o + At.PHASE] = rec.phase === "warmup" ? 0 : 1;
    n[o + At.WORKER] = rec.workerId;
    n[o + At.SESSION] = rec.sessionNum;
    n[o + At.CONVERSATION] = rec.conversationIndex;
    n[o + At.TURN] = rec.turnIndex;
    n[o + At.ACK] = rec.ackNs ?? NaN;
    n[o + At.END] = rec.endNs;
    n[o + At.STATUS] = rec.httpStatus ?? NaN;
    n[o + At.CANCELLED] = rec.cancelled ? 1 : 0;
    n[o + At.HAS_INTENDED] = rec.intendedStartNs === null ? 0 : 1;
    const usage = rec.usage;
    n[o + At.HAS_USAGE] = usage === null ? 0 : 1;
    n[o + At.URL] = rec.urlIndex ?? -1;
    for (let k = 0; k < USAGE_FIELDS.length; k++) {
      n[o + At.USAGE + k] = usage?.[USAGE_FIELDS[k]] ?? NaN;
    }
    n[o + FIXED - 1] = times.length;
    for (let i = 0; i < times.length; i++) n[o + FIXED + i] = times[i];
    this.#used = o + FIXED + times.length;

    const e = this.#count * EPOCHS;
    this.#epochs[e] = rec.startNs;
    this.#epochs[e + 1] = rec.intendedStartNs ?? 0n;
    this.#strs.push(
      rec.conversationId,
      rec.requestId,
      rec.correlationId,
      rec.outputText,
      rec.reasoningText,
    );
    if (rec.media !== undefined) this.#media.push([this.#count, rec.media]);
    if (rec.error !== null) this.#errors.push([this.#count, rec.error]);
    if (rec.responseReasoning !== null) this.#reasoning.push([this.#count, rec.responseReasoning]);
    if (rec.connectNs !== undefined) {
      this.#traces.push([this.#count, rec.connectNs, rec.connectionReused ? 1 : 0]);
    }
    this.#count++;
  }

  /** The records packed so far, as one batch; the packer starts a new one. */
  take(): RecordBatch {
    const batch: RecordBatch = {
      count: this.#count,
      nums: this.#nums.subarray(0, this.#used),
      epochs: this.#epochs.subarray(0, this.#count * EPOCHS),
      strs: this.#strs,
      errors: this.#errors,
      reasoning: this.#reasoning,
    };
    // The rare parts go only when a record had one.
    if (this.#media.length > 0) {
      batch.media = this.#media;
      this.#media = [];
    }
    if (this.#traces.length > 0) {
      batch.traces = this.#traces;
      this.#traces = [];
    }
    // The buffers leave with the batch: fresh ones for the next, sized by this one.
    this.#nums = new Float64Array(Math.max(MIN_CAPACITY, this.#used + (this.#used >> 2)));
    this.#epochs = new BigInt64Array(this.#epochs.length);
    this.#used = 0;
    this.#count = 0;
    this.#strs = [];
    this.#errors = [];
    this.#reasoning = [];
    return batch;
  }
}

/** The batch's buffers, to transfer with the message that carries it. */
export function batchTransfer(batch: RecordBatch): ArrayBuffer[] {
  return [batch.nums.buffer as ArrayBuffer, batch.epochs.buffer as ArrayBuffer];
}

/**
 * The records of a batch. Each record's response times are a view into the batch's numbers:
 * nothing is copied.
 */
export function unpackRecords(batch: RecordBatch): RequestRecord[] {
  const { nums: n, epochs, strs } = batch;
  const records = new Array<RequestRecord>(batch.count);
  let o = 0;
  for (let i = 0; i < batch.count; i++) {
    let usage: Usage | null = null;
    if (n[o + At.HAS_USAGE] === 1) {
      usage = {};
      for (let k = 0; k < USAGE_FIELDS.length; k++) {
        const v = n[o + At.USAGE + k];
        if (!Number.isNaN(v)) usage[USAGE_FIELDS[k]] = v;
      }
    }
    const times = n[o + FIXED - 1];
    const ack = n[o + At.ACK];
    const status = n[o + At.STATUS];
    const s = i * STRINGS;
    records[i] = {
      phase: (n[o + At.PHASE] === 0 ? "warmup" : "profiling") as Phase,
      workerId: n[o + At.WORKER],
      sessionNum: n[o + At.SESSION],
      conversationIndex: n[o + At.CONVERSATION],
      conversationId: strs[s],
      turnIndex: n[o + At.TURN],
      requestId: strs[s + 1],
      correlationId: strs[s + 2],
      intendedStartNs: n[o + At.HAS_INTENDED] === 1 ? epochs[i * EPOCHS + 1] : null,
      startNs: epochs[i * EPOCHS],
      ackNs: Number.isNaN(ack) ? null : ack,
      endNs: n[o + At.END],
      responseNs: n.subarray(o + FIXED, o + FIXED + times),
      responseReasoning: null,
      outputText: strs[s + 3],
      reasoningText: strs[s + 4],
      usage,
      httpStatus: Number.isNaN(status) ? null : status,
      error: null,
      cancelled: n[o + At.CANCELLED] === 1,
    };
    const url = n[o + At.URL];
    if (url >= 0) records[i].urlIndex = url;
    o += FIXED + times;
  }
  if (batch.media !== undefined) { for (const [i, media] of batch.media) records[i].media = media; }
  for (const [i, error] of batch.errors) records[i].error = error;
  for (const [i, flags] of batch.reasoning) records[i].responseReasoning = flags;
  if (batch.traces !== undefined) {
    for (const [i, connectNs, reused] of batch.traces) {
      records[i].connectNs = connectNs;
      records[i].connectionReused = reused === 1;
    }
  }
  return records;
}
