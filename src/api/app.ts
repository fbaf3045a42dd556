/**
 * The live HTTP API of a run, as a Hono app: JSON views of the run state, Prometheus metrics,
 * artifact downloads, probes, and self-hosted OpenAPI documentation. It only reads the
 * `ApiSource`; nothing here can change the run.
 */

import { StartBarrier } from "./barrier.ts";
import { Hono } from "hono";
import type { Context, Handler } from "hono";
import { cors } from "hono/cors";
import { AIPERF_COMPAT_VERSION } from "../export/summary_json.ts";
import { redactConfig, redactText, redactValues } from "../config/redact.ts";
import {
  DASHBOARD_CSP,
  DASHBOARD_PATH,
  dashboardEvents,
  dashboardPage,
  EVENTS_PATH,
} from "./dashboard.ts";
import { DOCS_CSP, docsPage, RENDERER_JS, RENDERER_PATH } from "./docs.ts";
import { contentTypeFor, listArtifacts, resolveArtifact } from "./files.ts";
import { openApiDocument } from "./openapi.ts";
import { formatPrometheus, PROMETHEUS_CONTENT_TYPE, runLabels } from "./prometheus.ts";
import { formatServerValues } from "./prometheus_server.ts";
import type { ApiSource } from "./types.ts";

/** Options of `createApiApp`. */
export interface ApiAppOptions {
  /** Origins allowed by CORS; none (CORS off) by default. `["*"]` allows every origin. */
  corsOrigins?: string[];
  /** The run's secret values (`targetSecrets`): replaced in every answer but file downloads. */
  secrets?: string[];
  /** Aborted when the server closes: the dashboard's event streams end then. */
  signal?: AbortSignal;
}

/** The methods every route answers; any other is 405 with this list in `Allow`. */
const ALLOWED = "GET, HEAD";

const FILES_PREFIX = "/api/results/files/";

function notFound(c: Context) {
  return c.json({ detail: "Not Found" }, 404);
}

/** BigInt (epoch ns) as a JSON number when exact, else as a decimal string. */
function bigintReplacer(_key: string, value: unknown): unknown {
  if (typeof value !== "bigint") return value;
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value.toString();
}

/** A JSON answer that tolerates BigInt values (JSON.stringify alone throws on them). */
function jsonBody(c: Context, value: unknown) {
  return c.body(JSON.stringify(value, bigintReplacer), 200, {
    "Content-Type": "application/json",
  });
}

