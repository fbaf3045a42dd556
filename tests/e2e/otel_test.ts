/**
 * `--otel-url`: the run's metrics reach a small OTLP/HTTP receiver while it runs, in the GenAI
 * semantic conventions, warmup left out; a collector that cannot be reached costs one warning.
 */

import assert from "node:assert/strict";
import { startMockServer } from "../../src/mock/server.ts";
import { inferProvider, otlpMetricsUrl } from "../../src/observe/otel.ts";
import { runCli } from "./helpers.ts";

function args(url: string, dir: string, ...more: string[]): string[] {
  return [
    "profile",
    "--url",
    url,
    "--model",
    "m",
    "--endpoint-type",
    "chat",
    "--streaming",
    "--synthetic-input-tokens-mean",
    "20",
    "--output-tokens-mean",
    "16",
    "--artifact-dir",
    dir,
    "--no-server-metrics",
    "--no-gpu-telemetry",
    ...more,
  ];
}

interface Attr {
  key: string;
  value: { stringValue?: string; intValue?: string };
}
interface Point {
  attributes: Attr[];
  count?: string;
  sum?: number;
  asInt?: string;
  bucketCounts?: string[];
}
interface Metric {
  name: string;
  unit: string;
  histogram?: { aggregationTemporality: number; dataPoints: Point[] };
  sum?: { isMonotonic: boolean; dataPoints: Point[] };
}

const attrsOf = (p: { attributes: Attr[] }) =>
  Object.fromEntries(p.attributes.map((a) => [a.key, a.value.stringValue ?? a.value.intValue]));

Deno.test("OTLP push: GenAI histograms and request counters of the profiling phase", async () => {
  const bodies: Record<string, unknown>[] = [];
  const auth: (string | null)[] = [];
  const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    assert.equal(new URL(req.url).pathname, "/v1/metrics");
    assert.equal(req.headers.get("content-type"), "application/json");
    auth.push(req.headers.get("authorization"));
    bodies.push(await req.json());
    return Response.json({});
  });
  const server = await startMockServer({ ttftMs: 100, itlMs: 10, outputTokens: 16 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(args(
      server.url,
      dir,
      "--concurrency",
      "2",
      "--request-count",
      "12",
      "--warmup-request-count",
      "3",
      "--otel-url",
      `http://collector:pw-s3cret@127.0.0.1:${receiver.addr.port}`,
      "--otel-resource-attributes",
      "deployment.environment=test",
      "--gen-ai-provider",
      "vllm",
    ));
    assert.equal(res.code, 0, res.stderr);
    assert.ok(!`${res.stdout}${res.stderr}`.includes("pw-s3cret"));
    assert.ok(bodies.length >= 1);
    assert.ok(auth.every((a) => a === `Basic ${btoa("collector:pw-s3cret")}`));
    // The last push holds the final, cumulative figures.
    const last = bodies.at(-1) as {
      resourceMetrics: {
        resource: { attributes: Attr[] };
        scopeMetrics: { metrics: Metric[] }[];
      }[];
    };
    const rm = last.resourceMetrics[0];
    const resource = attrsOf(rm.resource);
    assert.equal(resource["service.name"], "reprise");
    assert.equal(resource["deployment.environment"], "test");
    const metrics = new Map(rm.scopeMetrics[0].metrics.map((m) => [m.name, m]));
    const duration = metrics.get("gen_ai.client.operation.duration")!;
    assert.equal(duration.unit, "s");
    assert.equal(duration.histogram!.aggregationTemporality, 2);
    const points = duration.histogram!.dataPoints;
    assert.equal(points.length, 1);
    assert.deepEqual(attrsOf(points[0]), {
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "m",
      "gen_ai.provider.name": "vllm",
    });
    // Profiling only: 12 requests, the 3 of warmup left out.
    assert.equal(points[0].count, "12");
    assert.equal(points[0].bucketCounts!.reduce((a, b) => a + Number(b), 0), 12);
    const ttft = metrics.get("gen_ai.client.operation.time_to_first_chunk")!.histogram!;
    assert.equal(ttft.dataPoints[0].count, "12");
    const ttftAvg = ttft.dataPoints[0].sum! / 12;
    assert.ok(ttftAvg >= 0.09 && ttftAvg < 1, `TTFT ${ttftAvg} s`);
    assert.ok(metrics.has("gen_ai.client.operation.time_per_output_chunk"));
    const tokens = metrics.get("gen_ai.client.token.usage")!.histogram!.dataPoints;
    const output = tokens.find((p) => attrsOf(p)["gen_ai.token.type"] === "output")!;
    assert.equal(output.count, "12");
    assert.equal(output.sum, 12 * 16);
    const completed = metrics.get("aiperf.timing.requests.completed")!.sum!;
    assert.equal(completed.isMonotonic, true);
    assert.equal(completed.dataPoints[0].asInt, "12");
    assert.equal(metrics.get("aiperf.timing.requests.errors")!.sum!.dataPoints[0].asInt, "0");
  } finally {
    await server.close();
    await receiver.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("OTLP push: --stream metrics leaves the request counters out", async () => {
  const names = new Set<string>();
  const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.json();
    for (const m of body.resourceMetrics[0].scopeMetrics[0].metrics) names.add(m.name);
    return Response.json({});
  });
  const server = await startMockServer({ outputTokens: 4 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(args(
      server.url,
      dir,
      "--request-count",
      "4",
      "--otel-url",
      `127.0.0.1:${receiver.addr.port}`,
      "--stream",
      "metrics",
    ));
    assert.equal(res.code, 0, res.stderr);
    assert.ok(names.has("gen_ai.client.operation.duration"));
    assert.equal([...names].some((n) => n.startsWith("aiperf.timing.")), false);
  } finally {
    await server.close();
    await receiver.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("OTLP push: a collector that cannot be reached costs one warning", async () => {
  // A port that was just free: nothing listens there.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const server = await startMockServer({ outputTokens: 4 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(args(
      server.url,
      dir,
      "--request-count",
      "6",
      "--otel-url",
      `http://127.0.0.1:${port}`,
    ));
    assert.equal(res.code, 0, res.stderr);
    const warnings = res.stderr.split("\n").filter((l) => l.includes("OpenTelemetry"));
    assert.equal(warnings.length, 1, res.stderr);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("OTLP URL and provider: AIPerf's defaults", () => {
  assert.equal(otlpMetricsUrl("localhost"), "http://localhost:4318/v1/metrics");
  assert.equal(otlpMetricsUrl("c:4000"), "http://c:4000/v1/metrics");
  assert.equal(
    otlpMetricsUrl("https://c.example/otlp/v1/metrics"),
    "https://c.example/otlp/v1/metrics",
  );
  assert.equal(inferProvider("api.openai.com"), "openai");
  assert.equal(inferProvider("x.openai.azure.com"), "azure.ai.openai");
  assert.equal(inferProvider("api.anthropic.com"), "anthropic");
  assert.equal(inferProvider("127.0.0.1"), undefined);
});
