import assert from "node:assert/strict";
import { join } from "node:path";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { startMockServer } from "../../src/mock/server.ts";
import { startCli } from "./helpers.ts";

const PAYLOADS = new URL("../../examples/payloads.jsonl", import.meta.url).pathname;

/** Starts `reprise profile` in-process; its stderr so far, a stop, and its end. */
function startProfile(args: string[]) {
  return startCli(["profile", ...args]);
}

async function waitFor<T>(f: () => T | undefined, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("timed out");
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const r = await fetch(url);
  return { status: r.status, text: await r.text() };
}

Deno.test("the live API follows a run: progress rises, /metrics parses, /readyz turns 503", async () => {
  // 3 payloads asking for 100-200 tokens at 5 ms each, repeated: a run of a few seconds.
  const server = await startMockServer({ ttftMs: 20, itlMs: 5 });
  const dir = await Deno.makeTempDir();
  const run = startProfile([
    "--url",
    server.url,
    "--input-file",
    PAYLOADS,
    "--streaming",
    "--concurrency",
    "2",
    "--request-count",
    "8",
    "--api-port",
    "0",
    "--api-linger-seconds",
    "3",
    "--stats-interval",
    "0.2",
    "--artifact-dir",
    dir,
    "--ui",
    "none",
  ]);
  try {
    const api = await waitFor(
      () => /live API on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stderr())?.[1],
      20_000,
    );
    // 503 while starting (Workers spawning), 200 once requests flow.
    let ready = 0;
    for (let i = 0; i < 200 && ready !== 200; i++) {
      ready = (await get(`${api}/readyz`)).status;
      if (ready !== 200) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(ready, 200);
    const seen: number[] = [];
    let workersInFlight = 0;
    while (seen.length < 200) {
      const p = JSON.parse((await get(`${api}/api/progress`)).text);
      seen.push(p.phases.profiling.completed);
      const w = JSON.parse((await get(`${api}/api/workers`)).text).workers as Record<
        string,
        { in_flight: number; requests: number }
      >;
      const sum = Object.values(w).reduce((n, x) => n + x.in_flight, 0);
      assert.ok(sum <= 2, `more in flight than the concurrency: ${sum}`);
      workersInFlight = Math.max(workersInFlight, sum);
      if (p.phases.profiling.completed >= 8) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(new Set(seen).size >= 3, `progress did not rise gradually: ${seen}`);
    assert.ok(workersInFlight > 0, "no Worker ever reported a request in flight");
    // After the run, within the linger time: final numbers, /readyz 503, results complete.
    let final: { status: string; results?: Record<string, { avg: number }> } = { status: "" };
    for (let i = 0; i < 100 && final.status !== "complete"; i++) {
      final = JSON.parse((await get(`${api}/api/results`)).text);
      if (final.status !== "complete") await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(final.status, "complete");
    assert.equal(final.results!.request_count.avg, 8);
    assert.equal((await get(`${api}/readyz`)).status, 503);
    assert.equal((await get(`${api}/healthz`)).status, 200);
    const metrics = (await get(`${api}/metrics`)).text;
    const families = parsePrometheusTextFormat(metrics) as {
      name: string;
      metrics: { value?: string }[];
    }[];
    const byName = new Map(families.map((f) => [f.name, f]));
    const count = byName.get("aiperf_request_count_avg_requests") ??
      byName.get("aiperf_request_count_requests");
    assert.ok(count, `no request count series in:\n${[...byName.keys()].join("\n")}`);
    assert.equal(Number(count.metrics[0].value), 8);
    const list = JSON.parse((await get(`${api}/api/results/list`)).text);
    const names = list.files.map((f: { name: string }) => f.name);
    assert.ok(names.includes("profile_export_aiperf.json"), names.join(","));
    const out = await run.done();
    assert.equal(out.code, 0, out.stderr);
  } finally {
    run.interrupt();
    await run.done().catch(() => {});
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("secrets given on the command line appear in no artifact, log or API answer", async () => {
  const server = await startMockServer({ outputTokens: 4 });
  const dir = await Deno.makeTempDir();
  const port = server.port;
  const run = startProfile([
    "--api-key",
    "sk-secret-12345",
    "-H",
    "Authorization: Bearer tok-abc",
    "--url",
    `http://user:pw@127.0.0.1:${port}`,
    "--input-file",
    PAYLOADS,
    "--streaming",
    "--api-port",
    "0",
    "--api-linger-seconds",
    "2",
    "--artifact-dir",
    dir,
    "--ui",
    "simple",
  ]);
  const answers: string[] = [];
  try {
    const api = await waitFor(
      () => /live API on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stderr())?.[1],
      20_000,
    );
    let status = "";
    for (let i = 0; i < 200 && status !== "complete"; i++) {
      const r = await get(`${api}/api/results`);
      answers.push(r.text);
      status = JSON.parse(r.text).status;
      if (status !== "complete") await new Promise((r) => setTimeout(r, 50));
    }
    for (
      const path of [
        "/api/config",
        "/api/run",
        "/api/metrics",
        "/metrics",
        "/api/progress",
        "/api/workers",
        "/api/results/list",
      ]
    ) {
      answers.push((await get(api + path)).text);
    }
    const list = JSON.parse((await get(`${api}/api/results/list`)).text);
    for (const f of list.files) {
      answers.push((await get(`${api}/api/results/files/${f.name}`)).text);
    }
    const out = await run.done();
    assert.equal(out.code, 0, out.stderr);
    answers.push(out.stdout, out.stderr);
    const runDir = join(dir, "Qwen_Qwen3-0.6B-openai-chat-concurrency1");
    for await (const e of Deno.readDir(runDir)) {
      if (e.isFile) answers.push(await Deno.readTextFile(join(runDir, e.name)));
    }
    const config = JSON.parse(answers.find((a) => a.includes('"apiHost"')) ?? "{}");
    assert.equal(config.apiKey, undefined);
    const all = answers.join("\n");
    assert.ok(all.includes("profile_export_aiperf.json"), "the answers were collected");
    for (const secret of ["sk-secret-12345", "tok-abc", "pw@", btoa("user:pw")]) {
      assert.ok(!all.includes(secret), `${secret} leaked`);
    }
    assert.equal(server.stats().requests, 3);
  } finally {
    await run.done().catch(() => {});
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
