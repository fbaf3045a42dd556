import assert from "node:assert/strict";
import { createTransport } from "../../src/answer/client.ts";
import { endpointTransport } from "../../src/answer/media_exchange.ts";
import { getEndpoint } from "../../src/endpoints/mod.ts";
import type { SendOptions } from "../../src/answer/result.ts";

/** A video server whose job goes through `statuses`, one per poll, then stays at the last. */
function videoServer(statuses: (Record<string, unknown> | number)[]) {
  const ac = new AbortController();
  const seen: string[] = [];
  let polls = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} },
    (req) => {
      const path = new URL(req.url).pathname;
      seen.push(`${req.method} ${path} ${req.headers.get("authorization")}`);
      if (req.method === "POST") return Response.json({ id: "video_1", status: "queued" });
      if (path.endsWith("/content")) return new Response(new Uint8Array(10));
      const s = statuses[Math.min(polls++, statuses.length - 1)];
      if (typeof s === "number") {
        return Response.json({ error: { message: "nope" } }, { status: s });
      }
      return Response.json({ id: "video_1", ...s });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1/videos`,
    seen,
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}

function options(url: string, extra: Partial<SendOptions> = {}, download = false): SendOptions {
  return {
    url,
    headers: { "Content-Type": "application/json", Authorization: "Bearer k" },
    body: '{"prompt":"p"}',
    timeoutMs: 10_000,
    streaming: false,
    endpoint: getEndpoint("video_generation", { videoPollMs: 5, downloadVideoContent: download }),
    ...extra,
  };
}

Deno.test("endpointTransport: text endpoints keep their transport as it is", () => {
  const t = createTransport("fetch");
  assert.equal(endpointTransport(t, getEndpoint("chat")), t);
  assert.notEqual(endpointTransport(t, getEndpoint("video_generation")), t);
});

Deno.test("video job: polled until completed, downloaded, the record spanning it all", async () => {
  const server = videoServer([
    { status: "in_progress", progress: 50 },
    { status: "completed", inference_time_s: 1.5, peak_memory_mb: 10 },
  ]);
  try {
    const t = endpointTransport(createTransport("http1"), getEndpoint("video_generation"));
    const r = await t.send(options(server.url, {}, true));
    assert.equal(r.error, null);
    assert.equal(r.responsePerf.length, 1);
    assert.equal(r.responsePerf[0], r.endPerf);
    assert.deepEqual(r.media, {
      videoId: "video_1",
      videoStatus: "completed",
      videoInferenceS: 1.5,
      videoPeakMemoryMb: 10,
      videoBytes: 10,
    });
    // The polls and the download carry the request's headers but its body's type.
    assert.deepEqual(server.seen, [
      "POST /v1/videos Bearer k",
      "GET /v1/videos/video_1 Bearer k",
      "GET /v1/videos/video_1 Bearer k",
      "GET /v1/videos/video_1/content Bearer k",
    ]);
    t.close();
  } finally {
    await server.close();
  }
});

Deno.test("video job: a failed job, a failed poll, a timeout and a cancel are errors", async () => {
  const t = endpointTransport(createTransport("fetch"), getEndpoint("video_generation"));
  const cases: [(Record<string, unknown> | number)[], Partial<SendOptions>, string, number][] = [
    [[{ status: "failed", error: { message: "out of memory" } }], {}, "VideoJobFailed", 502],
    [[500], {}, "HTTPError", 500],
    [[{ status: "in_progress" }], { timeoutMs: 60 }, "Timeout", 408],
  ];
  for (const [statuses, extra, type, code] of cases) {
    const server = videoServer(statuses);
    try {
      const r = await t.send(options(server.url, extra));
      assert.equal(r.error?.type, type, JSON.stringify(r.error));
      assert.equal(r.error?.code, code);
      assert.equal(r.responsePerf.length, 0);
      assert.equal(r.media?.videoId, "video_1");
    } finally {
      await server.close();
    }
  }
  const server = videoServer([{ status: "in_progress" }]);
  try {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    const r = await t.send(options(server.url, { signal: ac.signal }));
    assert.equal(r.cancelled, true);
    assert.equal(r.error?.type, "Cancelled");
  } finally {
    await server.close();
  }
});
