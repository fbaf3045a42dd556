import assert from "node:assert/strict";
import { join } from "node:path";
import { findInCache, type HubEnv, hubEnv, isRepoId } from "../../src/tokenizer/hub.ts";
import { isPlaceholderModel, resolveTokenizer } from "../../src/tokenizer/resolve.ts";
import { TokenizerError } from "../../src/tokenizer/load.ts";
import { startFakeHub } from "./fake_hub.ts";
import { QWEN3_FILES, writeQwen3 } from "./qwen3_files.ts";

const C1 = "1".repeat(40);
const C2 = "2".repeat(40);
const REPO = "Qwen/Qwen3-0.6B";
const TEXT = "Hello world, this is a test";

function hubOf(url: string, cacheDir: string, extra: Partial<HubEnv> = {}): HubEnv {
  return { cacheDir, endpoint: url, offline: false, ...extra };
}

async function withTemp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("resolveTokenizer: a Hub name absent from the cache is downloaded into the Hub's layout, then read from it", async () => {
  const hub = startFakeHub({ [REPO]: { refs: { main: C1 }, files: QWEN3_FILES } });
  try {
    await withTemp(async (cache) => {
      const lines: string[] = [];
      const got = await resolveTokenizer({
        model: REPO,
        env: hubOf(hub.url, cache),
        progress: (l) => lines.push(l),
      });
      assert.deepEqual(got.warnings, []);
      assert.equal(got.tokenizer.name, REPO);
      assert.equal(got.tokenizer.given, false);
      assert.equal(got.tokenizer.count(TEXT), 7);
      assert.equal(lines.length, 1);
      assert.match(lines[0], /^Downloading tokenizer Qwen\/Qwen3-0\.6B .*\n$/);
      // The layout huggingface_hub and transformers read.
      const dir = join(cache, "models--Qwen--Qwen3-0.6B");
      assert.equal(await Deno.readTextFile(join(dir, "refs", "main")), C1);
      for (const f of ["tokenizer.json", "tokenizer_config.json"]) {
        assert.equal(await Deno.readTextFile(join(dir, "snapshots", C1, f)), QWEN3_FILES[f]);
      }
      // tokenizer.json came through the redirect; the commit was read on the way.
      assert.ok(hub.requests.some((r) => r.path.startsWith(`/cdn/${REPO}/${C1}/`)));
      const before = hub.requests.length;
      const again = await resolveTokenizer({
        tokenizer: REPO,
        env: hubOf(hub.url, cache),
        progress: (l) => lines.push(l),
      });
      assert.equal(hub.requests.length, before, "the second run reads the cache only");
      assert.equal(lines.length, 1);
      assert.equal(again.tokenizer.given, true);
      assert.equal(again.tokenizer.count(TEXT), 7);
    });
  } finally {
    await hub.close();
  }
});

Deno.test("resolveTokenizer: --tokenizer-revision picks refs/<rev> or a commit's snapshot", async () => {
  const hub = startFakeHub({
    [REPO]: { refs: { main: C1, v2: C2 }, files: QWEN3_FILES },
  });
  try {
    await withTemp(async (cache) => {
      const env = hubOf(hub.url, cache);
      await resolveTokenizer({ tokenizer: REPO, revision: "v2", env });
      const dir = join(cache, "models--Qwen--Qwen3-0.6B");
      assert.equal(await Deno.readTextFile(join(dir, "refs", "v2")), C2);
      assert.equal(await findInCache(cache, REPO, "v2"), join(dir, "snapshots", C2));
      assert.equal(await findInCache(cache, REPO, C2), join(dir, "snapshots", C2));
      assert.equal(await findInCache(cache, REPO, "main"), null);
      assert.equal(await findInCache(cache, REPO, C1), null);
      // A commit hash as the revision: no ref is written, the snapshot is named by it.
      await resolveTokenizer({ tokenizer: REPO, revision: C1, env });
      assert.equal(await findInCache(cache, REPO, C1), join(dir, "snapshots", C1));
      await assert.rejects(() => Deno.stat(join(dir, "refs", C1)), Deno.errors.NotFound);
    });
  } finally {
    await hub.close();
  }
});

