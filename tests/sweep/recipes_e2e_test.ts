/** The grid recipes end to end: pareto-sweep's frontier file and concurrency-ramp's knee file. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { runCli } from "../e2e/helpers.ts";

Deno.test("pareto-sweep and concurrency-ramp write their post-processed files", async () => {
  const server = await startMockServer({
    slots: 2,
    decodeMs: 1,
    decodeMsPerSeq: 1,
    outputTokens: 4,
  });
  const dir = await Deno.makeTempDir();
  const base = [
    "profile",
    "--url",
    server.url,
    "--model",
    "mock-model",
    "--streaming",
    "--request-count",
    "4",
    "--tokenizer",
    "builtin",
    "--ui",
    "none",
    "--no-server-metrics",
    "--artifact-dir",
    dir,
  ];
  try {
    const p = await runCli([
      ...base,
      "--search-recipe",
      "pareto-sweep",
      "--isl-osl-pairs",
      "16/4, 32/2",
      "--concurrency",
      "1,4",
    ]);
    assert.equal(p.code, 0, p.stderr);
    const root = join(dir, "mock-model-openai-chat-pareto-sweep");
    const pareto = JSON.parse(
      await Deno.readTextFile(join(root, "sweep_aggregate", "pareto_sweep.json")),
    );
    assert.deepEqual(
      pareto.cells.map((
        c: { isl: number; osl: number; concurrency: number },
      ) => [c.isl, c.osl, c.concurrency]),
      [[16, 4, 1], [16, 4, 4], [32, 2, 1], [32, 2, 4]],
    );
    assert.ok(pareto.cells.some((c: { pareto_optimal: boolean }) => c.pareto_optimal));
    await Deno.stat(join(root, "isl_32__osl_2__concurrency_4", "profile_export_aiperf.json"));

    const r = await runCli([
      ...base,
      "--search-recipe",
      "concurrency-ramp",
      "--concurrency-max",
      "4",
      "--concurrency-steps",
      "3",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const knee = JSON.parse(
      await Deno.readTextFile(
        join(
          dir,
          "mock-model-openai-chat-concurrency-ramp",
          "sweep_aggregate",
          "degradation_knee.json",
        ),
      ),
    );
    assert.deepEqual(knee.points.map((x: { concurrency: number }) => x.concurrency), [1, 2, 4]);
    assert.equal(knee.baseline_concurrency, 1);
    assert.match(r.stdout, /knee|no knee/);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
