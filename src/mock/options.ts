/**
 * The mock server's options: the TypeScript shape `startMockServer` takes, and the zod schema the
 * CLI turns into `reprise mock-server` flags (camelCase field → kebab-case flag).
 */

import { z } from "zod";

/** How the mock server answers. Every field is optional; see `mockOptionsSchema` for defaults. */
export interface MockOptions {
  /** Interface to bind; default "127.0.0.1". */
  host?: string;
  /** TCP port; 0 (the default of `startMockServer`) picks any free port. */
  port?: number;
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
  /** Reasoning tokens sent before the answer; default 0. */
  reasoningTokens?: number;
  /** Seed of the generator that decides injected faults; random when absent. */
  seed?: number;
}

/** Options with every default applied. */
export type ResolvedMockOptions = Required<Omit<MockOptions, "seed">> & { seed: number };

const rate = z.number().min(0).max(1);
const millis = z.number().min(0);

/** The mock server's options as a zod object, with defaults and a description per field. */
export const mockOptionsSchema = z.object({
  host: z.string().min(1).default("127.0.0.1").meta({
    description: "Interface to bind the mock server to.",
  }),
  port: z.number().int().min(0).max(65535).default(8000).meta({
    description: "TCP port to listen on; 0 picks any free port.",
  }),
  ttftMs: millis.default(0).meta({
    description: "Milliseconds from a request's arrival to its first token.",
  }),
  itlMs: millis.default(0).meta({
    description: "Milliseconds between consecutive tokens of an answer.",
  }),
  outputTokens: z.number().int().min(0).default(16).meta({
    description: "Tokens per answer when the request sets no maximum (max_tokens and the like).",
  }),
  jitterMs: millis.default(0).meta({
    description: "Uniform random ± milliseconds added to every delay.",
  }),
  errorRate: rate.default(0).meta({
    description: "Share of requests (0..1) answered with HTTP 500 and a JSON error body.",
  }),
  dropRate: rate.default(0).meta({
    description: "Share of requests (0..1) whose connection closes before any body byte.",
  }),
  truncateRate: rate.default(0).meta({
    description: "Share of streaming answers (0..1) that stop half-way without their final event.",
  }),
  reasoningTokens: z.number().int().min(0).default(0).meta({
    description: "Reasoning tokens sent before each answer's text.",
  }),
  seed: z.number().int().optional().meta({
    description: "Seed for the fault-injection random generator; random when absent.",
  }),
});

/** Applies defaults (port 0: any free port) and checks ranges; throws a clear error otherwise. */
export function resolveMockOptions(opts: MockOptions = {}): ResolvedMockOptions {
  // Undefined fields take the defaults; the port's is 0 here (any), 8000 only on the CLI.
  const given = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
  const parsed = mockOptionsSchema.safeParse({ port: 0, ...given });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RangeError(
      `Invalid mock server option "${issue.path.join(".")}": ${issue.message}`,
    );
  }
  const o = parsed.data;
  return { ...o, seed: o.seed ?? Math.floor(Math.random() * 2 ** 32) };
}
