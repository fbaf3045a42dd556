/**
 * A proxy set in the environment: `--transport auto` is the HTTP/1.1 client, and it sends every
 * request through the proxy (absolute-form requests, streamed as they come), with the proxy
 * URL's credentials as `Proxy-Authorization` and nowhere in what the run writes; `NO_PROXY`
 * exempts a host. The CLI runs as a subprocess, the proxy coming from the process environment,
 * but for one in-process run whose proxy comes from the environment its `Io` gives.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../../src/mock/server.ts";
import { readRecords, runCli, spawnCli } from "./helpers.ts";

const PAYLOADS = fileURLToPath(new URL("../../examples/payloads.jsonl", import.meta.url));

/**
 * A forward proxy for plain HTTP on 127.0.0.1: it notes each request's method and absolute URL
 * and passes the request on, streaming the answer back as it comes.
 */
function startForwardProxy() {
  const seen: string[] = [];
  const auth: (string | null)[] = [];
  const direct = Deno.createHttpClient({});
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    seen.push(`${req.method} ${req.url}`);
    auth.push(req.headers.get("proxy-authorization"));
    const headers = new Headers(req.headers);
    headers.delete("proxy-connection");
    headers.delete("proxy-authorization");
    const answer = await fetch(req.url, {
      method: req.method,
      headers,
      body: req.body,
      client: direct,
    } as RequestInit);
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    auth,
    closed: null as Promise<void> | null,
    close() {
      this.closed ??= server.shutdown().then(() => direct.close());
      return this.closed;
    },
  };
}

function profileArgs(url: string, dir: string, transport: string): string[] {
  return [
    "profile",
    "--url",
    url,
    "--model",
    "Qwen/Qwen3-0.6B",
    "--input-file",
    PAYLOADS,
    "--custom-dataset-type",
    "raw_payload",
    "--streaming",
    // The server's /metrics would be scraped too: only the benchmark's requests are counted here.
    "--no-server-metrics",
    "--concurrency",
    "2",
    "--transport",
    transport,
    "--artifact-dir",
    dir,
    "--ui",
    "none",
    "-v",
  ];
}

/** Every file under `dir`, as text. */
async function allFiles(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) { for (const [p, t] of await allFiles(path)) out.set(p, t); }
    else if (e.isFile) out.set(path, await Deno.readTextFile(path));
  }
  return out;
}

/**
 * Runs `reprise profile` with `--transport transport` against a mock answering as `mock`, with
 * HTTP_PROXY naming a forward proxy (`userinfo` in its URL; NO_PROXY as `noProxy`, empty by
 * default so that 127.0.0.1 is not exempt): what the CLI printed, the requests the proxy saw,
 * the run's records and every artifact's text.
 */
