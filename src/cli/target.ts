/** Where requests go and with which headers, from the config. */

import type { ProfileConfig } from "../config/options.ts";
import { readEnv } from "../util/env.ts";
import { ConfigError } from "../config/parse.ts";
import { keyValues } from "../config/key_values.ts";
import { targetSecrets, urlCredentials } from "../config/redact.ts";
import type { Endpoint } from "../endpoints/types.ts";
import { endpointPath } from "../endpoints/mod.ts";
import { PROXY_ENV } from "../transport/select.ts";

/** The resolved request target. */
export interface Target {
  /** Full request URL (credentials removed); the first of `urls`. */
  url: string;
  /** Every `--url` as a full request URL, in the order given (several: multi-replica runs). */
  urls: string[];
  /** The server's base URL (scheme, host, port), for readiness probes. */
  baseUrl: string;
  headers: Record<string, string>;
  /** Secret values to scrub from any text that leaves the process. */
  secrets: string[];
}

/** Parses `-H` values: `Name: value`, `Name:value`, or a JSON object of headers. */
export function parseHeaders(values: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, value } of keyValues("--header", values, "header names")) {
    out[key] = String(value);
  }
  return out;
}

/**
 * Resolves URL, path and headers. Every `--url` gets the same path; credentials are taken from
 * the first (they become the `Authorization` header every request carries). `env` (default the
 * process's) gives `HF_TOKEN`, a secret too.
 */
export function buildTarget(
  config: ProfileConfig,
  endpoint: Endpoint,
  env: (name: string) => string | undefined = readEnv,
): Target {
  const [first, ...rest] = config.url;
  const one = buildOne({ ...config, url: [first] }, endpoint, env);
  const urls = [one.url];
  const secrets = new Set(one.secrets);
  for (const u of rest) {
    const t = buildOne({ ...config, url: [u] }, endpoint, env);
    urls.push(t.url);
    for (const s of t.secrets) secrets.add(s);
  }
  return { ...one, urls, secrets: [...secrets].sort((a, b) => b.length - a.length) };
}

/** One URL's target. */
function buildOne(
  config: ProfileConfig,
  endpoint: Endpoint,
  env: (name: string) => string | undefined,
): Omit<Target, "urls"> {
  let raw = config.url[0].trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) raw = `http://${raw}`;
  const { url: clean, authorization } = urlCredentials(raw);
  let parsed: URL;
  try {
    parsed = new URL(clean);
  } catch {
    throw new ConfigError(`--url must be a URL such as http://localhost:8000, got "${clean}"`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ConfigError(`--url must use http:// or https://, got "${parsed.protocol}"`);
  }
  const base = clean.replace(/\/+$/, "");
  // TGI streams on its own path; raw's path is "": the URL is used as given.
  const path = config.endpoint ??
    endpointPath(endpoint, config.streaming && endpoint.supportsStreaming);
  const url = path ? base + (path.startsWith("/") ? path : `/${path}`) : base;
  const user = parseHeaders(config.header);
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": "reprise",
  };
  if (authorization) headers["Authorization"] = authorization;
  if (config.apiKey) headers["Authorization"] = `Bearer ${config.apiKey}`;
  for (const [k, v] of Object.entries(user)) {
    for (const existing of Object.keys(headers)) {
      if (existing.toLowerCase() === k.toLowerCase()) delete headers[existing];
    }
    headers[k] = v;
  }
  const secrets = targetSecrets({
    apiKey: config.apiKey,
    url: raw,
    headers,
    hfToken: env("HF_TOKEN"),
    proxies: PROXY_ENV.map(env),
  });
  return { url, baseUrl: `${parsed.protocol}//${parsed.host}`, headers, secrets };
}
