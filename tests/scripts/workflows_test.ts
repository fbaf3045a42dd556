/** The GitHub workflows are valid YAML and do what the README and the release process promise. */

import assert from "node:assert/strict";
import { parse } from "yaml";

type Step = { uses?: string; run?: string; with?: Record<string, unknown> };
type Job = {
  "runs-on": string;
  needs?: string | string[];
  strategy?: { matrix: { os: string[] } };
  steps: Step[];
  permissions?: Record<string, string>;
};
type Workflow = { on: Record<string, unknown>; jobs: Record<string, Job> };

async function load(name: string): Promise<Workflow> {
  const url = new URL(`../../.github/workflows/${name}`, import.meta.url);
  return parse(await Deno.readTextFile(url), { strict: true, uniqueKeys: true }) as Workflow;
}

function runs(job: Job): string {
  return job.steps.map((s) => s.run ?? "").join("\n");
}

function denoVersions(wf: Workflow): unknown[] {
  return Object.values(wf.jobs).flatMap((j) =>
    j.steps.filter((s) => s.uses?.startsWith("denoland/setup-deno")).map((s) =>
      s.with?.["deno-version"]
    )
  );
}

Deno.test("ci runs the test command on Linux, macOS and Windows with Deno 2.9.6", async () => {
  const ci = await load("ci.yml");
  assert.ok("pull_request" in ci.on);
  const test = ci.jobs.test;
  assert.deepEqual(test.strategy?.matrix.os, ["ubuntu-latest", "macos-latest", "windows-latest"]);
  assert.match(runs(test), /^deno task test$/m);
  assert.ok(denoVersions(ci).every((v) => String(v) === "2.9.6"));
  assert.match(runs(ci.jobs.bundle), /deno task bundle/);
});

Deno.test("release builds every target on a v* tag after the tests, and attaches them", async () => {
  const rel = await load("release.yml");
  assert.deepEqual((rel.on.push as { tags: string[] }).tags, ["v*"]);
  assert.equal(rel.jobs.build.needs, "test");
  assert.equal(rel.jobs.release.needs, "build");
  assert.match(runs(rel.jobs.test), /deno task test/);
  assert.match(runs(rel.jobs.build), /deno task compile\b/);
  assert.match(runs(rel.jobs.build), /sha256sum .*> SHA256SUMS/);
  assert.equal(rel.jobs.release.permissions?.contents, "write");
  assert.match(runs(rel.jobs.release), /gh release (create|upload) "\$GITHUB_REF_NAME" dist\/\*/);
  assert.ok(denoVersions(rel).every((v) => String(v) === "2.9.6"));
});
