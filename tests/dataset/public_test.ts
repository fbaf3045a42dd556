/**
 * Where `--public-dataset sharegpt` looks for its local copy, and the one-line refusals for the
 * names reprise does not read.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "../../src/config/parse.ts";
import { hubCacheDir, resolvePublicDataset, SHAREGPT_SOURCE } from "../../src/dataset/public.ts";

const envOf = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("the hub cache folder follows huggingface_hub's precedence", () => {
  assert.equal(hubCacheDir(envOf({ HF_HUB_CACHE: "/c", HF_HOME: "/h", HOME: "/u" })), "/c");
  assert.equal(hubCacheDir(envOf({ HF_HOME: "/h", HOME: "/u" })), join("/h", "hub"));
  assert.equal(
    hubCacheDir(envOf({ XDG_CACHE_HOME: "/x", HOME: "/u" })),
    join("/x", "huggingface", "hub"),
  );
  assert.equal(hubCacheDir(envOf({ HOME: "/u" })), join("/u", ".cache", "huggingface", "hub"));
  assert.equal(hubCacheDir(envOf({})), undefined);
});

Deno.test("the snapshot refs/main names is preferred to the others", async () => {
  const hub = await Deno.makeTempDir({ prefix: "reprise-pubds-" });
  try {
    const repo = join(hub, "datasets--anon8231489123--ShareGPT_Vicuna_unfiltered");
    for (const rev of ["aaaa", "bbbb"]) {
      await Deno.mkdir(join(repo, "snapshots", rev), { recursive: true });
      await Deno.writeTextFile(join(repo, "snapshots", rev, SHAREGPT_SOURCE.file), "[]");
    }
    await Deno.mkdir(join(repo, "refs"));
    await Deno.writeTextFile(join(repo, "refs", "main"), "bbbb\n");
    const found = await resolvePublicDataset("sharegpt", { env: envOf({ HF_HUB_CACHE: hub }) });
    assert.deepEqual(found, {
      path: join(repo, "snapshots", "bbbb", SHAREGPT_SOURCE.file),
      type: "sharegpt",
    });
    // Without refs/main, any snapshot holding the file does.
    await Deno.remove(join(repo, "refs"), { recursive: true });
    const any = await resolvePublicDataset("sharegpt", { env: envOf({ HF_HUB_CACHE: hub }) });
    assert.equal(any.path, join(repo, "snapshots", "aaaa", SHAREGPT_SOURCE.file));
  } finally {
    await Deno.remove(hub, { recursive: true });
  }
});

Deno.test("--input-file wins over the cache, unread", async () => {
  const found = await resolvePublicDataset("sharegpt", {
    inputFile: "/nowhere/copy.json",
    env: envOf({}),
  });
  assert.deepEqual(found, { path: "/nowhere/copy.json", type: "sharegpt" });
});

Deno.test("a missing copy names both places looked in and how to get it", async () => {
  try {
    await resolvePublicDataset("sharegpt", {
      env: envOf({ HF_HUB_CACHE: "/no/hub", REPRISE_DATASETS: "/no/own" }),
    });
    assert.fail("expected a ConfigError");
  } catch (e) {
    assert.ok(e instanceof ConfigError);
    assert.ok(!e.message.includes("\n"));
    assert.ok(e.message.includes(join("/no/hub", "datasets--anon8231489123--")), e.message);
    assert.ok(e.message.includes(join("/no/own", "sharegpt")), e.message);
    assert.match(e.message, /huggingface-cli download .* --repo-type dataset/);
  }
});

Deno.test("names not read yet, unknown names and a disagreeing type are refused", async () => {
  const env = envOf({});
  for (const name of ["aimo", "librispeech", "mmstar", "speed_bench_coding"]) {
    await assert.rejects(
      resolvePublicDataset(name, { env }),
      (e: Error) =>
        e instanceof ConfigError && e.message.startsWith(`--public-dataset ${name}: not supported`),
    );
  }
  await assert.rejects(
    resolvePublicDataset("imagenet", { env }),
    (e: Error) =>
      e instanceof ConfigError && /not a known dataset; known: sharegpt, /.test(e.message),
  );
  await assert.rejects(
    resolvePublicDataset("sharegpt", { inputFile: "f.json", customType: "single_turn", env }),
    (e: Error) => e instanceof ConfigError && /single_turn disagrees/.test(e.message),
  );
});
