/**
 * Which transport a run uses: `--transport auto | fetch | http1`, resolved once on the main
 * thread (it alone reads the environment) and carried to Workers in the plan.
 */

/** The `--transport` values. */
export type TransportChoice = "auto" | "fetch" | "http1";

/** A transport a plan names: `auto` already decided. */
export type TransportKind = "fetch" | "http1";

/** The variables fetch reads a proxy from; the HTTP/1.1 client does not speak to proxies. */
export const PROXY_ENV = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "all_proxy",
];

/**
 * Decides `auto`: the HTTP/1.1 client (several times cheaper per streamed event) for plain
 * `http://` and `https://` URLs, fetch when a proxy is configured, since fetch honours it.
 * @param env reads one variable; undefined when unset or unreadable.
 */
export function resolveTransport(
  choice: TransportChoice,
  url: string,
  env: (name: string) => string | undefined = readEnv,
): TransportKind {
  if (choice !== "auto") return choice;
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    return "fetch";
  }
  if (protocol !== "http:" && protocol !== "https:") return "fetch";
  for (const name of PROXY_ENV) if (env(name)) return "fetch";
  return "http1";
}

/**
 * The warning for `--transport http1` while a proxy variable is set: the HTTP/1.1 client goes
 * straight to the server, which a user who set a proxy may not expect. Null otherwise, and when
 * the variables cannot be read without a prompt.
 * @param env reads one variable; undefined when unset or unreadable.
 */
export function proxyBypassWarning(
  choice: TransportChoice,
  env: (name: string) => string | undefined = (name) => envValue(name, undefined),
): string | null {
  if (choice !== "http1") return null;
  const name = PROXY_ENV.find((n) => env(n));
  if (name === undefined) return null;
  return `warning: ${name} is set, but --transport http1 does not use a proxy: requests go ` +
    `straight to the server (--transport fetch or auto sends them through the proxy)`;
}

/** Reads a variable without prompting; an unreadable one counts as set (fetch is the safe pick). */
function readEnv(name: string): string | undefined {
  return envValue(name, "unknown");
}

/** A variable's value, or `unreadable` when reading it would prompt or is denied. */
function envValue(name: string, unreadable: string | undefined): string | undefined {
  try {
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
      return unreadable;
    }
    return Deno.env.get(name);
  } catch {
    return unreadable;
  }
}
