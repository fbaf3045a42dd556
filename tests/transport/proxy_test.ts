/**
 * The HTTP/1.1 client through a proxy: absolute-form requests to an HTTP proxy on kept-alive
 * connections, `CONNECT` tunnels with TLS inside for `https://` targets, proxy credentials,
 * `NO_PROXY`, and a proxy that refuses a tunnel.
 */
import assert from "node:assert/strict";
import { createHttp1Transport } from "../../src/answer/client.ts";
import type { SendOptions } from "../../src/answer/result.ts";
import { chatEndpoint } from "../../src/endpoints/chat.ts";
import { noProxyMatches, proxySettings, proxyUrlFor } from "../../src/transport/proxy.ts";
import { selfSigned } from "./tls_pair.ts";

const enc = new TextEncoder();

function opts(url: string): SendOptions {
  return {
    url,
    headers: { "content-type": "application/json", "x-request-id": "r1" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true }),
    streaming: true,
    endpoint: chatEndpoint,
    timeoutMs: 5000,
  };
}

const ANSWER = [
  `data: ${
    JSON.stringify({
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: { content: "ok" } }],
    })
  }\n\n`,
  "data: [DONE]\n\n",
].join("");

/** The model server: an SSE answer of one token; counts its requests. */
function upstream(tls?: { cert: string; key: string }) {
  let requests = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {}, ...tls },
    () => {
      requests++;
      return new Response(ANSWER, { headers: { "content-type": "text/event-stream" } });
    },
  );
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${server.addr.port}/v1/chat/completions`,
    port: server.addr.port,
    requests: () => requests,
    close: () => server.shutdown(),
  };
}

/**
 * A forward proxy: notes each request's line and `Proxy-Authorization`, and the client
 * connections it came on, and passes it on.
 */
function forwardProxy() {
  const seen: { line: string; auth: string | null }[] = [];
  const ports = new Set<number>();
  const direct = Deno.createHttpClient({});
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req, info) => {
      ports.add((info.remoteAddr as Deno.NetAddr).port);
      seen.push({ line: `${req.method} ${req.url}`, auth: req.headers.get("proxy-authorization") });
      const headers = new Headers(req.headers);
      headers.delete("proxy-authorization");
      const answer = await fetch(req.url, {
        method: req.method,
        headers,
        body: await req.arrayBuffer(),
        client: direct,
      } as RequestInit);
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    connections: () => ports.size,
    close: () => server.shutdown().then(() => direct.close()),
  };
}

/**
 * A `CONNECT` proxy: answers each tunnel request with `status` (200: then pipes bytes both
 * ways to the host asked for), noting the request heads.
 */
function connectProxy(status = 200) {
  const heads: string[] = [];
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const serving = (async () => {
    for await (const conn of listener) {
      open.add(conn);
      (async () => {
        const buf = new Uint8Array(4096);
        let text = "";
        while (!text.includes("\r\n\r\n")) {
          const n = await conn.read(buf);
          if (n === null) return;
          text += new TextDecoder().decode(buf.subarray(0, n));
        }
        heads.push(text);
        if (status !== 200) {
          await conn.write(enc.encode(`HTTP/1.1 ${status} Forbidden\r\ncontent-length: 0\r\n\r\n`));
          conn.close();
          return;
        }
        const [host, port] = text.split(" ")[1].split(":");
        const up = await Deno.connect({ hostname: host, port: Number(port) });
        open.add(up);
        await conn.write(enc.encode("HTTP/1.1 200 Connection established\r\n\r\n"));
        await Promise.allSettled([
          conn.readable.pipeTo(up.writable),
          up.readable.pipeTo(conn.writable),
        ]);
      })().catch(() => {}).finally(() => open.delete(conn));
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    heads,
    async close() {
      listener.close();
      for (const c of open) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await serving;
    },
  };
}

Deno.test("proxy: http:// targets go through the proxy in absolute form, kept alive", async () => {
  const srv = upstream();
  const proxy = forwardProxy();
  const url = proxy.url.replace("http://", "http://alice:s3cret-pass@");
  const t = createHttp1Transport({ proxies: { http: url } });
  try {
    for (let i = 0; i < 3; i++) {
      const r = await t.send(opts(srv.url));
      assert.equal(r.error, null);
      assert.equal(r.outputText, "ok");
    }
    assert.deepEqual(proxy.seen.map((s) => s.line), [1, 2, 3].map(() => `POST ${srv.url}`));
    for (const s of proxy.seen) assert.equal(s.auth, `Basic ${btoa("alice:s3cret-pass")}`);
    assert.equal(proxy.connections(), 1);
    assert.equal(srv.requests(), 3);
  } finally {
    t.close();
    await proxy.close();
    await srv.close();
  }
});

Deno.test("proxy: NO_PROXY sends the request straight to the server", async () => {
  const srv = upstream();
  const proxy = forwardProxy();
  const t = createHttp1Transport({
    proxies: { http: proxy.url, noProxy: "example.com, 127.0.0.1" },
  });
  try {
    const r = await t.send(opts(srv.url));
    assert.equal(r.error, null);
    assert.equal(r.outputText, "ok");
    assert.deepEqual(proxy.seen, []);
    assert.equal(srv.requests(), 1);
  } finally {
    t.close();
    await proxy.close();
    await srv.close();
  }
});

Deno.test("proxy: https:// targets go through a CONNECT tunnel, TLS inside it", async () => {
  const pair = await selfSigned();
  const srv = upstream({ cert: pair.cert, key: pair.key });
  const proxy = connectProxy();
  const url = proxy.url.replace("http://", "http://bob:tunnel-pass@");
  const t = createHttp1Transport({ caCerts: [pair.ca], proxies: { https: url } });
  try {
    for (let i = 0; i < 3; i++) {
      const r = await t.send(opts(srv.url));
      assert.equal(r.error, null);
      assert.equal(r.outputText, "ok");
    }
    // One tunnel, kept alive for the three requests.
    assert.equal(proxy.heads.length, 1);
    assert.match(proxy.heads[0], new RegExp(`^CONNECT 127\\.0\\.0\\.1:${srv.port} HTTP/1\\.1\r\n`));
    assert.match(
      proxy.heads[0],
      new RegExp(`\r\nproxy-authorization: Basic ${btoa("bob:tunnel-pass")}\r\n`, "i"),
    );
    assert.equal(srv.requests(), 3);
  } finally {
    t.close();
    await proxy.close();
    await srv.close();
  }
});

Deno.test("proxy: a proxy refusing CONNECT is a connection error naming its answer", async () => {
  const pair = await selfSigned();
  const srv = upstream({ cert: pair.cert, key: pair.key });
  const proxy = connectProxy(403);
  const t = createHttp1Transport({ caCerts: [pair.ca], proxies: { https: proxy.url } });
  try {
    const r = await t.send(opts(srv.url));
    assert.equal(r.error?.type, "ConnectionError");
    // Addresses in connection errors are written as `<address>`, as every other one.
    assert.match(r.error?.message ?? "", /the proxy refused CONNECT \S+: 403 Forbidden/);
    assert.equal(srv.requests(), 0);
  } finally {
    t.close();
    await proxy.close();
    await srv.close();
  }
});

Deno.test("noProxyMatches: host and domain-suffix entries, ports, and * as curl reads them", () => {
  assert.ok(noProxyMatches("*", "anything", 80));
  assert.ok(noProxyMatches("example.com", "example.com", 80));
  assert.ok(noProxyMatches("example.com", "api.example.com", 443));
  assert.ok(noProxyMatches(".example.com", "api.example.com", 443));
  assert.ok(noProxyMatches(".example.com", "example.com", 443));
  assert.ok(!noProxyMatches("example.com", "badexample.com", 80));
  assert.ok(noProxyMatches("localhost, 10.0.0.1 ,Example.COM", "example.com", 80));
  assert.ok(noProxyMatches("example.com:8080", "example.com", 8080));
  assert.ok(!noProxyMatches("example.com:8080", "example.com", 80));
  assert.ok(noProxyMatches("[::1]", "[::1]", 80));
  assert.ok(noProxyMatches("::1", "::1", 80));
  assert.ok(!noProxyMatches("", "example.com", 80));
  assert.ok(!noProxyMatches("other.org", "example.com", 80));
});

Deno.test("proxySettings: lower case first, ALL_PROXY for either scheme, empty values unset", () => {
  const env = (vars: Record<string, string>) => (n: string) => vars[n];
  assert.deepEqual(proxySettings(env({})), {});
  assert.deepEqual(proxySettings(env({ HTTP_PROXY: "" })), {});
  assert.deepEqual(
    proxySettings(env({ HTTPS_PROXY: "http://s:1", https_proxy: "http://l:1", NO_PROXY: "a" })),
    { https: "http://l:1", noProxy: "a" },
  );
  assert.deepEqual(proxySettings(env({ all_proxy: "http://all:1" })), {
    http: "http://all:1",
    https: "http://all:1",
  });
});

Deno.test("noProxyMatches: CIDR ranges match IP hosts inside them, never host names", () => {
  assert.ok(noProxyMatches("10.0.0.0/8", "10.1.2.3", 80));
  assert.ok(!noProxyMatches("10.0.0.0/8", "11.0.0.1", 80));
  assert.ok(noProxyMatches("example.com, 192.168.1.0/24", "192.168.1.200", 443));
  assert.ok(!noProxyMatches("192.168.1.0/24", "192.168.2.1", 443));
  assert.ok(noProxyMatches("127.0.0.1/32", "127.0.0.1", 80));
  assert.ok(!noProxyMatches("127.0.0.1/32", "127.0.0.2", 80));
  assert.ok(noProxyMatches("0.0.0.0/0", "8.8.8.8", 80));
  // A name is not resolved to match a range.
  assert.ok(!noProxyMatches("127.0.0.0/8", "localhost", 80));
  assert.ok(noProxyMatches("fd00::/8", "[fd12:3456::1]", 80));
  assert.ok(!noProxyMatches("fd00::/8", "fe80::1", 80));
  assert.ok(noProxyMatches("::1/128", "::1", 80));
  assert.ok(noProxyMatches("::ffff:0:0/96", "::ffff:10.0.0.1", 80));
  // Another family, or a malformed range, matches nothing.
  assert.ok(!noProxyMatches("10.0.0.0/8", "::1", 80));
  assert.ok(!noProxyMatches("10.0.0.0/33", "10.0.0.1", 80));
  assert.ok(!noProxyMatches("10.0.0/8", "10.0.0.1", 80));
});

Deno.test("proxyUrlFor: a CIDR entry in no_proxy sends a host inside it straight to the server", () => {
  const settings = { http: "http://proxy:3128", noProxy: "10.0.0.0/8" };
  assert.equal(proxyUrlFor(settings, "http:", "10.20.30.40", 8000), null);
  assert.equal(proxyUrlFor(settings, "http:", "172.16.0.1", 8000), "http://proxy:3128");
});
