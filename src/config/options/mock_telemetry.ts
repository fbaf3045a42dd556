/** The mock server's telemetry options: the format of its `/metrics`, and a fake DCGM exporter. */

import { z } from "zod";
import { opt } from "./spec.ts";

/** Options of `reprise mock-server` for the telemetry tests and demos. */
export const mockTelemetryOptions = {
  metricsFormat: opt<"vllm" | "sglang">({
    flag: "metrics-format",
    kind: "string",
    schema: z.enum(["vllm", "sglang"]),
    expect: "vllm or sglang",
    default: "vllm",
    group: "Telemetry",
    help: "The names of the mock's /metrics: vLLM's (vllm:…) or SGLang's (sglang:…).",
  }),
  dcgm: opt<boolean>({
    flag: "dcgm",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "Telemetry",
    help:
      "Also serve a fake DCGM exporter at /dcgm/metrics: two GPUs whose power moves and whose energy counter is its integral.",
  }),
} as const;
