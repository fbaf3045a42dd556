/**
 * The SLA search against a plain grid: runs `--search-recipe max-concurrency-under-sla` against
 * the mock's slot model (whose knee is its slot count by construction) for a few slot counts and
 * runs per point, and prints, for each, the concurrency found, the probes and runs the search
 * took, and the runs a grid of the same resolution (every concurrency of the range) takes.
 *
 * deno run -A bench/sweep_search.ts
 */

import { startMockServer } from "../src/mock/server.ts";
import { main } from "../src/cli/main.ts";

const CASES: [slots: number, max: number, runs: number][] = [
  [3, 12, 1],
  [5, 16, 1],
  [8, 32, 1],
  [3, 12, 3],
  [5, 16, 3],
];

console.log("| slots (knee) | range | runs per point | found | probes | search runs | grid runs |");
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const [slots, max, runs] of CASES) {
  const server = await startMockServer({
    slots,
    decodeMs: 6,
    decodeMsPerSeq: 1,
    prefillUsPerToken: 10,
    outputTokens: 16,
  });
  const dir = await Deno.makeTempDir();
  try {
    const code = await main([
      "profile",
      "--url",
      server.url,
      "--model",
      "mock-model",
      "--streaming",
      "--request-count",
      String(Math.max(8, 3 * slots)),
      "--warmup-request-count",
      "2",
      "--isl",
      "32",
      "--osl",
      "16",
      "--artifact-dir",
      dir,
      "--tokenizer",
      "builtin",
      "--ui",
      "none",
      "--no-server-metrics",
      "--search-recipe",
      "max-concurrency-under-sla",
      "--ttft-sla-ms",
      "60",
      "--concurrency-max",
      String(max),
      "--num-profile-runs",
      String(runs),
    ], { stdout: () => {}, stderr: () => {}, env: () => undefined, isTerminal: false });
    if (code !== 0) throw new Error(`search exited ${code}`);
    const h = JSON.parse(
      await Deno.readTextFile(`${dir}/mock-model-openai-chat-search/search_history.json`),
    );
    console.log(
      `| ${slots} | 1..${max} | ${runs} | ${
        h.boundary_summary.feasible_max?.value ?? "-"
      } | ${h.iterations.length} | ${h.run_count} | ${h.grid_equivalent.runs} |`,
    );
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}
