import assert from "node:assert/strict";
import { proxyBypassWarning, resolveTransport } from "../../src/transport/select.ts";
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

Deno.test("resolveTransport: auto falls back to fetch when a proxy is configured", () => {
  for (const name of ["HTTP_PROXY", "https_proxy", "ALL_PROXY"]) {
    const env = (n: string) => (n === name ? "http://proxy:3128" : undefined);
    assert.equal(resolveTransport("auto", "http://127.0.0.1:8000/x", env), "fetch", name);
  }
  // An empty variable sets no proxy.
  assert.equal(
    resolveTransport("auto", "http://h/x", (n) => n === "HTTP_PROXY" ? "" : undefined),
    "http1",
  );
});

Deno.test("resolveTransport: an explicit choice is kept; odd URLs get fetch", () => {
  const proxy = () => "http://proxy:3128";
  assert.equal(resolveTransport("http1", "http://h/x", proxy), "http1");
  assert.equal(resolveTransport("fetch", "http://h/x", none), "fetch");
  assert.equal(resolveTransport("auto", "unix:/tmp/sock", none), "fetch");
  assert.equal(resolveTransport("auto", "not a url", none), "fetch");
});

Deno.test("proxyBypassWarning: only an explicit http1 with a proxy set is warned of", () => {
  const set = (name: string) => (n: string) => n === name ? "http://proxy:3128" : undefined;
  assert.match(
    proxyBypassWarning("http1", set("https_proxy")) ?? "",
    /^warning: https_proxy is set, but --transport http1 does not use a proxy/,
  );
  assert.equal(proxyBypassWarning("http1", none), null);
  assert.equal(proxyBypassWarning("http1", (n) => n === "HTTP_PROXY" ? "" : undefined), null);
  assert.equal(proxyBypassWarning("auto", set("HTTP_PROXY")), null);
  assert.equal(proxyBypassWarning("fetch", set("HTTP_PROXY")), null);
});

Deno.test("createTransport: fetch is send itself; absent means fetch", () => {
  assert.equal(createTransport("fetch").send, send);
  assert.equal(createTransport(undefined).send, send);
  const t = createTransport("http1");
  assert.notEqual(t.send, send);
  t.close();
});
