/** The mock server's engine (slot) model options: batch slots, a queue, prefill and decode time. */

import { nonNegative, opt, positiveInt } from "./spec.ts";

/**
 * The slot model of `reprise mock-server`: with `--slots N` the mock serves as an inference
 * engine does (vLLM, llama.cpp's server): at most N sequences run in one batch, the rest wait in
 * a FIFO queue; the batch advances in steps, each lasting `decode-ms + decode-ms-per-seq × batch`
 * plus the prefill of the sequences joining it (`prefill-us-per-token × prompt tokens`); a
 * running sequence gets one token per step. Latency thus rises with load, and a closed loop of
 * more than N users queues: the knee is at concurrency N.
 */
export const mockEngineOptions = {
  slots: opt({
    flag: "slots",
    kind: "number",
    schema: positiveInt,
    expect: "a positive integer",
    group: "Engine model",
    help:
      "Serve as an inference engine with this many batch slots: at most N answers are generated at once, the others wait in a FIFO queue; the batch advances in steps (one token per running answer per step). Off when absent (fixed --ttft-ms / --itl-ms timing). See docs/mock-server.md.",
    metavar: "N",
  }),
  prefillUsPerToken: opt({
    flag: "prefill-us-per-token",
    kind: "number",
    schema: nonNegative,
    expect: "a non-negative number of microseconds",
    default: 50,
    group: "Engine model",
    help:
      "With --slots: prefill time per prompt token, added to the step in which an answer joins the batch.",
    metavar: "US",
  }),
  decodeMs: opt({
    flag: "decode-ms",
    kind: "number",
    schema: nonNegative,
    expect: "a non-negative number of milliseconds",
    default: 10,
    group: "Engine model",
    help: "With --slots: fixed time of one decode step.",
    metavar: "MS",
  }),
  decodeMsPerSeq: opt({
    flag: "decode-ms-per-seq",
    kind: "number",
    schema: nonNegative,
    expect: "a non-negative number of milliseconds",
    default: 1,
    group: "Engine model",
    help: "With --slots: time one decode step grows by per running answer in the batch.",
    metavar: "MS",
  }),
  kvCacheTokens: opt({
    flag: "kv-cache-tokens",
    kind: "number",
    schema: positiveInt,
    expect: "a positive integer",
    default: 65536,
    group: "Engine model",
    help:
      "With --slots: KV-cache capacity in tokens; /metrics reports the running answers' prompt and generated tokens as a share of it.",
    metavar: "N",
  }),
} as const;
