/**
 * Which transport a run uses: `--transport auto | fetch | http1`, resolved once on the main
 * thread (it alone reads the environment) and carried to Workers in the plan, with the proxy
 * settings the HTTP/1.1 client follows.
 */

import { type ProxySettings, proxySettings, proxyUrlFor, unsupportedProxy } from "./proxy.ts";
import { readEnv } from "../util/env.ts";

/** The `--transport` values. */
export type TransportChoice = "auto" | "fetch" | "http1";

/** A transport a plan names: `auto` already decided. */
export type TransportKind = "fetch" | "http1";

/** The variables a proxy is read from (fetch and the HTTP/1.1 client alike). */
export const PROXY_ENV = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "all_proxy",
];

/**
 * Decides `auto`: the HTTP/1.1 client (about a third of fetch's CPU per request) for `http://`
 * and `https://` URLs, through a proxy when one is set; fetch only for a proxy the client cannot
 * speak to (an `https://` or SOCKS proxy), which fetch honours.
 * @param env reads one variable; undefined when unset or unreadable.
 */
export function resolveTransport(
  choice: TransportChoice,
  url: string,
  env: (name: string) => string | undefined = readEnv,
): TransportKind {
  if (choice !== "auto") return choice;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "fetch";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "fetch";
  return unusableProxy(parsed, proxySettings(env)) === null ? "http1" : "fetch";
}

/**
 * The proxy settings the HTTP/1.1 client follows: those of `env`, less a
 * proxy it cannot speak to (left to fetch; `proxyBypassWarning` says so). Undefined when no
 * proxy is set.
 * @param env reads one variable; undefined when unset or unreadable.
 */
export function http1Proxies(
  env: (name: string) => string | undefined = readEnv,
): ProxySettings | undefined {
  const settings = proxySettings(env);
  if (settings.http && unsupportedProxy(settings.http) !== null) delete settings.http;
  if (settings.https && unsupportedProxy(settings.https) !== null) delete settings.https;
  if (!settings.http && !settings.https) return undefined;
  return settings;
}

/** The scheme of the proxy `url` would go through when the HTTP/1.1 client cannot use it. */
function unusableProxy(url: URL, settings: ProxySettings): string | null {
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const proxy = proxyUrlFor(settings, url.protocol, hostname, port);
  return proxy === null ? null : unsupportedProxy(proxy);
}

/**
 * The warning for `--transport http1` while the proxy set for the URL is one it cannot speak to
 * (`https://` or SOCKS): its requests go straight to the server. Null otherwise.
 * @param env reads one variable; undefined when unset or unreadable.
 */
export function proxyBypassWarning(
  choice: TransportChoice,
  url: string,
  env: (name: string) => string | undefined = readEnv,
): string | null {
  if (choice !== "http1") return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const scheme = unusableProxy(parsed, proxySettings(env));
  if (scheme === null) return null;
  return `warning: the proxy set for ${parsed.protocol}// URLs (${scheme}) is not one ` +
    `--transport http1 can use (it speaks to http:// proxies): requests go straight to the ` +
    `server (--transport fetch or auto send them through it)`;
}
