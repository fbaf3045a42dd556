/**
 * The mock server's options: the TypeScript shape `startMockServer` takes. Their defaults, ranges
 * and help are declared once, in the config's `mockServerOptions` table.
 */

import { mockServerOptions } from "../config/options.ts";
import { ConfigError } from "../config/parse.ts";
import { faultShares, isWireFault } from "./faults.ts";

/** How the mock server answers. Every field is optional; defaults are in `mockServerOptions`. */
export interface MockOptions {
  /** Interface to bind; default "127.0.0.1". */
  host?: string;
  /** TCP port; 0 (the default of `startMockServer`) picks any free port. */
  port?: number;
  /**
   * HTTP server: "deno" (`Deno.serve`, the default) or "direct" (the mock's own HTTP/1.1 server,
   * `wire.ts`, which writes each chunk to the socket as it is made: exact send times, one write per
   * chunk).
   */
  http?: "deno" | "direct";
  /** Time to first token in milliseconds; default 0. */
  ttftMs?: number;
  /** Time between tokens in milliseconds; default 0. */
  itlMs?: number;
  /** Answer length in tokens when the request sets no maximum; default 16. */
  outputTokens?: number;
  /** Uniform ± jitter in milliseconds added to every delay; default 0. */
  jitterMs?: number;
  /** Share of requests answered with HTTP 500 and a JSON error body (0..1). */
  errorRate?: number;
  /** Share of requests whose connection closes before any body byte (0..1). */
  dropRate?: number;
  /** Share of streaming answers that stop half-way without their final event (0..1). */
  truncateRate?: number;
  /**
   * Faults to inject, `KIND[=P]` each (P: share of requests, default 1); see `faults.ts`. A wire
   * fault makes the mock's own HTTP server the default.
   */
  fault?: string[];
  /** Longest stall of a `stall` fault before the connection closes (ms); default 30000. */
  faultStallMs?: number;
  /** Padding bytes of a `large-event` fault; default 10 MiB. */
  faultEventBytes?: number;
  /** Time over which a `slow-head` fault writes the head (ms); default 2000. */
  faultHeadMs?: number;
  /** Idle time after which an `idle-close` fault closes the connection (ms); default 5000. */
  faultIdleMs?: number;
  /** Reasoning tokens sent before the answer; default 0. */
  reasoningTokens?: number;
  /** Seed of the generator that decides injected faults; random when absent. */
  seed?: number;
  /**
   * File that receives one JSON line per streamed answer when it ends (see `TimingLog`);
   * nothing is logged when absent.
   */
  timingLog?: string;
  /**
   * A Hugging Face `tokenizer.json` (or its folder) counting chat `prompt_tokens` as a real
   * server does; the mock's own o200k counts when absent.
   */
  tokenizer?: string;
  /**
   * The chat template (a Jinja file, or a `tokenizer_config.json` holding `chat_template`) chat
   * messages are rendered through before `tokenizer` counts them, as llama.cpp and vLLM do.
   */
  chatTemplate?: string;
  /** The names of `/metrics`: vLLM's (the default) or SGLang's. */
  metricsFormat?: "vllm" | "sglang";
  /** Also serve a fake DCGM exporter at `/dcgm/metrics`. */
  dcgm?: boolean;
  /** The slot (engine) model's batch slots; absent: fixed timing. See `engine.ts`. */
  slots?: number;
  /** Slot model: prefill time per prompt token (µs); default 50. */
  prefillUsPerToken?: number;
  /** Slot model: fixed time of one decode step (ms); default 10. */
  decodeMs?: number;
  /** Slot model: growth of a decode step per running answer (ms); default 1. */
  decodeMsPerSeq?: number;
  /** Slot model: KV-cache capacity in tokens, for the usage gauge; default 65536. */
  kvCacheTokens?: number;
}

/** Options with every default applied. */
export type ResolvedMockOptions =
  & Required<Omit<MockOptions, "seed" | "timingLog" | "tokenizer" | "chatTemplate" | "slots">>
  & {
    seed: number;
    timingLog?: string;
    tokenizer?: string;
    chatTemplate?: string;
    slots?: number;
  };

/**
 * Applies defaults (port 0: any free port) and checks every value against the option table the
 * `reprise mock-server` flags come from, so the two cannot disagree; throws a clear error. With no
 * `http` given, a configured wire fault picks the mock's own server ("direct"); `http: "deno"`
 * with a wire fault is a `ConfigError`, as `Deno.serve` cannot make them.
 */
export function resolveMockOptions(opts: MockOptions = {}): ResolvedMockOptions {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(mockServerOptions)) {
    const given = (opts as Record<string, unknown>)[key];
    const value = given ?? (key === "port" ? 0 : spec.default);
    if (value === undefined) continue;
    if (!spec.schema.safeParse(value).success) {
      throw new RangeError(
        `Invalid mock server option "${key}": must be ${spec.expect}, got ${JSON.stringify(value)}`,
      );
    }
    out[key] = value;
  }
  out.seed ??= Math.floor(Math.random() * 2 ** 32);
  const wire = faultShares(out as unknown as ResolvedMockOptions)
    .filter((f) => isWireFault(f.kind)).map((f) => f.kind);
  if (wire.length > 0) {
    if (opts.http === undefined) out.http = "direct";
    else if (out.http === "deno") {
      throw new ConfigError(
        `--http deno cannot inject wire faults (${
          [...new Set(wire)].join(", ")
        }): use --http direct, or leave --http out to get it`,
      );
    }
  }
  return out as ResolvedMockOptions;
}
