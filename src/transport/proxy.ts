/**
 * Proxies for the HTTP/1.1 client, as curl reads them from the environment: `http_proxy` for
 * `http://` targets, `https_proxy` for `https://` ones, `all_proxy` for either (each also in
 * upper case, the lower case first), and `no_proxy` naming the hosts reached directly. The
 * settings are read once on the main thread and carried to Workers in the plan; the choice is
 * made once per origin, so a direct connection's hot path is unchanged.
 */

import { cidrMatches } from "./cidr.ts";

/** The proxy variables of a run, as read from the environment: absent when unset or empty. */
export interface ProxySettings {
  /** The proxy of `http://` targets (`http_proxy`, else `all_proxy`). */
  http?: string;
  /** The proxy of `https://` targets (`https_proxy`, else `all_proxy`). */
  https?: string;
  /** `no_proxy`: comma-separated hosts, domain suffixes, CIDR ranges, or `*`. */
  noProxy?: string;
}

/** The proxy an origin's connections go through, parsed once. */
export interface Proxy {
  hostname: string;
  port: number;
  /** The `Proxy-Authorization` header line from the proxy URL's userinfo; null without any. */
  authLine: Uint8Array | null;
}

const encoder = new TextEncoder();

/** The first of `names` that is set and not empty. */
function firstSet(
  env: (name: string) => string | undefined,
  names: string[],
): string | undefined {
  for (const name of names) {
    const v = env(name)?.trim();
    if (v) return v;
  }
  return undefined;
}

/**
 * The proxy settings `env` holds (lower-case names first, as curl reads them); each absent when
 * unset or empty.
 */
export function proxySettings(env: (name: string) => string | undefined): ProxySettings {
  const all = firstSet(env, ["all_proxy", "ALL_PROXY"]);
  const http = firstSet(env, ["http_proxy", "HTTP_PROXY"]) ?? all;
  const https = firstSet(env, ["https_proxy", "HTTPS_PROXY"]) ?? all;
  const noProxy = firstSet(env, ["no_proxy", "NO_PROXY"]);
  const out: ProxySettings = {};
  if (http) out.http = http;
  if (https) out.https = https;
  if (noProxy) out.noProxy = noProxy;
  return out;
}

/**
 * True when `no_proxy` exempts host `hostname` (port `port`), as curl reads it: `*` exempts
 * every host; otherwise each comma- or space-separated entry (a leading dot ignored, any case)
 * matches that host and its subdomains, and an entry with a `:port` only that port; a CIDR
 * range (`10.0.0.0/8`, `fd00::/8`) matches a host given as an address inside it (transport/cidr.ts).
 */
export function noProxyMatches(noProxy: string, hostname: string, port: number): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase();
  for (const raw of noProxy.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return true;
    let entryPort: number | null = null;
    const bracketed = /^\[(.*)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
      entry = bracketed[1];
      if (bracketed[2]) entryPort = Number(bracketed[2]);
    } else {
      const withPort = /^([^:]+):(\d+)$/.exec(entry);
      if (withPort) {
        entry = withPort[1];
        entryPort = Number(withPort[2]);
      }
    }
    if (entry.includes("/")) {
      if (cidrMatches(entry, host)) return true;
      continue;
    }
    entry = entry.replace(/^\./, "").replace(/\.$/, "");
    if (entry === "" || (entryPort !== null && entryPort !== port)) continue;
    if (host === entry || host.endsWith(`.${entry}`)) return true;
  }
  return false;
}

/**
 * The proxy URL for a target of `protocol` (`http:` or `https:`) at `hostname:port`, or null
 * for a direct connection (no proxy set, or `no_proxy` exempts the host).
 */
export function proxyUrlFor(
  settings: ProxySettings | undefined,
  protocol: string,
  hostname: string,
  port: number,
): string | null {
  if (settings === undefined) return null;
  const url = protocol === "https:" ? settings.https : settings.http;
  if (!url) return null;
  if (settings.noProxy && noProxyMatches(settings.noProxy, hostname, port)) return null;
  return url;
}

/** A proxy URL as curl takes it: a scheme-less one is `http://`. */
function withScheme(raw: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
}

/**
 * The scheme of proxy URL `raw` when the HTTP/1.1 client cannot speak to it (it speaks to
 * `http://` proxies only: not `https://` or SOCKS ones), or when it is no URL; null when it can.
 */
export function unsupportedProxy(raw: string): string | null {
  try {
    const url = new URL(withScheme(raw));
    return url.protocol === "http:" ? null : url.protocol.replace(/:$/, "");
  } catch {
    return "not a URL";
  }
}

/** Proxy URL `raw` parsed: its address and credentials; throws on one the client cannot use. */
export function parseProxy(raw: string): Proxy {
  const url = new URL(withScheme(raw));
  if (url.protocol !== "http:") {
    throw new TypeError(`a ${url.protocol}// proxy is not supported by --transport http1`);
  }
  let authLine: Uint8Array | null = null;
  if (url.username || url.password) {
    const cred = `${decode(url.username)}:${decode(url.password)}`;
    authLine = encoder.encode(
      `proxy-authorization: Basic ${btoa(String.fromCharCode(...encoder.encode(cred)))}\r\n`,
    );
  }
  return {
    hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port ? Number(url.port) : 80,
    authLine,
  };
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Longest answer head to a CONNECT that is read. */
const MAX_CONNECT_HEAD = 16 * 1024;

/**
 * Opens a tunnel through `proxy` to `host` (`hostname:port`) on `conn`, the connection to the
 * proxy: writes `CONNECT` and reads the proxy's answer head. Throws, with the proxy's status
 * line, when it refuses (any status but 2xx) or closes; the caller closes `conn` then.
 */
export async function openTunnel(conn: Deno.Conn, proxy: Proxy, host: string): Promise<void> {
  const head = encoder.encode(`CONNECT ${host} HTTP/1.1\r\nhost: ${host}\r\n`);
  const auth = proxy.authLine ?? new Uint8Array(0);
  const message = new Uint8Array(head.length + auth.length + 2);
  message.set(head);
  message.set(auth, head.length);
  message.set([13, 10], head.length + auth.length);
  let written = 0;
  while (written < message.length) written += await conn.write(message.subarray(written));
  // The answer head: nothing follows it before the client's TLS hello, so it is read whole.
  const buf = new Uint8Array(MAX_CONNECT_HEAD);
  let end = 0;
  for (;;) {
    const n = await conn.read(buf.subarray(end));
    if (n === null || n === 0) {
      throw new Error(`the proxy closed the connection in answer to CONNECT ${host}`);
    }
    end += n;
    const text = new TextDecoder("latin1").decode(buf.subarray(0, end));
    const at = text.indexOf("\r\n\r\n");
    if (at >= 0) {
      if (at + 4 !== end) {
        throw new Error(`the proxy sent more than its answer to CONNECT ${host}`);
      }
      const status = text.slice(0, text.indexOf("\r\n"));
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(status);
      if (!m) throw new Error(`the proxy answered CONNECT ${host} with ${JSON.stringify(status)}`);
      if (m[1][0] !== "2") {
        throw new Error(`the proxy refused CONNECT ${host}: ${status.slice(9).trim()}`);
      }
      return;
    }
    if (end === buf.length) throw new Error(`the proxy's answer to CONNECT ${host} is too long`);
  }
}
