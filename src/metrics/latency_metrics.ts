/**
 * Latency metrics: per-request times read off the chunk timestamps (request latency, time to
 * first, second and first output token, decode duration, inter-token and inter-chunk latency)
 * and the client's own schedule lag.
 */

import { AT, type MetricDef, type MetricFlag, num, type RecordFn } from "./metric_def.ts";

/** A per-request time, computed in ns and shown in ms. */
function time(
  tag: string,
  header: string,
  displayOrder: number,
  flags: MetricFlag[],
  record: RecordFn,
): MetricDef {
  return {
    tag,
    header,
    unit: "ns",
    displayUnit: "ms",
    kind: "record",
    flags,
    displayOrder,
    record,
  };
}

/** From the request's start to its last content response (or its last byte, lacking one). */
export const REQUEST_LATENCY: MetricDef = time(
  "request_latency",
  "Request Latency",
  300,
  ["percentile_includes_failed"],
  (rec) => {
    // The last content response ends the request; a request without one ends at its last byte.
    return rec.responseNs.length > 0 ? rec.responseNs[rec.responseNs.length - 1] : rec.endNs;
  },
);

/**
 * The client's own lag: actual send minus intended send. Large values mean the client (a full
 * concurrency cap, a busy Worker), not the server, held the load back.
 */
export const SCHEDULE_LAG: MetricDef = time(
  "schedule_lag",
  "Schedule Lag",
  290,
  ["no_console"],
  (rec) => {
    if (rec.intendedStartNs === null) return undefined;
    return Number(rec.startNs - rec.intendedStartNs);
  },
);

/** From the request's start to its first content response. */
export const TIME_TO_FIRST_TOKEN: MetricDef = time(
  "time_to_first_token",
  "Time to First Token",
  100,
  ["streaming_only", "produces_tokens", "percentile_includes_failed"],
  (rec) => rec.responseNs.length > 0 ? rec.responseNs[0] : undefined,
);

/** The gap between the first and second content responses. */
export const TIME_TO_SECOND_TOKEN: MetricDef = time(
  "time_to_second_token",
  "Time to Second Token",
  200,
  ["streaming_only", "produces_tokens"],
  (rec) => rec.responseNs.length > 1 ? rec.responseNs[1] - rec.responseNs[0] : undefined,
);

/** From the request's start to its first response that is not reasoning. */
export const TIME_TO_FIRST_OUTPUT_TOKEN: MetricDef = time(
  "time_to_first_output_token",
  "Time to First Output Token",
  210,
  ["streaming_only", "produces_tokens"],
  (rec) => {
    const reasoning = rec.responseReasoning;
    if (reasoning === null) return rec.responseNs.length > 0 ? rec.responseNs[0] : undefined;
    for (let i = 0; i < rec.responseNs.length; i++) if (!reasoning[i]) return rec.responseNs[i];
    return undefined;
  },
);

/** Request latency minus time to first token. */
export const DECODE_DURATION: MetricDef = time(
  "decode_duration",
  "Decode Duration",
  350,
  ["streaming_only", "produces_tokens", "percentile_includes_failed", "no_console"],
  (_rec, m) => {
    const ttft = num(m, AT.ttft);
    const lat = num(m, AT.latency);
    return ttft === undefined || lat === undefined ? undefined : lat - ttft;
  },
);

/** Decode duration spread over the output tokens after the first. */
export const INTER_TOKEN_LATENCY: MetricDef = time(
  "inter_token_latency",
  "Inter Token Latency",
  400,
  ["streaming_only", "produces_tokens", "percentile_includes_failed"],
  (_rec, m) => {
    const osl = num(m, AT.osl);
    const ttft = num(m, AT.ttft);
    const lat = num(m, AT.latency);
    if (osl === undefined || osl < 2 || ttft === undefined || lat === undefined) return undefined;
    return (lat - ttft) / (osl - 1);
  },
);

/** Every gap between consecutive content responses: a list per request. */
export const INTER_CHUNK_LATENCY: MetricDef = time(
  "inter_chunk_latency",
  "Inter Chunk Latency",
  450,
  ["streaming_only", "produces_tokens", "list", "no_console"],
  (rec) => {
    const t = rec.responseNs;
    if (t.length < 2) return undefined;
    const gaps = new Array<number>(t.length - 1);
    for (let i = 1; i < t.length; i++) gaps[i - 1] = t[i] - t[i - 1];
    return gaps;
  },
);
