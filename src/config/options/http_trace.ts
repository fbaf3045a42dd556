/** AIPerf's HTTP Trace options of `profile`: what a record says of its request on the wire. */

import { z } from "zod";
import { compat, opt } from "./spec.ts";

/** The HTTP trace options. */
export const httpTraceOptions = {
  exportHttpTrace: opt({
    flag: "export-http-trace",
    kind: "boolean",
    schema: z.boolean(),
    expect: "true or false",
    default: false,
    group: "HTTP Trace",
    help:
      "Each record carries its connection's trace in profile_export.jsonl and the summary: http_req_connecting (ms this request spent opening its connection, 0 when it took an open one) and http_req_connection_reused (0/1), from the HTTP/1.1 client.",
  }),
  showTraceTiming: compat<boolean>({
    flag: "show-trace-timing",
    kind: "boolean",
    default: false,
    group: "HTTP Trace",
    help: "HTTP trace table.",
    status: "not-yet",
    why: "the console's HTTP trace table is not built yet (the trace is in the exports)",
  }),
} as const;
