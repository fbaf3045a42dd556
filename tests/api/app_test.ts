import assert from "node:assert/strict";
import { join } from "node:path";
import { AIPERF_COMPAT_VERSION } from "../../src/export/summary_json.ts";
import { createApiApp } from "../../src/api/app.ts";
import { OPERATIONS } from "../../src/api/openapi.ts";
import { fakeSource } from "./fake_source.ts";

async function json(res: Response): Promise<unknown> {
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  return await res.json();
}

Deno.test("GET /api/config and /api/run return the source's values", async () => {
  const { source, state } = fakeSource();
  const app = createApiApp(source);
  const config = await app.request("/api/config");
  assert.equal(config.status, 200);
  assert.deepEqual(await json(config), state.config);
  assert.equal(config.headers.get("cache-control"), "no-store");
  const run = await app.request("/api/run");
  assert.deepEqual(await json(run), {
    benchmark_id: "bench-123",
    random_seed: 7,
    cli_command: "reprise profile --api-key <redacted>",
  });
});

Deno.test("GET /api/metrics has AIPerf's keys, reprise's extras under reprise_ keys", async () => {
  const { source, state } = fakeSource();
  const app = createApiApp(source);
  const body = await json(await app.request("/api/metrics")) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).filter((k) => !k.startsWith("reprise_")), [
    "aiperf_version",
    "benchmark_id",
    "model",
    "endpoint_type",
    "streaming",
    "concurrency",
    "request_rate",
    "metrics",
  ]);
  assert.equal(body.aiperf_version, AIPERF_COMPAT_VERSION);
  assert.equal(body.reprise_version, "0.1.0");
  assert.equal(body.benchmark_id, "bench-123");
  assert.equal(body.model, state.snapshot.info.model);
  assert.equal(body.endpoint_type, "chat");
  assert.equal(body.streaming, true);
  assert.equal(body.concurrency, 4);
  assert.equal(body.request_rate, null);
  assert.equal(body.reprise_updated_at, state.snapshot.updatedAt);
  const metrics = body.metrics as Record<string, Record<string, unknown>>;
  assert.equal(metrics.request_latency.p99, 195);
  assert.equal(metrics.request_latency.unit, "ms");
  // JSON has no NaN/Infinity: they arrive as null rather than breaking the document.
  assert.equal(metrics.error_rate.avg, null);

  await Promise.resolve();
  state.snapshot = { ...state.snapshot, metrics: {} };
  const after = await json(await app.request("/api/metrics")) as Record<string, unknown>;
  assert.deepEqual(after.metrics, {}, "each request reads the current snapshot");
});

Deno.test("GET /api/progress and /api/workers", async () => {
  const { source } = fakeSource();
  const app = createApiApp(source);
  const progress = await json(await app.request("/api/progress")) as {
    phases: Record<string, Record<string, unknown>>;
  };
  assert.deepEqual(Object.keys(progress.phases).sort(), ["profiling", "warmup"]);
  assert.equal(progress.phases.profiling.phase, "profiling");
  assert.equal(progress.phases.profiling.in_flight, 20);
  assert.equal(progress.phases.profiling.start_ns, "1767323045000000000");
  assert.equal(progress.phases.warmup.errors, 1);
  const workers = await json(await app.request("/api/workers")) as {
    workers: Record<string, Record<string, unknown>>;
  };
  assert.deepEqual(workers.workers["1"], {
    requests: 40,
    errors: 2,
    in_flight: 10,
    state: "running",
  });
});

Deno.test("GET /api/results: status only until results exist", async () => {
  const { source, state } = fakeSource();
  const app = createApiApp(source);
  assert.deepEqual(await json(await app.request("/api/results")), { status: "running" });
  state.status = "complete";
  state.results = { schema_version: "1.5", request_latency: { unit: "ms", avg: 1 } };
  assert.deepEqual(await json(await app.request("/api/results")), {
    status: "complete",
    results: state.results,
  });
});

Deno.test("secrets that slip into the source are still redacted", async () => {
  const { source, state } = fakeSource();
  state.config = {
    model: "m",
    api_key: "sk-leak",
    url: "http://u:pw@h",
    headers: { Authorization: "Bearer tok" },
  };
  state.status = "complete";
  state.results = { input_config: { endpoint: { api_key: "sk-leak2" } } };
  const app = createApiApp({
    ...source,
    runInfo: () => ({
      benchmark_id: "b",
      random_seed: null,
      cli_command: "reprise profile --url http://u:pw@h",
    }),
  });
  for (const path of ["/api/config", "/api/run", "/api/results"]) {
    const text = await (await app.request(path)).text();
    for (const secret of ["sk-leak", "u:pw", "Bearer tok"]) {
      assert.ok(!text.includes(secret), `${path} leaks ${secret}: ${text}`);
    }
  }
});

Deno.test("BigInt values (epoch ns) are served, not a 500", async () => {
  const { source, state } = fakeSource();
  state.status = "complete";
  state.results = { start_ns: 1767323045000000123n, small: 5n };
  const res = await createApiApp(source).request("/api/results");
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.match(text, /"start_ns":"1767323045000000123"/);
  assert.match(text, /"small":5\b/);
});

