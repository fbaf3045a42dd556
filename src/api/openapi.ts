/**
 * The API's operations and the OpenAPI 3.1 document generated from them and from the zod
 * response schemas, so the document cannot drift from what the handlers return.
 */

import { z } from "zod";
import {
  ConfigResponseSchema,
  ErrorResponseSchema,
  MetricsResponseSchema,
  ProgressResponseSchema,
  ResultsListResponseSchema,
  ResultsResponseSchema,
  RunInfoSchema,
  WorkersResponseSchema,
} from "./schemas.ts";

/** One documented answer of an operation. */
export interface ResponseDoc {
  description: string;
  /** Media type; `application/json` when a schema is given. */
  contentType: string;
  /** A named zod schema (`[name, schema]`), emitted under `components.schemas`. */
  schema?: [string, z.ZodType];
}

/** One documented operation. */
export interface Operation {
  method: "get";
  /** OpenAPI path template, e.g. `/api/results/files/{path}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: "run" | "metrics" | "results" | "probes" | "docs";
  /** Path parameters and their descriptions. */
  params?: Record<string, string>;
  responses: Record<string, ResponseDoc>;
}

const json = (name: string, schema: z.ZodType, description: string): ResponseDoc => ({
  description,
  contentType: "application/json",
  schema: [name, schema],
});
const text = (description: string, contentType = "text/plain; charset=utf-8"): ResponseDoc => ({
  description,
  contentType,
});
const notFound = json("ErrorResponse", ErrorResponseSchema, "Not found.");

