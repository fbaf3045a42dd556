import assert from "node:assert/strict";
import { http1Proxies, proxyBypassWarning, resolveTransport } from "../../src/transport/select.ts";
import { createTransport, send } from "../../src/answer/client.ts";

const none = () => undefined;

Deno.test("resolveTransport: auto picks http1 for http(s) URLs without a proxy", () => {
  assert.equal(
    resolveTransport("auto", "http://127.0.0.1:8000/v1/chat/completions", none),
    "http1",
  );
  assert.equal(
    resolveTransport("auto", "https://api.example.com/v1/chat/completions", none),
    "http1",
  );
});

Deno.test("resolveTransport: auto is http1 through an http:// proxy, fetch for others", () => {
  for (const name of ["HTTP_PROXY", "https_proxy", "ALL_PROXY", "http_proxy"]) {
    const env = (n: string) => (n === name ? "http://proxy:3128" : undefined);
    assert.equal(resolveTransport("auto", "http://127.0.0.1:8000/x", env), "http1", name);
    assert.equal(resolveTransport("auto", "https://api.example.com/x", env), "http1", name);
  }
  // A proxy the HTTP/1.1 client cannot speak to, for the URL's scheme: fetch honours it.
  const socks = (n: string) => (n === "ALL_PROXY" ? "socks5://proxy:1080" : undefined);
  assert.equal(resolveTransport("auto", "http://h/x", socks), "fetch");
  const tlsProxy = (n: string) => (n === "HTTPS_PROXY" ? "https://proxy:3128" : undefined);
  assert.equal(resolveTransport("auto", "https://h/x", tlsProxy), "fetch");
  assert.equal(resolveTransport("auto", "http://h/x", tlsProxy), "http1");
  // NO_PROXY exempting the host leaves nothing to go through.
  const exempt = (n: string) =>
    n === "ALL_PROXY" ? "socks5://proxy:1080" : n === "NO_PROXY" ? ".example.com" : undefined;
  assert.equal(resolveTransport("auto", "http://api.example.com/x", exempt), "http1");
});

Deno.test("resolveTransport: an explicit choice is kept; odd URLs get fetch", () => {
  const proxy = () => "http://proxy:3128";
  assert.equal(resolveTransport("http1", "http://h/x", proxy), "http1");
  assert.equal(resolveTransport("fetch", "http://h/x", none), "fetch");
  assert.equal(resolveTransport("auto", "unix:/tmp/sock", none), "fetch");
  assert.equal(resolveTransport("auto", "not a url", none), "fetch");
});

Deno.test("proxyBypassWarning: only http1 with a proxy it cannot speak to is warned of", () => {
  const set = (name: string, url: string) => (n: string) => n === name ? url : undefined;
  assert.match(
    proxyBypassWarning("http1", "https://h/x", set("https_proxy", "socks5://p:1080")) ?? "",
    /^warning: the proxy set for https:\/\/ URLs \(socks5\) is not one --transport http1 can use/,
  );
  assert.equal(proxyBypassWarning("http1", "http://h/x", set("HTTP_PROXY", "http://p:3128")), null);
  assert.equal(proxyBypassWarning("http1", "http://h/x", none), null);
  assert.equal(proxyBypassWarning("auto", "http://h/x", set("ALL_PROXY", "socks5://p:1")), null);
  assert.equal(proxyBypassWarning("fetch", "http://h/x", set("ALL_PROXY", "socks5://p:1")), null);
});

Deno.test("http1Proxies: the settings the client follows, less proxies it cannot use", () => {
  assert.equal(http1Proxies(none), undefined);
  assert.deepEqual(
    http1Proxies((n) =>
      ({
        HTTP_PROXY: "http://u:p@proxy:3128",
        https_proxy: "socks5://p:1",
        no_proxy: "*.internal",
      })[n]
    ),
    { http: "http://u:p@proxy:3128", noProxy: "*.internal" },
  );
  assert.equal(http1Proxies((n) => (n === "ALL_PROXY" ? "socks5://p:1" : undefined)), undefined);
  // Lower case first, as curl reads them; ALL_PROXY for a scheme with none of its own.
  assert.deepEqual(
    http1Proxies((n) =>
      ({ http_proxy: "http://low:1", HTTP_PROXY: "http://up:1", ALL_PROXY: "http://all:1" })[n]
    ),
    { http: "http://low:1", https: "http://all:1" },
  );
});

Deno.test("createTransport: fetch is send itself; absent means fetch", () => {
  assert.equal(createTransport("fetch").send, send);
  assert.equal(createTransport(undefined).send, send);
  const t = createTransport("http1");
  assert.notEqual(t.send, send);
  t.close();
});