/** The API app for one run. */
export function createApiApp(source: ApiSource, options: ApiAppOptions = {}): Hono {
  const app = new Hono();
  const secrets = options.secrets ?? [];
  // Every route is registered through here: GET (and HEAD) answer, other methods get 405.
  const routes: string[] = [];
  const get = (path: string, handler: Handler) => {
    routes.push(path);
    app.get(path, handler);
  };

  if (options.corsOrigins && options.corsOrigins.length > 0) {
    const origins = options.corsOrigins;
    app.use("*", cors({ origin: origins.includes("*") ? "*" : origins, allowMethods: ["GET"] }));
  }
  // Live values must never be served from a cache.
  app.use("*", async (c, next) => {
    await next();
    if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
    c.header("X-Content-Type-Options", "nosniff");
  });
  // The records were scrubbed where they were made; this guards everything else the answers
  // quote. Downloads are the artifact files as written, streamed untouched.
  if (secrets.length > 0) {
    app.use("*", async (c, next) => {
      await next();
      // The event stream redacts each event itself: it must not be read to its end here.
      if (c.req.path.startsWith(FILES_PREFIX) || c.req.path === EVENTS_PATH) return;
      if (c.res.body === null) return;
      const text = await c.res.text();
      const clean = redactValues(text, secrets);
      const headers = new Headers(c.res.headers);
      headers.delete("Content-Length");
      c.res = new Response(clean, { status: c.res.status, headers });
    });
  }

  // The source gives redacted values already; redacting again costs little and guards a slip.
  get("/api/config", (c) => jsonBody(c, redactConfig(source.config())));
  get("/api/run", (c) => jsonBody(c, redactConfig(source.runInfo())));

  get("/api/metrics", (c) => {
    const snap = source.snapshot();
    // AIPerf's `MetricsResponse` keys; reprise's extras are under `reprise_*` keys.
    return jsonBody(c, {
      aiperf_version: AIPERF_COMPAT_VERSION,
      benchmark_id: source.runInfo().benchmark_id,
      model: snap.info.model,
      endpoint_type: snap.info.endpoint_type,
      streaming: snap.info.streaming,
      concurrency: snap.info.concurrency,
      request_rate: snap.info.request_rate,
      metrics: snap.metrics,
      reprise_version: snap.info.version,
      reprise_updated_at: snap.updatedAt,
      reprise_server_metrics: snap.server ?? [],
    });
  });

  get("/metrics", (c) => {
    const snap = source.snapshot();
    const body = formatPrometheus(snap, source.runInfo(), source.status()) +
      formatServerValues(snap.server ?? [], runLabels(snap, source.runInfo()));
    return c.body(body, 200, { "Content-Type": PROMETHEUS_CONTENT_TYPE });
  });

  get("/api/progress", (c) => {
    const phases: Record<string, unknown> = {};
    for (const [phase, p] of Object.entries(source.snapshot().progress)) {
      phases[phase] = { phase, ...p };
    }
    return jsonBody(c, { phases });
  });

  get("/api/workers", (c) => jsonBody(c, { workers: source.snapshot().workers }));
  // Shards compare their clocks with this one (cli/start_at.ts): the time as the answer is made.
  get("/api/clock", (c) => c.json({ epoch_ms: performance.timeOrigin + performance.now() }));
  const barrier = new StartBarrier();
  get("/api/barrier", (c) => {
    const shard = c.req.query("shard");
    const of = c.req.query("of");
    // Without a shard it is a look at the barrier, not an arrival.
    if (shard === undefined && of === undefined) return c.json(barrier.status());
    const answer = barrier.arrive(Number(shard), Number(of));
    return answer === null
      ? c.json({ error: "shard must be an index below of, and of the first shard's count" }, 400)
      : c.json(answer);
  });

  get("/api/results", (c) => {
    const status = source.status();
    const results = source.results();
    return jsonBody(
      c,
      results === null || results === undefined
        ? { status }
        : { status, results: redactConfig(results) },
    );
  });

  get("/api/results/list", async (c) => {
    const dir = source.artifactDir();
    return c.json({ files: dir === null ? [] : await listArtifacts(dir) });
  });

  get(`${FILES_PREFIX}*`, async (c) => {
    const dir = source.artifactDir();
    // The raw path, so that a percent-encoded `/` or `..` is judged after exactly one decoding.
    const pathname = new URL(c.req.url).pathname;
    if (dir === null || !pathname.startsWith(FILES_PREFIX)) return notFound(c);
    let rel: string;
    try {
      rel = decodeURIComponent(pathname.slice(FILES_PREFIX.length));
    } catch {
      return notFound(c);
    }
    const found = await resolveArtifact(dir, rel);
    if (found === null) return notFound(c);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(found.path, { read: true });
    } catch {
      return notFound(c);
    }
    const name = rel.split("/").pop() ?? "file";
    return c.body(file.readable, 200, {
      "Content-Type": contentTypeFor(name),
      "Content-Length": String(found.size),
      "Content-Disposition": `attachment; filename="${name.replace(/["\\\r\n]/g, "_")}"; ` +
        `filename*=UTF-8''${encodeURIComponent(name)}`,
    });
  });

  get("/healthz", (c) => {
    const failed = source.status() === "failed";
    return c.text(failed ? "unhealthy" : "ok", failed ? 503 : 200);
  });
  get("/readyz", (c) => {
    const ready = source.status() === "running";
    return c.text(ready ? "ok" : "not ready", ready ? 200 : 503);
  });

  get("/openapi.json", (c) => c.json(openApiDocument(source.snapshot().info.version)));
  get(DASHBOARD_PATH, (c) => {
    c.header("Content-Security-Policy", DASHBOARD_CSP);
    return c.html(dashboardPage(`reprise live: ${source.snapshot().info.model}`));
  });
  get(EVENTS_PATH, () => dashboardEvents(source, { secrets, signal: options.signal }));

  for (const mode of ["docs", "redoc"] as const) {
    get(`/${mode}`, (c) => {
      c.header("Content-Security-Policy", DOCS_CSP);
      return c.html(docsPage(mode, "reprise live API"));
    });
  }
  get(RENDERER_PATH, (c) => {
    return c.body(RENDERER_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" });
  });

  for (const path of routes) {
    app.all(path, (c) => c.json({ detail: "Method Not Allowed" }, 405, { Allow: ALLOWED }));
  }
  app.notFound(notFound);
  app.onError((err, c) => {
    // A failing source is the run's problem, not a reason to stop serving: answer 500.
    return c.json({ detail: redactText(`Internal error: ${err.message}`, secrets) }, 500);
  });
  return app;
}