async function runWithProxy(
  transport: string,
  mock: { ttftMs: number; itlMs: number; outputTokens: number },
  { userinfo = "", noProxy = "" } = {},
) {
  const dir = await Deno.makeTempDir();
  const timingLog = join(dir, "mock_timing.jsonl");
  const server = await startMockServer({ ...mock, timingLog });
  const proxy = startForwardProxy();
  try {
    const res = await spawnCli(profileArgs(server.url, dir, transport), {
      env: {
        HTTP_PROXY: proxy.url.replace("http://", `http://${userinfo}`),
        NO_PROXY: noProxy,
        no_proxy: noProxy,
      },
    });
    assert.equal(res.code, 0, res.stderr);
    const records = await readRecords(
      join(dir, "Qwen_Qwen3-0.6B-openai-chat-concurrency2", "profile_export.jsonl"),
    );
    const artifacts = await allFiles(dir);
    await proxy.close();
    await server.close(); // writes the timing log out
    const sent = new Map(
      (await Deno.readTextFile(timingLog)).split("\n").filter((l) => l).map((l) => {
        const s = JSON.parse(l);
        return [s.request_id as string, s as { first_token_ns: number; last_token_ns: number }];
      }),
    );
    return {
      res,
      seen: proxy.seen,
      auth: proxy.auth,
      endpoint: `${server.url}/v1/chat/completions`,
      records,
      sent,
      artifacts,
    };
  } finally {
    await proxy.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("with HTTP_PROXY set, auto streams every request through the proxy over http1", async () => {
  const { res, seen, endpoint, records, sent } = await runWithProxy("auto", {
    ttftMs: 20,
    itlMs: 4,
    outputTokens: 16,
  });
  assert.match(res.stderr, /transport http1/);
  assert.match(res.stderr, /plan: proxy: http:\/\/ through http:\/\/127\.0\.0\.1:\d+/);
  assert.doesNotMatch(res.stderr, /warning:[^\n]*proxy/);
  assert.equal(records.length, 3);
  // Every request went through the proxy, in absolute form.
  assert.deepEqual(seen, records.map(() => `POST ${endpoint}`));
  for (const r of records) {
    assert.equal(r.error, null);
    const m = r.metrics as Record<string, { value: number }>;
    const meta = r.metadata as { x_request_id: string; request_start_ns: number };
    // The first token comes after the mock's 20 ms.
    assert.ok(m.time_to_first_token.value >= 19, `TTFT ${m.time_to_first_token.value} ms`);
    // Streamed through the proxy, not buffered by it: reprise had the first token before the
    // mock sent the last, 15 tokens 4 ms apart later (an order of events, read from the mock's
    // timing log).
    const log = sent.get(meta.x_request_id);
    assert.ok(log, `the mock logged no answer for ${meta.x_request_id}`);
    const firstSeenNs = meta.request_start_ns + m.time_to_first_token.value * 1e6;
    assert.ok(
      firstSeenNs < log.last_token_ns,
      `first token read ${(firstSeenNs - log.last_token_ns) / 1e6} ms after the last was sent`,
    );
  }
});

Deno.test("the proxy's credentials are sent to it and written nowhere", async () => {
  const password = "pr0xy-Secret-77";
  const basic = btoa(`carol:${password}`);
  const { res, auth, records, artifacts } = await runWithProxy(
    "auto",
    { ttftMs: 5, itlMs: 1, outputTokens: 8 },
    { userinfo: `carol:${password}@` },
  );
  assert.equal(records.length, 3);
  assert.deepEqual(auth, records.map(() => `Basic ${basic}`));
  assert.ok(artifacts.size > 0);
  for (const [path, text] of [...artifacts, ["stdout", res.stdout], ["stderr", res.stderr]]) {
    assert.ok(!text.includes(password), `${path} holds the proxy password`);
    assert.ok(!text.includes(basic), `${path} holds the proxy's Basic credentials`);
  }
});

Deno.test("NO_PROXY naming the server's host sends requests straight to it", async () => {
  const { res, seen, records } = await runWithProxy("auto", {
    ttftMs: 5,
    itlMs: 1,
    outputTokens: 8,
  }, { noProxy: "localhost,127.0.0.1" });
  assert.match(res.stderr, /transport http1/);
  assert.deepEqual(seen, []);
  assert.equal(records.length, 3);
  for (const r of records) assert.equal(r.error, null);
});

Deno.test("an in-process run takes its proxy from the environment its Io gives", async () => {
  const dir = await Deno.makeTempDir();
  const server = await startMockServer({ ttftMs: 1, itlMs: 1, outputTokens: 4 });
  const proxy = startForwardProxy();
  try {
    const res = await runCli(profileArgs(server.url, dir, "auto"), {
      env: { HTTP_PROXY: proxy.url, NO_PROXY: "", no_proxy: "", HF_HUB_OFFLINE: "1" },
    });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /plan: proxy: http:\/\/ through http:\/\/127\.0\.0\.1:\d+/);
    const records = await readRecords(
      join(dir, "Qwen_Qwen3-0.6B-openai-chat-concurrency2", "profile_export.jsonl"),
    );
    assert.equal(records.length, 3);
    assert.deepEqual(proxy.seen, records.map(() => `POST ${server.url}/v1/chat/completions`));
  } finally {
    await proxy.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
