import assert from "node:assert/strict";
import { join } from "node:path";
import { createApiApp } from "../../src/api/app.ts";
import { contentTypeFor, listArtifacts, resolveArtifact } from "../../src/api/files.ts";
import { fakeSource } from "./fake_source.ts";

/** A temp tree: `outside/secret.txt` beside `run/` (the artifact dir) with files, a subdir and links. */
async function makeTree(): Promise<{ base: string; dir: string }> {
  const base = await Deno.makeTempDir({ prefix: "reprise-files-" });
  const dir = join(base, "run");
  await Deno.mkdir(join(dir, "logs"), { recursive: true });
  await Deno.mkdir(join(base, "outside"));
  await Deno.writeTextFile(join(base, "outside", "secret.txt"), "TOP SECRET");
  await Deno.writeTextFile(join(base, "run-sibling.txt"), "SIBLING");
  await Deno.writeTextFile(join(dir, "profile_export_aiperf.json"), '{"a":1}');
  await Deno.writeTextFile(join(dir, "profile_export.jsonl"), "{}\n{}\n");
  await Deno.writeTextFile(join(dir, "profile_export_aiperf.csv"), "Metric,avg\n");
  await Deno.writeTextFile(join(dir, "logs", "reprise.log"), "hello log\n");
  await Deno.writeTextFile(join(dir, "space name %2e.txt"), "spaced");
  await Deno.symlink(join(base, "outside", "secret.txt"), join(dir, "escape.txt"));
  await Deno.symlink(join(base, "outside"), join(dir, "escape_dir"));
  await Deno.symlink(join(dir, "profile_export.jsonl"), join(dir, "inner_link.jsonl"));
  await Deno.symlink(dir, join(dir, "logs", "loop"));
  return { base, dir };
}

Deno.test("artifact listing and download", async (t) => {
  const { base, dir } = await makeTree();
  try {
    const { source, state } = fakeSource({ artifactDir: dir });
    const app = createApiApp(source);

    await t.step(
      "list is recursive, relative, sorted, and never leaves the directory",
      async () => {
        const res = await app.request("/api/results/list");
        assert.equal(res.status, 200);
        const body = await res.json() as { files: { name: string; size: number }[] };
        assert.deepEqual(body.files.map((f) => f.name), [
          "inner_link.jsonl",
          "logs/reprise.log",
          "profile_export.jsonl",
          "profile_export_aiperf.csv",
          "profile_export_aiperf.json",
          "space name %2e.txt",
        ]);
        assert.equal(body.files.find((f) => f.name === "profile_export_aiperf.json")?.size, 7);
        assert.deepEqual(await listArtifacts(dir), body.files);
      },
    );

    await t.step("download with content types", async () => {
      const cases: [string, string, string][] = [
        ["profile_export_aiperf.json", "application/json", '{"a":1}'],
        ["profile_export.jsonl", "application/x-ndjson", "{}\n{}\n"],
        ["profile_export_aiperf.csv", "text/csv; charset=utf-8", "Metric,avg\n"],
        ["logs/reprise.log", "text/plain; charset=utf-8", "hello log\n"],
        ["logs%2Freprise.log", "text/plain; charset=utf-8", "hello log\n"],
        ["space%20name%20%252e.txt", "text/plain; charset=utf-8", "spaced"],
        ["inner_link.jsonl", "application/x-ndjson", "{}\n{}\n"],
      ];
      for (const [path, type, content] of cases) {
        const res = await app.request(`/api/results/files/${path}`);
        assert.equal(res.status, 200, path);
        assert.equal(res.headers.get("content-type"), type, path);
        assert.equal(
          res.headers.get("content-length"),
          String(new TextEncoder().encode(content).length),
        );
        assert.match(res.headers.get("content-disposition") ?? "", /^attachment; filename="/);
        assert.equal(await res.text(), content, path);
      }
    });

    await t.step("escapes are 404 whatever the encoding", async () => {
      const attempts = [
        "../outside/secret.txt",
        "..%2Foutside%2Fsecret.txt",
        "%2e%2e/outside/secret.txt",
        "%2E%2E%2Foutside%2Fsecret.txt",
        "%252e%252e%252foutside%252fsecret.txt",
        "..%252foutside%252fsecret.txt",
        "logs/../../outside/secret.txt",
        "logs%2F..%2F..%2Foutside%2Fsecret.txt",
        "..%5Coutside%5Csecret.txt",
        "logs%5C..%5C..%5Coutside%5Csecret.txt",
        "%2Fetc%2Fpasswd",
        `${encodeURIComponent(join(base, "outside", "secret.txt"))}`,
        "%2F%2Fetc%2Fpasswd",
        "escape.txt",
        "escape_dir/secret.txt",
        "..%2Frun-sibling.txt",
        "..",
        "%2e%2e",
        ".",
        "logs",
        "logs/loop/profile_export.jsonl/..",
        "nul%00.txt",
        "%E0%A4%A",
        "missing.json",
      ];
      for (const a of attempts) {
        const res = await app.request(`/api/results/files/${a}`);
        const text = await res.text();
        assert.equal(res.status, 404, `${a} answered ${res.status}: ${text.slice(0, 40)}`);
        assert.ok(!text.includes("TOP SECRET") && !text.includes("SIBLING"), a);
      }
      // The raw Request too, in case a client sends what URL parsing would normalize.
      const raw = await app.fetch(
        new Request("http://x/api/results/files/.%2e/outside/secret.txt"),
      );
      assert.equal(raw.status, 404);
      await raw.body?.cancel();
    });

    await t.step("a symlink in the artifact path itself still works", async () => {
      const linked = join(base, "linked-run");
      await Deno.symlink(dir, linked);
      state.artifactDir = linked;
      const ok = await app.request("/api/results/files/profile_export_aiperf.json");
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
      const bad = await app.request("/api/results/files/escape.txt");
      assert.equal(bad.status, 404);
      await bad.body?.cancel();
      state.artifactDir = dir;
    });

    await t.step("no artifact directory yet", async () => {
      state.artifactDir = null;
      assert.deepEqual(await (await app.request("/api/results/list")).json(), { files: [] });
      const res = await app.request("/api/results/files/profile_export_aiperf.json");
      assert.equal(res.status, 404);
      await res.body?.cancel();
      state.artifactDir = join(base, "does-not-exist");
      assert.deepEqual(await (await app.request("/api/results/list")).json(), { files: [] });
      state.artifactDir = dir;
    });

    await t.step("resolveArtifact directly", async () => {
      assert.equal(await resolveArtifact(dir, "a\\b"), null);
      assert.equal(await resolveArtifact(dir, "/etc/passwd"), null);
      assert.equal(await resolveArtifact(dir, ""), null);
      const ok = await resolveArtifact(dir, "logs/reprise.log");
      assert.equal(ok?.size, 10);
    });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("contentTypeFor", () => {
  assert.equal(contentTypeFor("x.JSON"), "application/json");
  assert.equal(contentTypeFor("plots/ttft.png"), "image/png");
  assert.equal(contentTypeFor("data.parquet"), "application/vnd.apache.parquet");
  assert.equal(contentTypeFor("noext"), "application/octet-stream");
});
