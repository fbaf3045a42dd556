import assert from "node:assert/strict";
import { modelsUrl, NotReadyError, waitForModel } from "../../src/cli/wait_for_model.ts";

/** A server answering `status(n)` to its n-th request (n from 1). */
function serve(status: (n: number) => number) {
  let n = 0;
  const paths: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    paths.push(new URL(req.url).pathname);
    return new Response("{}", { status: status(++n) });
  });
  return { server, paths, url: `http://127.0.0.1:${server.addr.port}`, count: () => n };
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test("modelsUrl appends /v1/models without doubling /v1", () => {
  assert.equal(modelsUrl("http://h:1"), "http://h:1/v1/models");
  assert.equal(modelsUrl("http://h:1/"), "http://h:1/v1/models");
  assert.equal(modelsUrl("http://h:1/v1"), "http://h:1/v1/models");
  assert.equal(modelsUrl("http://h:1/prefix"), "http://h:1/prefix/v1/models");
});

Deno.test("a timeout of 0 skips the wait without a request", async () => {
  const s = serve(() => 200);
  try {
    await waitForModel({ baseUrl: s.url, endpointType: "chat", timeoutS: 0, intervalS: 1 });
    assert.equal(s.count(), 0);
  } finally {
    await s.server.shutdown();
  }
});

Deno.test("an OpenAI-style server is ready at the first 200 from /v1/models", async () => {
  const s = serve((n) => (n < 3 ? 503 : 200));
  try {
    await waitForModel({
      baseUrl: s.url,
      endpointType: "chat",
      headers: { Authorization: "Bearer k", "Content-Type": "application/json" },
      timeoutS: 10,
      intervalS: 0.02,
    });
    assert.equal(s.count(), 3);
    assert.deepEqual(s.paths, ["/v1/models", "/v1/models", "/v1/models"]);
  } finally {
    await s.server.shutdown();
  }
});

Deno.test("for a non-OpenAI endpoint type any HTTP answer means ready", async () => {
  const s = serve(() => 404);
  try {
    await waitForModel({ baseUrl: s.url, endpointType: "raw", timeoutS: 10, intervalS: 0.02 });
    assert.equal(s.count(), 1);
  } finally {
    await s.server.shutdown();
  }
});

Deno.test("a server that starts late is waited for", async () => {
  const port = freePort();
  let server: Deno.HttpServer | null = null;
  const start = setTimeout(() => {
    server = Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, () => new Response("{}"));
  }, 300);
  try {
    const logs: string[] = [];
    await waitForModel({
      baseUrl: `http://127.0.0.1:${port}`,
      endpointType: "chat",
      timeoutS: 20,
      intervalS: 0.05,
      log: (t) => logs.push(t),
    });
    assert.ok(server, "ready before the server started");
    assert.match(logs.join(""), /waiting up to 20 s/);
  } finally {
    clearTimeout(start);
    await (server as Deno.HttpServer | null)?.shutdown();
  }
});

Deno.test("a server that never answers 200 ends in NotReadyError naming the URL and last status", async () => {
  const s = serve(() => 503);
  try {
    await assert.rejects(
      waitForModel({ baseUrl: s.url, endpointType: "chat", timeoutS: 0.3, intervalS: 0.05 }),
      (e: unknown) => {
        assert.ok(e instanceof NotReadyError);
        assert.equal(e.exitCode, 4);
        assert.match(e.message, /\/v1\/models was not ready within 0\.3 s \(last: HTTP 503\)/);
        return true;
      },
    );
    assert.ok(s.count() >= 2, "polled only once");
  } finally {
    await s.server.shutdown();
  }
});

Deno.test("nothing listening ends in NotReadyError", async () => {
  await assert.rejects(
    waitForModel({
      baseUrl: `http://127.0.0.1:${freePort()}`,
      endpointType: "chat",
      timeoutS: 0.3,
      intervalS: 0.05,
    }),
    NotReadyError,
  );
});