Deno.test("resolveTokenizer: HF_TOKEN goes to the Hub as a Bearer token; a gated repo without it is a clear error", async () => {
  const hub = startFakeHub({
    [REPO]: { refs: { main: C1 }, files: QWEN3_FILES, token: "hf_secret_token_123" },
  });
  try {
    await withTemp(async (cache) => {
      await assert.rejects(
        () => resolveTokenizer({ tokenizer: REPO, env: hubOf(hub.url, cache) }),
        (e: unknown) =>
          e instanceof TokenizerError && /gated or private \(HTTP 401\)/.test(e.message) &&
          /HF_TOKEN/.test(e.message),
      );
      const got = await resolveTokenizer({
        tokenizer: REPO,
        env: hubOf(hub.url, cache, { token: "hf_secret_token_123" }),
      });
      assert.equal(got.tokenizer.count(TEXT), 7);
      const hubAsks = hub.requests.filter((r) => r.path.includes("/resolve/"));
      assert.equal(hubAsks.at(-1)?.authorization, "Bearer hf_secret_token_123");
    });
  } finally {
    await hub.close();
  }
});

Deno.test("resolveTokenizer: an unknown repo is an error for --tokenizer and o200k with a warning for the model name", async () => {
  const hub = startFakeHub({});
  try {
    await withTemp(async (cache) => {
      await assert.rejects(
        () => resolveTokenizer({ tokenizer: "nobody/nothing", env: hubOf(hub.url, cache) }),
        (e: unknown) => e instanceof TokenizerError && /HTTP 404/.test(e.message),
      );
      const got = await resolveTokenizer({ model: "nobody/nothing", env: hubOf(hub.url, cache) });
      assert.equal(got.tokenizer.name, "builtin");
      assert.equal(got.warnings.length, 1);
      assert.match(got.warnings[0], /^warning: tokenizer "nobody\/nothing" .*o200k.*--tokenizer/);
    });
  } finally {
    await hub.close();
  }
});

Deno.test("resolveTokenizer: offline, an uncached name falls back to o200k with one warning naming what to do", async () => {
  await withTemp(async (cache) => {
    const got = await resolveTokenizer({
      tokenizer: REPO,
      env: hubOf("http://127.0.0.1:9", cache, { offline: true }),
    });
    assert.equal(got.tokenizer.name, "builtin");
    assert.equal(got.tokenizer.given, true);
    assert.equal(got.tokenizer.fallbackFrom, REPO);
    assert.equal(got.warnings.length, 1);
    assert.match(got.warnings[0], /HF_HUB_OFFLINE is set/);
    assert.match(got.warnings[0], /huggingface-cli download Qwen\/Qwen3-0\.6B tokenizer\.json/);
    assert.ok(!/[\r\n]/.test(got.warnings[0]));
    // Offline, a cached copy is still used.
    const snap = join(cache, "models--Qwen--Qwen3-0.6B", "snapshots", C1);
    await writeQwen3(snap);
    await Deno.mkdir(join(cache, "models--Qwen--Qwen3-0.6B", "refs"));
    await Deno.writeTextFile(join(cache, "models--Qwen--Qwen3-0.6B", "refs", "main"), C1);
    const cached = await resolveTokenizer({
      tokenizer: REPO,
      env: hubOf("http://127.0.0.1:9", cache, { offline: true }),
    });
    assert.deepEqual(cached.warnings, []);
    assert.equal(cached.tokenizer.name, REPO);
  });
});

Deno.test("resolveTokenizer: an unreachable Hub falls back to o200k with one warning", async () => {
  // A port nothing listens on: the connection is refused at once.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  await withTemp(async (cache) => {
    const got = await resolveTokenizer({
      model: REPO,
      env: hubOf(`http://127.0.0.1:${port}`, cache),
    });
    assert.equal(got.tokenizer.name, "builtin");
    assert.equal(got.warnings.length, 1);
    assert.match(got.warnings[0], /unreachable/);
  });
});

