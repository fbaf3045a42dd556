/** What the run's observers make of the telemetry options before anything is scraped. */

import assert from "node:assert/strict";
import { parseConfig } from "../../src/config/profile_config.ts";
import { ConfigError } from "../../src/config/parse.ts";
import { RunObservers } from "../../src/observe/observers.ts";

function observers(...args: string[]): { o: RunObservers; warnings: string[] } {
  const warnings: string[] = [];
  const { values } = parseConfig(["profile", "--model", "m", ...args]);
  const o = new RunObservers(values, {
    baseUrl: "http://127.0.0.1:8000",
    model: "m",
    benchmarkId: "b",
    version: "0",
    warn: (l) => warnings.push(l),
  });
  return { o, warnings };
}

Deno.test("observers: scraper, GPU telemetry and OTLP push as the options ask", () => {
  const on = observers("--otel-url", "localhost", "--gpu-telemetry", "node1:9400");
  assert.deepEqual(on.o.scraper!.endpoints.map((e) => e.url), ["http://127.0.0.1:8000/metrics"]);
  assert.ok(on.o.gpu!.scraper.endpoints.some((e) => e.url === "http://node1:9400/metrics"));
  assert.equal(on.o.gpu!.show, true);
  assert.ok(on.o.otel);
  assert.deepEqual(on.warnings, []);
  const off = observers("--no-server-metrics", "--no-gpu-telemetry");
  assert.equal(off.o.scraper, null);
  assert.equal(off.o.gpu, null);
  assert.equal(off.o.otel, null);
});

Deno.test("observers: parquet asked for is said not to be written, once", () => {
  const { warnings } = observers("--server-metrics-formats", "json", "parquet");
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /parquet server-metrics export is not written/);
});

Deno.test("observers: an unreadable custom-fields CSV is a ConfigError", () => {
  assert.throws(() => observers("--gpu-telemetry", "/nonexistent/fields.csv"), ConfigError);
});

Deno.test("observers: a default DCGM port the run's own API listens on is not tried", () => {
  const urls = (o: RunObservers) => o.gpu!.scraper.endpoints.map((e) => e.url);
  assert.deepEqual(urls(observers().o), [
    "http://localhost:9400/metrics",
    "http://localhost:9401/metrics",
  ]);
  assert.deepEqual(urls(observers("--api-port", "9400").o), ["http://localhost:9401/metrics"]);
});
