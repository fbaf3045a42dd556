/**
 * A server that quotes the credentials back in its errors: the key, the header and the URL's
 * password must appear in no artifact file, no live API answer, no console output and no report.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startCli } from "./helpers.ts";

const PAYLOADS = new URL("../../examples/payloads.jsonl", import.meta.url).pathname;
const KEY = "sk-test-echoed-0123456789";
const HEADER_KEY = "xk-header-secret-777";
const PASSWORD = "pw-url-secret-55";

/** Every secret form that must never be written or served. */
const FORBIDDEN = [
  KEY,
  HEADER_KEY,
  PASSWORD,
  btoa(`user:${PASSWORD}`),
  // The first characters of the key: a message cut inside the key must not keep them.
  KEY.slice(0, 12),
];

/**
 * Answers each request in turn with: a 401 quoting both credential headers; an `event: error`
 * quoting them; a 401 whose long message is cut (at 500 characters) inside the key; a good
 * stream (so that the run completes and its live API lingers with the results).
 */
function echoServer(): { url: string; requests: () => number; close: () => Promise<void> } {
  let n = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.body?.cancel();
    const auth = req.headers.get("authorization") ?? "";
    const xKey = req.headers.get("x-api-key") ?? "";
    const kind = n++ % 4;
    if (kind === 0) {
      return Response.json(
        { error: { message: `Incorrect API key provided: ${auth} (x-api-key ${xKey})` } },
        { status: 401 },
      );
    }
    if (kind === 1) {
      const msg = JSON.stringify({ error: { message: `bad credentials ${auth} ${xKey}` } });
      return new Response(`event: error\ndata: ${msg}\n\n`, {
        headers: { "content-type": "text/event-stream" },
      });
    }
    if (kind === 2) {
      const pad = "x".repeat(500 - "Bearer ".length - 12);
      return Response.json({ error: { message: `${pad}${auth}` } }, { status: 401 });
    }
    const chunk = JSON.stringify({
      id: "c",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: { content: "hello" }, finish_reason: null }],
    });
    return new Response(`data: ${chunk}\n\ndata: [DONE]\n\n`, {
      headers: { "content-type": "text/event-stream" },
    });
  });
  return {
    url: `http://user:${PASSWORD}@127.0.0.1:${server.addr.port}`,
    requests: () => n,
    close: () => server.shutdown(),
  };
}

async function get(url: string): Promise<string> {
  return await (await fetch(url)).text();
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) out.push(...await filesUnder(path));
    else if (e.isFile) out.push(path);
  }
  return out;
}

function assertClean(where: string, text: string): void {
  for (const secret of FORBIDDEN) {
    assert.ok(!text.includes(secret), `${where} holds "${secret}"`);
  }
}

Deno.test("credentials a server echoes in its errors are written and served nowhere", async () => {
  const server = echoServer();
  const dir = await Deno.makeTempDir();
  const run = startCli([
    "profile",
    "--url",
    server.url,
    "--api-key",
    KEY,
    "-H",
    `x-api-key: ${HEADER_KEY}`,
    "--input-file",
    PAYLOADS,
    "--streaming",
    // The server's /metrics would be scraped too: only the benchmark's requests are counted here.
    "--no-server-metrics",
    "--request-count",
    "12",
    "--api-port",
    "0",
    "--api-linger-seconds",
    "3",
    "--artifact-dir",
    dir,
    "--ui",
    "simple",
    "--verbose",
  ]);
  try {
    let api: string | undefined;
    for (let i = 0; i < 1000 && api === undefined; i++) {
      api = /live API on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stderr())?.[1];
      if (api === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(api, `no live API line in: ${run.stderr()}`);
    let results = "";
    for (let i = 0; i < 400 && !results.includes('"status":"complete"'); i++) {
      results = await get(`${api}/api/results`);
      if (!results.includes('"status":"complete"')) await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(results, /"status":"complete"/);
    assert.match(results, /Incorrect API key provided: <redacted>/);
    assertClean("/api/results", results);
    for (const path of ["/api/config", "/api/run", "/api/metrics", "/metrics", "/api/progress"]) {
      assertClean(path, await get(api + path));
    }
    const out = await run.done();
    assertClean("stdout", out.stdout);
    assertClean("stderr", out.stderr);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(server.requests(), 12);

    const runDir = (await filesUnder(dir)).find((f) => f.endsWith("profile_export.jsonl"));
    assert.ok(runDir, "no profile_export.jsonl");
    const report = join(dir, "report.html");
    const reported = startCli(["report", join(runDir, ".."), "--output", report]);
    assert.equal((await reported.done()).code, 0);

    const files = await filesUnder(dir);
    assert.ok(files.length >= 4, files.join(", "));
    const errors: string[] = [];
    for (const file of files) {
      const text = await Deno.readTextFile(file);
      assertClean(file, text);
      if (file.endsWith("profile_export.jsonl")) {
        for (const line of text.trim().split("\n")) {
          const rec = JSON.parse(line);
          if (rec.error) errors.push(rec.error.message);
        }
      }
    }
    // Three requests in four failed, each message kept but for the secrets.
    assert.equal(errors.length, 9);
    assert.ok(
      errors.some((m) => m.startsWith("Incorrect API key provided: <redacted>")),
      errors[0],
    );
    assert.ok(errors.some((m) => m.startsWith("bad credentials <redacted>")), errors.join("\n"));
    assert.ok(errors.some((m) => /^x+<redacted>…$/.test(m)), errors.join("\n"));
  } finally {
    run.interrupt();
    await run.done().catch(() => {});
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bad headers and counts exit 2 with one line before anything is sent", async () => {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    requests++;
    return new Response("no");
  });
  const dir = await Deno.makeTempDir();
  try {
    const cases: [string[], RegExp][] = [
      [
        ["-H", `Authorization: Bearer ${KEY}\r\nX-Injected: 1`],
        /^error: --header .*carriage return/,
      ],
      [["-H", "X-A: a\nb"], /^error: --header header "X-A" contains a line feed/],
      [["-H", "Bad Name: x"], /^error: --header the header's name contains " "/],
      [["--concurrency", "-3"], /^error: --concurrency must be a positive integer, got "-3"/],
    ];
    for (const [args, re] of cases) {
      const out = await startCli([
        "profile",
        "--url",
        `http://127.0.0.1:${server.addr.port}`,
        "--input-file",
        PAYLOADS,
        "--artifact-dir",
        dir,
        ...args,
      ]).done();
      assert.equal(out.code, 2, `${args.join(" ")}: ${out.stderr}`);
      assert.match(out.stderr, re);
      assert.equal(out.stderr.trimEnd().split("\n").length, 1, out.stderr);
      assertClean("stderr", out.stderr);
    }
    assert.equal(requests, 0);
    assert.deepEqual([...Deno.readDirSync(dir)], [], "nothing was written");
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
