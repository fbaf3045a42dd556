/**
 * A proxy set in the environment: `--transport auto` sends every request through it (fetch honours
 * HTTP_PROXY), an explicit `--transport http1` goes straight to the server and says so. The CLI
 * runs as a subprocess: fetch takes the proxy from the process environment, which an in-process
 * run cannot set for itself alone.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../../src/mock/server.ts";
import { readRecords, spawnCli } from "./helpers.ts";

const PAYLOADS = fileURLToPath(new URL("../../examples/payloads.jsonl", import.meta.url));

/**
 * A forward proxy for plain HTTP on 127.0.0.1: it notes each request's method and absolute URL
 * and passes the request on, streaming the answer back as it comes.
 */
function startForwardProxy() {
  const seen: string[] = [];
  const direct = Deno.createHttpClient({});
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    seen.push(`${req.method} ${req.url}`);
    const headers = new Headers(req.headers);
    headers.delete("proxy-connection");
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
    async close() {
      await server.shutdown();
      direct.close();
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

/**
 * Runs `reprise profile` with `--transport transport` against a mock answering as `mock`, with
 * HTTP_PROXY naming a forward proxy (NO_PROXY emptied so that 127.0.0.1 is not exempt): what the
 * CLI printed, the requests the proxy saw, and the run's records.
 */
async function runWithProxy(
  transport: string,
  mock: { ttftMs: number; itlMs: number; outputTokens: number },
) {
  const server = await startMockServer(mock);
  const proxy = startForwardProxy();
  const dir = await Deno.makeTempDir();
  try {
    const res = await spawnCli(profileArgs(server.url, dir, transport), {
      env: { HTTP_PROXY: proxy.url, NO_PROXY: "", no_proxy: "" },
    });
    assert.equal(res.code, 0, res.stderr);
    const records = await readRecords(
      join(dir, "Qwen_Qwen3-0.6B-openai-chat-concurrency2", "profile_export.jsonl"),
    );
    return { res, seen: proxy.seen, endpoint: `${server.url}/v1/chat/completions`, records };
  } finally {
    await proxy.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("with HTTP_PROXY set, auto streams every request through the proxy", async () => {
  const { res, seen, endpoint, records } = await runWithProxy("auto", {
    ttftMs: 20,
    itlMs: 2,
    outputTokens: 16,
  });
  assert.match(res.stderr, /transport fetch/);
  assert.doesNotMatch(res.stderr, /does not use a proxy/);
  assert.deepEqual(seen, [1, 2, 3].map(() => `POST ${endpoint}`));
  assert.equal(records.length, 3);
  for (const r of records) {
    assert.equal(r.error, null);
    const m = r.metrics as Record<string, { value: number }>;
    // Streamed through the proxy, not buffered by it: the first token comes after the mock's
    // 20 ms, and the chunks come the mock's 2 ms apart.
    assert.ok(m.time_to_first_token.value >= 19, `TTFT ${m.time_to_first_token.value} ms`);
    assert.ok(
      m.inter_token_latency.value >= 1.5,
      `ITL ${m.inter_token_latency.value} ms against the mock's 2 ms`,
    );
  }
});

Deno.test("with HTTP_PROXY set, --transport http1 goes straight to the server and warns", async () => {
  const { res, seen, records } = await runWithProxy("http1", {
    ttftMs: 5,
    itlMs: 1,
    outputTokens: 8,
  });
  assert.match(
    res.stderr,
    /warning: HTTP_PROXY is set, but --transport http1 does not use a proxy/,
  );
  assert.match(res.stderr, /transport http1/);
  assert.deepEqual(seen, []);
  assert.equal(records.length, 3);
  for (const r of records) assert.equal(r.error, null);
});
