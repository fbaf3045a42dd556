/**
 * The exports that hold what was said, written only when asked for: `<prefix>_raw.jsonl`
 * (`--export-level raw`: each request's body and the answer as read, secrets redacted) and
 * `outputs.json` (`--export-outputs-json`: each answer's text). Both read the text every record
 * carries anyway (its output tokens are counted from it): asking for them adds no work per
 * streamed event, only a line per finished request on the main thread.
 */

import { redactText } from "../config/redact.ts";
import type { RequestRecord } from "../record/record.ts";
import { writeArtifact, writeFailure } from "./artifact.ts";

/** A record's metadata, with AIPerf's field names (as in `profile_export.jsonl`). */
function metadata(r: RequestRecord): Record<string, unknown> {
  const at = (ns: number | null) =>
    ns === null ? null : (r.startNs + BigInt(Math.round(ns))).toString();
  return {
    session_num: r.sessionNum,
    x_request_id: r.requestId,
    x_correlation_id: r.correlationId,
    conversation_id: r.conversationId,
    turn_index: r.turnIndex,
    request_start_ns: r.startNs.toString(),
    request_ack_ns: at(r.ackNs),
    request_end_ns: at(r.endNs),
    worker_id: r.workerId,
    benchmark_phase: r.phase,
    was_cancelled: r.cancelled,
  };
}

/** The error of a record as AIPerf writes it, or null. */
function errorOf(r: RequestRecord): Record<string, unknown> | null {
  return r.error ? { code: r.error.code, type: r.error.type, message: r.error.message } : null;
}

/** The JSON of a request body, or the text itself when it is not JSON. */
function parsedBody(body: string | undefined): unknown {
  if (body === undefined) return null;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/**
 * One line of `<prefix>_raw.jsonl`: the record's metadata, the request body sent (`payload`),
 * the HTTP status, when each answer chunk carrying content arrived (`response_ns`, after the
 * start), the answer as read (text, reasoning, usage) and the error. Secrets are redacted.
 */
export function rawLine(r: RequestRecord, body: string | undefined, secrets: string[]): string {
  const line = JSON.stringify({
    metadata: metadata(r),
    payload: parsedBody(body),
    status: r.httpStatus,
    response_ns: Array.from(r.responseNs),
    response: {
      text: r.outputText,
      ...(r.reasoningText ? { reasoning_text: r.reasoningText } : {}),
      usage: r.usage,
    },
    error: errorOf(r),
  });
  return secrets.length ? redactText(line, secrets) : line;
}

/** One entry of `outputs.json`: which request, its answer text, and a few of its numbers. */
export function outputEntry(r: RequestRecord): Record<string, unknown> {
  return {
    session_num: r.sessionNum,
    x_request_id: r.requestId,
    conversation_id: r.conversationId,
    turn_index: r.turnIndex,
    benchmark_phase: r.phase,
    output_text: r.outputText,
    ...(r.reasoningText ? { reasoning_text: r.reasoningText } : {}),
    metrics: {
      request_latency: { value: r.endNs / 1e6, unit: "ms" },
      ...(r.responseNs.length > 0
        ? { time_to_first_token: { value: r.responseNs[0] / 1e6, unit: "ms" } }
        : {}),
    },
    error: errorOf(r),
  };
}

/** Appends lines to a file, in chunks; a failed write becomes an `ArtifactError`. */
export class LineFile {
  #file: Deno.FsFile;
  #chunks: string[] = [];
  #size = 0;
  readonly #encoder = new TextEncoder();

  private constructor(readonly path: string, file: Deno.FsFile) {
    this.#file = file;
  }

  /** Creates (or empties) the file. */
  static open(path: string): LineFile {
    try {
      return new LineFile(path, Deno.openSync(path, { write: true, create: true, truncate: true }));
    } catch (e) {
      throw writeFailure(path, e);
    }
  }

  /** Adds a line; writes once 64 KiB have gathered. */
  add(line: string): void {
    this.#chunks.push(line, "\n");
    this.#size += line.length + 1;
    if (this.#size >= 65536) this.flush();
  }

  /** Writes what has gathered. */
  flush(): void {
    if (this.#chunks.length === 0) return;
    const bytes = this.#encoder.encode(this.#chunks.join(""));
    this.#chunks = [];
    this.#size = 0;
    try {
      let n = 0;
      while (n < bytes.length) n += this.#file.writeSync(bytes.subarray(n));
    } catch (e) {
      throw writeFailure(this.path, e);
    }
  }

  /** Writes the rest and closes the file. */
  close(): void {
    try {
      this.flush();
    } finally {
      this.#file.close();
    }
  }
}

/** Writes `outputs.json`: `{"outputs": [entry, …]}` in the order the requests finished. */
export async function writeOutputsJson(
  path: string,
  entries: Record<string, unknown>[],
  secrets: string[],
): Promise<void> {
  const text = JSON.stringify({ outputs: entries }, null, 2) + "\n";
  await writeArtifact(path, secrets.length ? redactText(text, secrets) : text);
}

/**
 * The export file names of a run: AIPerf's defaults, or every one named after
 * `--profile-export-prefix` (`foo.json`, `foo.csv`, `foo.jsonl`, `foo_raw.jsonl`), an extension
 * given with the prefix dropped.
 */
export function exportNames(prefix?: string): {
  json: string;
  csv: string;
  records: string;
  raw: string;
  timeslices: string;
} {
  if (prefix === undefined) {
    return {
      json: "profile_export_aiperf.json",
      csv: "profile_export_aiperf.csv",
      records: "profile_export.jsonl",
      raw: "profile_export_raw.jsonl",
      timeslices: "profile_export_aiperf_timeslices",
    };
  }
  const p = prefix.replace(/\.(jsonl|json|csv)$/i, "");
  return {
    json: `${p}.json`,
    csv: `${p}.csv`,
    records: `${p}.jsonl`,
    raw: `${p}_raw.jsonl`,
    timeslices: `${p}_timeslices`,
  };
}