Deno.test("resolveTokenizer: without net permission for the Hub, o200k with a warning naming --allow-net", async () => {
  await withTemp(async (dir) => {
    const script = join(dir, "probe.ts");
    const mod = new URL("../../src/tokenizer/resolve.ts", import.meta.url).href;
    await Deno.writeTextFile(
      script,
      `import { resolveTokenizer } from ${JSON.stringify(mod)};\n` +
        `const r = await resolveTokenizer({ tokenizer: "Qwen/Qwen3-0.6B", env: { cacheDir: ` +
        `${
          JSON.stringify(join(dir, "hub"))
        }, endpoint: "http://127.0.0.2:8999", offline: false } });\n` +
        `console.log(JSON.stringify({ name: r.tokenizer.name, warnings: r.warnings }));\n`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--config",
        new URL("../../deno.json", import.meta.url).pathname,
        "--allow-read",
        "--allow-env",
        "--allow-net=127.0.0.1",
        script,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const got = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(got.name, "builtin");
    assert.equal(got.warnings.length, 1);
    assert.match(got.warnings[0], /no network permission for 127\.0\.0\.2:8999/);
    assert.match(got.warnings[0], /--allow-net=127\.0\.0\.2:8999/);
  });
});

Deno.test("resolveTokenizer: builtin, placeholder model names and local paths need no Hub", async () => {
  const env = hubOf("http://127.0.0.1:9", "/nonexistent", { offline: true });
  for (const model of ["mock-model", "mock", "test-model", "dummy"]) {
    assert.ok(isPlaceholderModel(model), model);
    const got = await resolveTokenizer({ model, env });
    assert.equal(got.tokenizer.name, "builtin");
    assert.deepEqual(got.warnings, []);
  }
  assert.ok(!isPlaceholderModel("Qwen/Qwen3-0.6B"));
  assert.equal(
    (await resolveTokenizer({ tokenizer: "builtin", model: REPO, env })).tokenizer.name,
    "builtin",
  );
  assert.equal((await resolveTokenizer({ env })).tokenizer.name, "builtin");
  // A model name that cannot be a repository names no tokenizer.
  assert.ok(!isRepoId("org:model@rev"));
  const odd = await resolveTokenizer({ model: "org:model@rev", env });
  assert.equal(odd.tokenizer.name, "builtin");
  assert.deepEqual(odd.warnings, []);
  await withTemp(async (dir) => {
    await writeQwen3(dir);
    const got = await resolveTokenizer({ tokenizer: dir, env });
    assert.equal(got.tokenizer.count(TEXT), 7);
  });
});

Deno.test("hubEnv: HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub; HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE", async () => {
  // The environment is the process's: read it in a child so parallel tests are not disturbed.
  const mod = new URL("../../src/tokenizer/hub.ts", import.meta.url).href;
  const run = async (env: Record<string, string>) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `import { hubEnv } from ${JSON.stringify(mod)}; console.log(JSON.stringify(hubEnv()))`,
      ],
      env: { HOME: "/home/u", ...env },
      clearEnv: true,
      stdout: "piped",
    }).output();
    return JSON.parse(new TextDecoder().decode(out.stdout)) as HubEnv;
  };
  const plain = await run({});
  assert.equal(plain.cacheDir, "/home/u/.cache/huggingface/hub");
  assert.equal(plain.endpoint, "https://huggingface.co");
  assert.equal(plain.offline, false);
  assert.equal(plain.token, undefined);
  assert.equal((await run({ HF_HOME: "/h" })).cacheDir, "/h/hub");
  const all = await run({
    HF_HOME: "/h",
    HF_HUB_CACHE: "/c",
    HF_ENDPOINT: "http://127.0.0.1:5/",
    HF_TOKEN: "hf_x",
    HF_HUB_OFFLINE: "1",
  });
  assert.deepEqual(all, {
    cacheDir: "/c",
    endpoint: "http://127.0.0.1:5",
    token: "hf_x",
    offline: true,
  });
  // The parent's own reading agrees in shape.
  assert.equal(typeof hubEnv().cacheDir, "string");
});
