/** The options of `reprise report`. */

import { z } from "zod";
import { opt } from "./spec.ts";
import { reportSweepOptions } from "./report_sweep.ts";

export const reportOptions = {
  output: opt({
    flag: "output",
    short: "o",
    kind: "string",
    schema: z.string().min(1),
    expect: "a file path",
    default: "report.html",
    group: "Output",
    help: "Where to write the HTML report.",
    metavar: "FILE",
  }),
  ...reportSweepOptions,
} as const;
