/**
 * A run opens its slots' connections before its clock starts: every connection the server
 * accepts is accepted before the first request's start, no connection carries a request it was
 * not sent by a record's request, and each phase opens its connections before its own clock.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { rawServer } from "../transport/raw_server.ts";
import { readRecords, runCli } from "./helpers.ts";

const enc = new TextEncoder();

/** A streaming server that notes when (epoch ns) it accepted each connection. */
function server() {
  const event =
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "ok" } }] })}\n\n` +
    "data: [DONE]\n\n";
  const reply = enc.encode(
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n" +
      `content-length: ${enc.encode(event).length}\r\n\r\n${event}`,
  );
  const ids: string[] = [];
  let acceptedBeforeFirst = -1;
  const srv = rawServer(async (conn, request, n) => {
    if (n === 0) acceptedBeforeFirst = srv.accepted();
    ids.push(/x-request-id: *([^\r]*)/i.exec(request)?.[1] ?? "");
    await conn.write(reply);
    return true;
  });
  return { ...srv, ids, acceptedBeforeFirst: () => acceptedBeforeFirst };
}

async function run(url: string, ...more: string[]) {
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli([
      "profile",
      "--url",
      url.replace(/\/v1\/chat\/completions.*$/, ""),
      "--model",
      "m",
      "--streaming",
      "--artifact-dir",
      dir,
      "--ui",
      "none",
      "--transport",
      "http1",
      "--no-server-metrics",
      "--isl",
      "8",
      "--osl",
      "2",
      ...more,
    ]);
    assert.equal(res.code, 0, res.stderr);
    const runs = [];
    for await (const e of Deno.readDir(dir)) if (e.isDirectory) runs.push(e.name);
    return await readRecords(join(dir, runs[0], "profile_export.jsonl"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the slots' connections are open before the first request; one request per record", async () => {
  const s = server();
  try {
    const recs = await run(
      s.url,
      "--concurrency",
      "4",
      "--request-count",
      "12",
      "--export-http-trace",
    );
    assert.equal(recs.length, 12);
    // No request's measured time holds a connect: the first wave took the connections opened
    // ahead (new ones), the later requests kept-alive ones.
    const trace = recs.map((r) => r.metrics as Record<string, { value: number }>);
    for (const m of trace) assert.equal(m.http_req_connecting.value, 0);
    assert.equal(trace.filter((m) => m.http_req_connection_reused.value === 0).length, 4);
    // All four slots' connections were accepted before any request came, and no more opened.
    assert.equal(s.acceptedBeforeFirst(), 4);
    assert.equal(s.accepted(), 4);
    // Each request the server saw is a record's, once.
    const recorded = recs.map((r) => (r.metadata as { x_request_id: string }).x_request_id);
    assert.deepEqual([...s.ids].sort(), [...recorded].sort());
  } finally {
    await s.close();
  }
});

Deno.test("with a warm-up, the profiling phase opens its own connections before its clock starts", async () => {
  const s = server();
  try {
    const recs = await run(
      s.url,
      "--concurrency",
      "3",
      "--request-count",
      "6",
      "--warmup-request-count",
      "3",
      "--export-http-trace",
    );
    // The warm-up's three and the profiling phase's six.
    const phases = recs.map((r) => (r.metadata as { benchmark_phase: string }).benchmark_phase);
    assert.equal(phases.filter((p) => p === "profiling").length, 6);
    assert.equal(recs.length, 9);
    for (const r of recs) {
      assert.equal((r.metrics as Record<string, { value: number }>).http_req_connecting.value, 0);
    }
    assert.equal(s.acceptedBeforeFirst(), 3);
    // Three for the warm-up, three for the profiling phase; nine requests in all.
    assert.equal(s.accepted(), 6);
    assert.equal(s.ids.length, 9);
  } finally {
    await s.close();
  }
});

Deno.test("--connection-reuse-strategy never with --export-http-trace: each later request's connect is recorded apart", async () => {
  const s = server();
  try {
    const recs = await run(
      s.url,
      "--concurrency",
      "2",
      "--request-count",
      "6",
      "--connection-reuse-strategy",
      "never",
      "--export-http-trace",
    );
    assert.equal(recs.length, 6);
    const trace = recs.map((r) => r.metrics as Record<string, { value: number }>);
    // Never reused; the two opened ahead carried the first wave, the other four connected.
    for (const m of trace) assert.equal(m.http_req_connection_reused.value, 0);
    assert.equal(trace.filter((m) => m.http_req_connecting.value > 0).length, 4);
    assert.equal(s.accepted(), 6);
  } finally {
    await s.close();
  }
});

Deno.test("without --export-http-trace, records carry no http_req_ metric", async () => {
  const s = server();
  try {
    const recs = await run(s.url, "--concurrency", "2", "--request-count", "2");
    for (const r of recs) {
      const tags = Object.keys(r.metrics as Record<string, unknown>);
      assert.deepEqual(tags.filter((t) => t.startsWith("http_req_")), []);
    }
  } finally {
    await s.close();
  }
});

Deno.test("--plain-paths preconnect warm-code: the same requests reach the server, the first wave connects in its measured time", async () => {
  const s = server();
  try {
    const recs = await run(
      s.url,
      "--concurrency",
      "3",
      "--request-count",
      "6",
      "--export-http-trace",
      "--plain-paths",
      "preconnect",
      "--plain-paths",
      "warm-code",
    );
    assert.equal(recs.length, 6);
    const recorded = recs.map((r) => (r.metadata as { x_request_id: string }).x_request_id);
    assert.deepEqual([...s.ids].sort(), [...recorded].sort());
    assert.equal(s.accepted(), 3);
    const trace = recs.map((r) => r.metrics as Record<string, { value: number }>);
    assert.equal(trace.filter((m) => m.http_req_connecting.value > 0).length, 3);
  } finally {
    await s.close();
  }
});
