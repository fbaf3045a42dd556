/** Where the HTTP/1.1 client's requests go: each URL parsed once, its origin and lines. */

import { parseProxy, type Proxy, type ProxySettings, proxyUrlFor } from "./proxy.ts";

/** A request URL as this transport uses it, parsed once per run rather than once per request. */
export interface Target {
  url: URL;
  origin: Origin;
  /**
   * The request line, `POST /path?query HTTP/1.1\r\n`, as bytes; through an HTTP proxy to an
   * `http://` origin, in absolute form (`POST http://host:port/path HTTP/1.1`) and followed by
   * the proxy's `Proxy-Authorization` line when it has credentials.
   */
  line: Uint8Array;
  /** The `Host` header line, written unless the caller gives one. */
  hostLine: Uint8Array;
  /** The `Authorization` line from the URL's credentials (as fetch does); null without any. */
  authLine: Uint8Array | null;
}

/** Where requests go: one pool of idle connections per origin. */
export interface Origin {
  key: string;
  tls: boolean;
  hostname: string;
  port: number;
  /** The `Host` header value. */
  host: string;
  /**
   * The proxy the origin's connections go to (chosen once per origin); null for a direct
   * connection. For a TLS origin, each connection is a `CONNECT` tunnel through it.
   */
  proxy: Proxy | null;
}

const encoder = new TextEncoder();

/** The targets and origins of a transport's requests, by URL. */
export class Targets {
  #targets = new Map<string, Target>();
  #origins = new Map<string, Origin>();
  #proxies: ProxySettings | undefined;

  /** `proxies`: the proxy settings of the run (none: every origin is reached directly). */
  constructor(proxies?: ProxySettings) {
    this.#proxies = proxies;
  }

  /** The target of URL `raw`; throws on a URL this transport cannot send to. */
  of(raw: string): Target {
    const targets = this.#targets;
    let t = targets.get(raw);
    if (t === undefined) {
      const url = new URL(raw);
      const origin = this.#originOf(url);
      let authLine: Uint8Array | null = null;
      if (url.username || url.password) {
        // As fetch does: credentials in the URL become Basic authentication.
        const cred = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
        authLine = encoder.encode(
          `authorization: Basic ${btoa(String.fromCharCode(...encoder.encode(cred)))}\r\n`,
        );
      }
      t = {
        url,
        origin,
        // The path and query are percent-encoded by URL, the host punycoded: ASCII.
        line: requestLine(url, origin),
        hostLine: encoder.encode(`host: ${origin.host}\r\n`),
        authLine,
      };
      // A run sends to one URL or a few: the map only grows without bound if misused.
      if (targets.size >= 256) targets.clear();
      targets.set(raw, t);
    }
    return t;
  }

  #originOf(url: URL): Origin {
    const origins = this.#origins;
    const key = `${url.protocol}//${url.host}`;
    let o = origins.get(key);
    if (!o) {
      const tls = url.protocol === "https:";
      if (!tls && url.protocol !== "http:") {
        throw new TypeError(`unsupported URL scheme ${JSON.stringify(url.protocol)}`);
      }
      // URL keeps IPv6 hosts in brackets; the socket wants them bare.
      const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
      const port = url.port ? Number(url.port) : tls ? 443 : 80;
      const proxy = proxyUrlFor(this.#proxies, url.protocol, hostname, port);
      o = {
        key,
        tls,
        hostname,
        port,
        host: url.host,
        proxy: proxy === null ? null : parseProxy(proxy),
      };
      origins.set(key, o);
    }
    return o;
  }
}

/** The request line of `url` (see `Target.line`). */
function requestLine(url: URL, origin: Origin): Uint8Array {
  const proxy = origin.proxy;
  if (proxy === null || origin.tls) {
    return encoder.encode(`POST ${url.pathname}${url.search} HTTP/1.1\r\n`);
  }
  const line = encoder.encode(`POST http://${url.host}${url.pathname}${url.search} HTTP/1.1\r\n`);
  if (proxy.authLine === null) return line;
  const out = new Uint8Array(line.length + proxy.authLine.length);
  out.set(line);
  out.set(proxy.authLine, line.length);
  return out;
}
