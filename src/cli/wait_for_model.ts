/**
 * Readiness: before a run, poll the server until it answers, so a script can start a server and
 * reprise together (`--wait-for-model-timeout`). OpenAI-style servers are ready when
 * `GET /v1/models` answers 200; for other API shapes any HTTP answer means the server is up.
 */

import { ExitCode } from "./exit_codes.ts";

/** Endpoint types whose servers list their models at `/v1/models`. */
const OPENAI_TYPES = new Set(["chat", "completions", "responses", "embeddings"]);

/** The server did not answer within the timeout; maps to exit code 4. */
export class NotReadyError extends Error {
  /** The exit code for a server that cannot be reached. */
  readonly exitCode: number = ExitCode.UNREACHABLE;
  /** Builds the message from the probed URL, the timeout and the last thing seen. */
  constructor(url: string, timeoutS: number, last: string) {
    super(`the server at ${url} was not ready within ${timeoutS} s (last: ${last})`);
    this.name = "NotReadyError";
  }
}

/** The URL probed for readiness: `<base>/v1/models` (no doubled `/v1`). */
export function modelsUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return /\/v1$/.test(base) ? `${base}/models` : `${base}/v1/models`;
}

/** How to wait. */
export interface WaitOptions {
  baseUrl: string;
  endpointType: string;
  /** Headers sent with each probe (the run's auth headers). */
  headers?: Record<string, string>;
  timeoutS: number;
  intervalS: number;
  /** Aborts the wait (Ctrl+C). */
  signal?: AbortSignal;
  /** Progress notes (stderr). */
  log?: (text: string) => void;
}

/**
 * Polls until the server is ready; resolves at once when `timeoutS` is 0. Throws
 * {@link NotReadyError} on timeout; a permission error is rethrown as it is.
 */
export async function waitForModel(opts: WaitOptions): Promise<void> {
  if (opts.timeoutS <= 0) return;
  const url = modelsUrl(opts.baseUrl);
  const needOk = OPENAI_TYPES.has(opts.endpointType);
  const deadline = performance.now() + opts.timeoutS * 1000;
  const headers = { ...opts.headers };
  delete headers["Content-Type"];
  opts.log?.(`waiting up to ${opts.timeoutS} s for ${url} to answer\n`);
  let last = "no answer yet";
  while (true) {
    if (opts.signal?.aborted) throw new NotReadyError(url, opts.timeoutS, "interrupted");
    const left = deadline - performance.now();
    if (left <= 0) break;
    try {
      const res = await fetch(url, {
        headers,
        signal: anySignal(opts.signal, AbortSignal.timeout(Math.max(1, Math.min(left, 10_000)))),
      });
      await res.body?.cancel();
      if (res.ok || !needOk) return;
      last = `HTTP ${res.status}`;
    } catch (e) {
      if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) throw e;
      last = e instanceof Error ? e.message.split("\n")[0] : String(e);
    }
    const pause = Math.min(opts.intervalS * 1000, deadline - performance.now());
    if (pause <= 0) break;
    await sleep(pause, opts.signal);
  }
  throw new NotReadyError(url, opts.timeoutS, last);
}

function anySignal(a: AbortSignal | undefined, b: AbortSignal): AbortSignal {
  return a ? AbortSignal.any([a, b]) : b;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}
