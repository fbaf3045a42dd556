import assert from "node:assert/strict";
import { createApiApp } from "../../src/api/app.ts";
import { RENDERER_PATH } from "../../src/api/docs.ts";
import { OPERATIONS } from "../../src/api/openapi.ts";
import { fakeSource } from "./fake_source.ts";

const ROUTES = [
  "/api/config",
  "/api/run",
  "/api/metrics",
  "/metrics",
  "/dashboard",
  "/dashboard/events",
  "/api/progress",
  "/api/workers",
  "/api/clock",
  "/api/barrier",
  "/api/results",
  "/api/results/list",
  "/api/results/files/{path}",
  "/healthz",
  "/readyz",
  "/openapi.json",
  "/docs",
  "/redoc",
];

interface Doc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<
    string,
    Record<string, {
      operationId: string;
      summary: string;
      parameters?: { name: string; in: string }[];
      responses: Record<string, { content: Record<string, { schema?: { $ref: string } }> }>;
    }>
  >;
  components: { schemas: Record<string, Record<string, unknown>> };
}

Deno.test("/openapi.json", async (t) => {
  const { source } = fakeSource();
  const res = await createApiApp(source).request("/openapi.json");
  assert.equal(res.status, 200);
  const doc = JSON.parse(await res.text()) as Doc;

  await t.step("is an OpenAPI 3.1 document with the version", () => {
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(doc.info.version, "0.1.0");
  });

  await t.step("lists every route, each with a unique operationId and a summary", () => {
    assert.deepEqual(Object.keys(doc.paths).sort(), [...ROUTES].sort());
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      assert.ok(item.get, path);
      assert.ok(item.get.summary, path);
      assert.ok(!ids.has(item.get.operationId));
      ids.add(item.get.operationId);
    }
    assert.equal(OPERATIONS.length, ROUTES.length);
  });

  await t.step("every $ref resolves to a component schema", () => {
    for (const item of Object.values(doc.paths)) {
      for (const r of Object.values(item.get.responses)) {
        for (const media of Object.values(r.content)) {
          if (!media.schema) continue;
          const name = media.schema.$ref.replace("#/components/schemas/", "");
          assert.ok(doc.components.schemas[name], media.schema.$ref);
          assert.ok(!("$schema" in doc.components.schemas[name]));
        }
      }
    }
  });

  await t.step("response schemas come from zod and describe the real fields", () => {
    const metrics = doc.components.schemas.MetricsResponse as {
      properties: Record<string, unknown>;
      required: string[];
    };
    for (
      const k of [
        "aiperf_version",
        "reprise_version",
        "reprise_updated_at",
        "benchmark_id",
        "model",
        "endpoint_type",
        "streaming",
        "concurrency",
        "request_rate",
        "metrics",
      ]
    ) {
      assert.ok(k in metrics.properties, k);
      assert.ok(metrics.required.includes(k), k);
    }
    const results = doc.components.schemas.ResultsResponse as {
      properties: { status: { enum: string[] } };
    };
    assert.deepEqual(results.properties.status.enum, [
      "starting",
      "running",
      "complete",
      "failed",
      "cancelled",
    ]);
  });

  await t.step("the file route documents its path parameter", () => {
    const op = doc.paths["/api/results/files/{path}"].get;
    assert.deepEqual(op.parameters?.map((p) => [p.name, p.in]), [["path", "path"]]);
  });
});

Deno.test("/docs and /redoc are self-contained", async () => {
  const { source } = fakeSource();
  const app = createApiApp(source);
  for (const page of ["/docs", "/redoc"]) {
    const res = await app.request(page);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'/);
    const html = await res.text();
    assert.ok(html.includes(`src="${RENDERER_PATH}"`));
    // Nothing is loaded from another origin.
    assert.ok(!/(src|href)="(https?:)?\/\//.test(html), `${page} references another origin`);
  }
  const js = await app.request(RENDERER_PATH);
  assert.equal(js.status, 200);
  assert.match(js.headers.get("content-type") ?? "", /^text\/javascript/);
  const code = await js.text();
  assert.ok(!/https?:\/\//.test(code), "the renderer fetches nothing from elsewhere");
  // It must at least parse as a script.
  new Function(code);
});
