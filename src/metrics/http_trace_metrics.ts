/**
 * The HTTP trace metrics a record carries with `--export-http-trace` (AIPerf's k6-named
 * `http_req_*`): for now the connection's, so that a request that had to open one during the run
 * shows how much of its TTFT that took. Absent from records without a trace.
 */

import type { MetricDef } from "./metric_def.ts";

/** Time this request spent opening its connection (TCP, and TLS or a proxy's tunnel); 0 if none. */
export const HTTP_REQ_CONNECTING: MetricDef = {
  tag: "http_req_connecting",
  header: "HTTP Connecting",
  unit: "ns",
  displayUnit: "ms",
  kind: "record",
  flags: ["no_console"],
  displayOrder: 2100,
  record: (rec) => rec.connectNs,
};

/** 1 when the request's connection had carried an earlier request, 0 when it was new. */
export const HTTP_REQ_CONNECTION_REUSED: MetricDef = {
  tag: "http_req_connection_reused",
  header: "HTTP Connection Reused",
  unit: "ratio",
  displayUnit: "ratio",
  kind: "record",
  flags: ["no_console"],
  displayOrder: 2110,
  record: (rec) => rec.connectionReused === undefined ? undefined : rec.connectionReused ? 1 : 0,
};
