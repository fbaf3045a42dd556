/** The options of `reprise report` for sweeps: the SLO lines its charts draw. */

import { z } from "zod";
import { opt } from "./spec.ts";

/** SLO lines of the sweep report's latency charts (a search's own SLA is drawn without them). */
export const reportSweepOptions = {
  ttftSlaMs: opt({
    flag: "ttft-sla-ms",
    kind: "number",
    schema: z.number().positive(),
    expect: "a positive number of ms",
    group: "Sweeps",
    help: "Draw this TTFT SLO (ms) on the sweep report's TTFT charts.",
    metavar: "MS",
  }),
  itlSlaMs: opt({
    flag: "itl-sla-ms",
    kind: "number",
    schema: z.number().positive(),
    expect: "a positive number of ms",
    group: "Sweeps",
    help: "Draw this inter-token latency SLO (ms) on the sweep report's ITL chart.",
    metavar: "MS",
  }),
} as const;