Deno.test("probes follow the run status", async (t) => {
  const { source, state } = fakeSource();
  const app = createApiApp(source);
  const expected: [typeof state.status, number, string, number, string][] = [
    ["starting", 200, "ok", 503, "not ready"],
    ["running", 200, "ok", 200, "ok"],
    ["complete", 200, "ok", 503, "not ready"],
    ["cancelled", 200, "ok", 503, "not ready"],
    ["failed", 503, "unhealthy", 503, "not ready"],
  ];
  for (const [status, healthCode, healthBody, readyCode, readyBody] of expected) {
    await t.step(status, async () => {
      state.status = status;
      const h = await app.request("/healthz");
      assert.equal(h.status, healthCode);
      assert.equal(await h.text(), healthBody);
      const r = await app.request("/readyz");
      assert.equal(r.status, readyCode);
      assert.equal(await r.text(), readyBody);
    });
  }
});

Deno.test("GET /metrics is Prometheus text with the right content type", async () => {
  const { source } = fakeSource();
  const res = await createApiApp(source).request("/metrics");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const text = await res.text();
  assert.match(text, /^# HELP aiperf_info /m);
  assert.match(text, /^aiperf_request_latency_ms\{.*quantile="0.99"\} 195$/m);
  assert.match(text, /^reprise_requests_completed_total\{.*phase="profiling"\} 100$/m);
});

Deno.test("unknown routes are JSON 404s", async () => {
  const { source } = fakeSource();
  const app = createApiApp(source);
  for (const path of ["/nope", "/api", "/api/metrics/x", "/api/results/files/"]) {
    const res = await app.request(path);
    assert.equal(res.status, 404, path);
    assert.deepEqual(await json(res), { detail: "Not Found" });
  }
  const post = await app.request("/nope", { method: "POST" });
  assert.equal(post.status, 404);
  await post.body?.cancel();
});

Deno.test("other methods than GET and HEAD on a route are 405 with Allow", async () => {
  const { source } = fakeSource();
  const app = createApiApp(source);
  for (const path of ["/api/config", "/metrics", "/api/results/files/x.json", "/healthz"]) {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const res = await app.request(path, { method });
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(res.headers.get("allow"), "GET, HEAD");
      assert.deepEqual(await json(res), { detail: "Method Not Allowed" });
    }
  }
  const head = await app.request("/api/config", { method: "HEAD" });
  assert.equal(head.status, 200);
  await head.body?.cancel();
});

Deno.test("the run's secret values are replaced in every answer", async () => {
  const { source, state } = fakeSource();
  const key = "sk-echoed-0123";
  state.status = "complete";
  state.results = { error_summary: [{ message: `Incorrect API key provided: Bearer ${key}` }] };
  const app = createApiApp(
    { ...source, runInfo: () => ({ benchmark_id: key, random_seed: null, cli_command: "x" }) },
    { secrets: [key, `Bearer ${key}`] },
  );
  for (const path of ["/api/results", "/api/run", "/metrics", "/api/metrics"]) {
    const res = await app.request(path);
    assert.equal(res.status, 200, path);
    const text = await res.text();
    assert.ok(!text.includes(key), `${path} leaks the key: ${text}`);
  }
  const results = await (await app.request("/api/results")).json();
  assert.equal(results.results.error_summary[0].message, "Incorrect API key provided: <redacted>");
});

Deno.test("CORS is off by default and on when asked", async () => {
  const { source } = fakeSource();
  const off = await createApiApp(source).request("/api/run", {
    headers: { Origin: "http://evil.example" },
  });
  assert.equal(off.headers.get("access-control-allow-origin"), null);
  await off.body?.cancel();
  const on = await createApiApp(source, { corsOrigins: ["http://dash.local"] }).request(
    "/api/run",
    {
      headers: { Origin: "http://dash.local" },
    },
  );
  assert.equal(on.headers.get("access-control-allow-origin"), "http://dash.local");
  await on.body?.cancel();
});

Deno.test("a throwing source answers 500 and the app keeps serving", async () => {
  const { source } = fakeSource();
  const app = createApiApp({
    ...source,
    snapshot: () => {
      throw new Error("boom http://u:p@h");
    },
  });
  const res = await app.request("/api/metrics");
  assert.equal(res.status, 500);
  const body = await json(res) as { detail: string };
  assert.match(body.detail, /boom/);
  assert.ok(!body.detail.includes("u:p"), "error text is redacted");
  assert.equal((await app.request("/healthz")).status, 200);
});

Deno.test("every documented operation is served", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reprise-api-" });
  try {
    await Deno.writeTextFile(join(dir, "a.json"), "{}");
    const { source } = fakeSource({ artifactDir: dir });
    const app = createApiApp(source);
    for (const op of OPERATIONS) {
      const path = op.path.replace("{path}", "a.json");
      const res = await app.request(path);
      assert.ok(res.status === 200, `${op.path} answered ${res.status}`);
      await res.body?.cancel();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