/** Every operation the API serves, in display order. */
export const OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/api/config",
    operationId: "getConfig",
    summary: "Benchmark configuration",
    description: "The resolved configuration of this run; the API key and credentials are removed.",
    tag: "run",
    responses: { "200": json("ConfigResponse", ConfigResponseSchema, "The configuration.") },
  },
  {
    method: "get",
    path: "/api/run",
    operationId: "getRun",
    summary: "Run identity",
    description: "benchmark_id, random_seed and the redacted command line.",
    tag: "run",
    responses: { "200": json("RunInfo", RunInfoSchema, "Run identity.") },
  },
  {
    method: "get",
    path: "/api/metrics",
    operationId: "getMetrics",
    summary: "Live metrics (JSON)",
    description:
      "Statistics of every metric over the records so far, refreshed on --stats-interval.",
    tag: "metrics",
    responses: { "200": json("MetricsResponse", MetricsResponseSchema, "Live metrics.") },
  },
  {
    method: "get",
    path: "/metrics",
    operationId: "getPrometheusMetrics",
    summary: "Live metrics (Prometheus)",
    description: "Prometheus text exposition format 0.0.4: summaries, gauges, and counters.",
    tag: "metrics",
    responses: {
      "200": text("Prometheus text format.", "text/plain; version=0.0.4; charset=utf-8"),
    },
  },
  {
    method: "get",
    path: "/dashboard",
    operationId: "dashboard",
    summary: "Live dashboard",
    description:
      "The client's and the server's charts over time, growing while the run goes (no internet).",
    tag: "metrics",
    responses: { "200": text("HTML page.", "text/html; charset=utf-8") },
  },
  {
    method: "get",
    path: "/dashboard/events",
    operationId: "dashboardEvents",
    summary: "Live chart points (server-sent events)",
    description: "`points` events (the history at once, then new points every second: " +
      "`{status, phase, charts, points: [{t, phase, values}]}`), and `end` once the run is over.",
    tag: "metrics",
    responses: { "200": text("Event stream.", "text/event-stream") },
  },
  {
    method: "get",
    path: "/api/progress",
    operationId: "getProgress",
    summary: "Progress per phase",
    tag: "run",
    responses: { "200": json("ProgressResponse", ProgressResponseSchema, "Per-phase counts.") },
  },
  {
    method: "get",
    path: "/api/workers",
    operationId: "getWorkers",
    summary: "Worker counters",
    tag: "run",
    responses: { "200": json("WorkersResponse", WorkersResponseSchema, "Per-Worker counters.") },
  },
  {
    method: "get",
    path: "/api/clock",
    operationId: "getClock",
    summary: "This process's clock",
    description:
      "Epoch ms (fractional) when the answer was made: shards of a sharded run check their clocks against it (--clock-reference).",
    tag: "run",
    responses: {
      "200": json("ClockResponse", z.object({ epoch_ms: z.number() }), "The clock reading."),
    },
  },
  {
    method: "get",
    path: "/api/barrier",
    operationId: "getBarrier",
    summary: "Start barrier of a sharded run",
    description:
      "Asked by each shard once ready (`?shard=<index>&of=<count>`, --start-barrier): `{ready: false, seen, of}` until every shard has asked, then `{ready: true, start_at_ms}`, the instant all of them start at. Without a query: where the barrier stands, arriving nowhere.",
    tag: "run",
    responses: {
      "200": json(
        "BarrierResponse",
        z.object({
          ready: z.boolean(),
          seen: z.number().optional(),
          of: z.number().nullable().optional(),
          start_at_ms: z.number().optional(),
        }),
        "Whether every shard is ready, and then the start.",
      ),
      "400": json("ErrorResponse", ErrorResponseSchema, "An index out of range or another count."),
    },
  },
  {
    method: "get",
    path: "/api/results",
    operationId: "getResults",
    summary: "Final results",
    description: "`{status}` while running; `{status, results}` once the run has completed.",
    tag: "results",
    responses: { "200": json("ResultsResponse", ResultsResponseSchema, "Status and results.") },
  },
  {
    method: "get",
    path: "/api/results/list",
    operationId: "listResultFiles",
    summary: "Artifact files",
    description: "Every file in the run's artifact directory, relative names, recursive.",
    tag: "results",
    responses: {
      "200": json("ResultsListResponse", ResultsListResponseSchema, "The files and sizes."),
    },
  },
  {
    method: "get",
    path: "/api/results/files/{path}",
    operationId: "getResultFile",
    summary: "Download an artifact file",
    description: "The file at a path relative to the artifact directory; paths outside it are 404.",
    tag: "results",
    params: { path: "Path relative to the artifact directory, as listed by /api/results/list." },
    responses: {
      "200": text("The file, with a content type chosen by its extension.", "*/*"),
      "404": notFound,
    },
  },
  {
    method: "get",
    path: "/healthz",
    operationId: "healthz",
    summary: "Liveness probe",
    description: "`ok`; 503 `unhealthy` once the run has failed.",
    tag: "probes",
    responses: { "200": text("Alive."), "503": text("The run has failed.") },
  },
  {
    method: "get",
    path: "/readyz",
    operationId: "readyz",
    summary: "Readiness probe",
    description: "200 `ok` only while the run is running; 503 `not ready` otherwise.",
    tag: "probes",
    responses: { "200": text("Running."), "503": text("Not running.") },
  },
  {
    method: "get",
    path: "/openapi.json",
    operationId: "openapi",
    summary: "This OpenAPI document",
    tag: "docs",
    responses: { "200": text("OpenAPI 3.1 document.", "application/json") },
  },
  {
    method: "get",
    path: "/docs",
    operationId: "docs",
    summary: "API documentation (interactive)",
    tag: "docs",
    responses: { "200": text("HTML page.", "text/html; charset=utf-8") },
  },
  {
    method: "get",
    path: "/redoc",
    operationId: "redoc",
    summary: "API reference",
    tag: "docs",
    responses: { "200": text("HTML page.", "text/html; charset=utf-8") },
  },
];

function componentSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
}

/** The OpenAPI 3.1 document of `OPERATIONS`. */
export function openApiDocument(version: string): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      let media: Record<string, unknown> = {};
      if (r.schema) {
        const [name, schema] = r.schema;
        schemas[name] ??= componentSchema(schema);
        media = { schema: { $ref: `#/components/schemas/${name}` } };
      }
      responses[status] = { description: r.description, content: { [r.contentType]: media } };
    }
    const parameters = Object.entries(op.params ?? {}).map(([name, description]) => ({
      name,
      in: "path",
      required: true,
      description,
      schema: { type: "string" },
    }));
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      operationId: op.operationId,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      ...(parameters.length ? { parameters } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "reprise live API",
      version,
      description: "Live state, metrics and artifacts of a running reprise benchmark.",
    },
    tags: [
      { name: "run", description: "Run identity, configuration and progress." },
      { name: "metrics", description: "Live metrics." },
      { name: "results", description: "Final results and artifact files." },
      { name: "probes", description: "Liveness and readiness." },
      { name: "docs", description: "This documentation." },
    ],
    paths,
    components: { schemas },
  };
}
