/**
 * Secret redaction, used everywhere a value can leave the process: the stored command line,
 * logs and error messages, `/api/run`, `/api/config` and every artifact.
 *
 * What counts as a secret: `--api-key` values, the values of credential-carrying headers
 * (`SENSITIVE_HEADERS`), URL userinfo (`user:pass@`) and credential-like URL query parameters.
 * Every secret is replaced by `REDACTED` (`<redacted>`).
 *
 * URL userinfo is *replaced* (`http://<redacted>@host/v1`), not removed: the reader still sees
 * that the URL carried credentials, and host, port, path and query are kept as written.
 *
 * Text that may quote a secret (a server's error body echoing the key, an error message) is
 * redacted by value (`redactText` with the run's `targetSecrets`). Values shorter than
 * `MIN_SECRET_LENGTH` characters are not searched for: a one-letter password would otherwise
 * turn every output into `<redacted>`; their longer forms (`Bearer x`, the base64 of `user:x`)
 * still are, and so are the credential patterns (`Authorization: …`, `api_key=…`).
 */

/** The value written in place of every secret. */
export const REDACTED = "<redacted>";

/** Header names (lower case) whose values carry credentials. Compared case-insensitively. */
export const SENSITIVE_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "ocp-apim-subscription-key",
  "x-goog-api-key",
  "x-functions-key",
  "aeg-sas-key",
  "x-amz-security-token",
  "x-auth-token",
  "x-access-token",
  "cookie",
  "set-cookie",
]);

/** True when a header of this name carries a credential (exact name, any case). */
export function isSensitiveHeader(name: string): boolean {
  return SENSITIVE_HEADERS.has(name.trim().toLowerCase());
}

// ---------------------------------------------------------------------------------------------
// URLs

/** `scheme://userinfo@`: userinfo stops at `/ ? #` so an `@` in a path or query never matches. */
const SCHEME_USERINFO = /([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^@/?#\s'"]+)@/g;
/** A scheme-less `user:pass@host` (the whole value must start with it). */
const BARE_USERINFO = /^([^@/?#:\s'"]+:[^@/?#\s'"]*)@/;
/** Query parameters that conventionally carry credentials (whole parameter names only). */
const SENSITIVE_QUERY = new RegExp(
  "([?&;])(" +
    [
      "api[-_]?key",
      "key",
      "token",
      "access[-_]?token",
      "auth[-_]?token",
      "id[-_]?token",
      "refresh[-_]?token",
      "secret",
      "client[-_]?secret",
      "password",
      "passwd",
      "sig",
      "signature",
      "x-amz-signature",
      "x-amz-security-token",
      "x-amz-credential",
      "x-goog-signature",
      "x-goog-credential",
    ].join("|") +
    ")=([^&#\\s'\"]*)",
  "gi",
);

/**
 * A URL with its userinfo replaced by `<redacted>` and credential-like query values
 * (`?key=…`, `&token=…`, `api_key=…`, signatures) redacted; everything else is kept as written.
 * Works on any scheme and on scheme-less `user:pass@host` values.
 */
export function redactUrl(url: string): string {
  let out = url.replace(SCHEME_USERINFO, `$1${REDACTED}@`);
  if (!url.includes("://")) out = out.replace(BARE_USERINFO, `${REDACTED}@`);
  return out.replace(
    SENSITIVE_QUERY,
    (_m, sep: string, name: string, value: string) =>
      value === "" ? `${sep}${name}=` : `${sep}${name}=${REDACTED}`,
  );
}

/**
 * Splits URL userinfo into a Basic `Authorization` value, because fetch refuses URLs that carry
 * credentials. Returns the URL without its userinfo (otherwise unchanged) and, when userinfo was
 * present, `Basic base64(user:pass)` with percent-escapes decoded first.
 */
export function urlCredentials(url: string): { url: string; authorization?: string } {
  let userinfo: string | undefined;
  let stripped = url;
  const withScheme = /^(\s*[A-Za-z][A-Za-z0-9+.-]*:\/\/)([^@/?#]*)@/.exec(url);
  if (withScheme) {
    userinfo = withScheme[2];
    stripped = withScheme[1] + url.slice(withScheme[0].length);
  } else if (!url.includes("://")) {
    const bare = /^(\s*)([^@/?#:\s]+:[^@/?#\s]*)@/.exec(url);
    if (bare) {
      userinfo = bare[2];
      stripped = bare[1] + url.slice(bare[0].length);
    }
  }
  if (userinfo === undefined) return { url };
  const colon = userinfo.indexOf(":");
  const user = decodePercent(colon < 0 ? userinfo : userinfo.slice(0, colon));
  const pass = colon < 0 ? "" : decodePercent(userinfo.slice(colon + 1));
  return { url: stripped, authorization: `Basic ${base64Utf8(`${user}:${pass}`)}` };
}

function decodePercent(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    // A stray `%` is taken literally, as browsers do.
    return s;
  }
}

function base64Utf8(s: string): string {
  let binary = "";
  for (const b of new TextEncoder().encode(s)) binary += String.fromCharCode(b);
  return btoa(binary);
}

// ---------------------------------------------------------------------------------------------
// Headers

/** A copy of a header map with the values of sensitive headers replaced by `<redacted>`. */
export function redactHeaders(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k] = isSensitiveHeader(k) ? REDACTED : v;
  return out;
}

/**
 * Redacts one header given as text: `Name: value`, `Name:value`, `Name=value`, or a JSON object
 * `{"Name":"value",…}`. Headers that are not sensitive are returned unchanged.
 */
export function redactHeaderString(s: string): string {
  const trimmed = s.trim();
  if (trimmed.startsWith("{")) {
    try {
      const obj = JSON.parse(trimmed);
      if (obj && typeof obj === "object" && !Array.isArray(obj)) {
        const entries = Object.entries(obj as Record<string, unknown>);
        if (!entries.some(([k]) => isSensitiveHeader(k))) return s;
        return JSON.stringify(
          Object.fromEntries(entries.map(([k, v]) => [k, isSensitiveHeader(k) ? REDACTED : v])),
        );
      }
    } catch {
      // Not valid JSON: the pattern-based pass below still catches `"Name": "value"` pairs.
      return redactPatterns(s);
    }
  }
  // Header names are RFC 9110 tokens, which contain neither `:` nor `=`.
  const m = /^(\s*)([^:=\s]+)(\s*[:=]\s*)([\s\S]*)$/.exec(s);
  if (!m) return s;
  return isSensitiveHeader(m[2]) ? `${m[1]}${m[2]}${m[3]}${REDACTED}` : s;
}

// ---------------------------------------------------------------------------------------------
// Command line

/** Flags whose value is a secret (compared on the part before any `=`). */
const SECRET_FLAGS = new Set(["--api-key", "--api_key", "--apikey", "--auth-token", "--token"]);
/** Flags whose value is a header. */
const HEADER_FLAGS = new Set(["-H", "--header"]);
/** Flags whose value is a URL that may carry userinfo; `--url`/`-u` accept several values. */
const URL_FLAGS = new Set(["--url", "-u", "--otel-url", "--mlflow-tracking-uri"]);
const MULTI_URL_FLAGS = new Set(["--url", "-u"]);

function isFlag(arg: string): boolean {
  return arg.length >= 2 && arg.startsWith("-") && !/^-\d/.test(arg);
}

/**
 * The command line as it may be stored: `--api-key` values, values of sensitive headers given
 * with `-H`/`--header` (`Name:value`, `Name: value`, `Name=value`, JSON object, the value split
 * over several unquoted words, `--header=…`, `-H…`), and userinfo in `--url`/`-u` values
 * (each of several values) are redacted. Every other argument is returned as given.
 */
export function redactArgs(argv: string[]): string[] {
  const out: string[] = [];
  let pending: "secret" | "header" | "url" | null = null;
  // After `-H Authorization:` (value split into unquoted words) the words up to the next flag.
  let headerTail = false;
  let urlWindow = false;
  let endOfFlags = false;

  for (const arg of argv) {
    if (pending) {
      const kind = pending;
      pending = null;
      if (kind === "secret") {
        out.push(REDACTED);
        continue;
      }
      if (kind === "header") {
        out.push(redactHeaderString(arg));
        headerTail = headerNeedsTail(arg);
        continue;
      }
      out.push(redactUrl(arg));
      continue;
    }
    if (endOfFlags || !isFlag(arg)) {
      if (headerTail) {
        out.push(REDACTED);
        continue;
      }
      out.push(urlWindow ? redactUrl(arg) : redactStrayUrls(arg));
      continue;
    }
    headerTail = false;
    urlWindow = false;
    if (arg === "--") {
      endOfFlags = true;
      out.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const inline = eq < 0 ? null : arg.slice(eq + 1);
    if (SECRET_FLAGS.has(name.toLowerCase())) {
      if (inline === null) pending = "secret";
      out.push(inline === null ? arg : `${name}=${REDACTED}`);
      continue;
    }
    if (HEADER_FLAGS.has(name)) {
      if (inline === null) pending = "header";
      else {
        out.push(`${name}=${redactHeaderString(inline)}`);
        headerTail = headerNeedsTail(inline);
        continue;
      }
      out.push(arg);
      continue;
    }
    // Short option with its value attached: `-HAuthorization:x`.
    if (arg.startsWith("-H") && !arg.startsWith("--") && arg.length > 2 && eq !== 2) {
      const value = arg.slice(2);
      out.push(`-H${redactHeaderString(value)}`);
      headerTail = headerNeedsTail(value);
      continue;
    }
    if (URL_FLAGS.has(name)) {
      if (inline === null) {
        pending = "url";
        urlWindow = MULTI_URL_FLAGS.has(name);
        out.push(arg);
      } else {
        out.push(`${name}=${redactUrl(inline)}`);
      }
      continue;
    }
    out.push(redactStrayUrls(arg));
  }
  return out;
}

/**
 * The stored `cli_command`: `program` and the redacted arguments, each quoted for a POSIX shell
 * when it holds anything but plain characters, so the line can be pasted back into a shell.
 */
export function redactedCommandLine(argv: string[], program = "reprise"): string {
  return [program, ...redactArgs(argv).map(shellQuote)].join(" ");
}

function shellQuote(arg: string): string {
  if (arg !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return "'" + arg.replaceAll("'", "'\\''") + "'";
}

/**
 * A sensitive header given as its name alone (`Authorization:`) or with a scheme word only
 * (`Authorization: Bearer`): its value is in the next unquoted words.
 */
function headerNeedsTail(value: string): boolean {
  const m = /^\s*([^:=\s]+)\s*[:=]?\s*(?:(?:bearer|basic|token|digest)\s*)?$/i.exec(value);
  return m !== null && isSensitiveHeader(m[1]);
}

/** Userinfo of any `scheme://user:pass@` URL inside an argument (a safety net for all flags). */
function redactStrayUrls(s: string): string {
  return s.replace(SCHEME_USERINFO, `$1${REDACTED}@`);
}

// ---------------------------------------------------------------------------------------------
// Free text

const NON_AUTH_HEADER_ALT = [...SENSITIVE_HEADERS]
  .filter((h) => !h.endsWith("authorization"))
  .sort((a, b) => b.length - a.length)
  .map((h) => h.replace(/[-]/g, "\\-"))
  .join("|");

/** `Authorization: Bearer x…` in plain, JSON and repr forms: the whole value up to a quote or end of line. */
const AUTH_PATTERN =
  /(?<![\w-])((?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest)\s+)?)[^'"}\r\n]+/gi;
/** Other credential headers: the value up to whitespace, a separator, a quote or a brace. */
const HEADER_PATTERN = new RegExp(
  `(?<![\\w-])((?:${NON_AUTH_HEADER_ALT})["']?\\s*[:=]\\s*["']?)[^\\s,;'"}]+`,
  "gi",
);
/** `api_key=…`, `token=…`, `secret=…`, `password=…` in text (also `--api-key=…`). */
const ASSIGNMENT_PATTERN =
  /(?<!\w)((?:api[-_]?key|apikey|access[-_]?token|auth[-_]?token|token|secret|client[-_]?secret|password|passwd)\s*=\s*)[^&\s,;'"}]+/gi;

/** `--api-key X` / `--api-key "X"` in a command line written as one string. */
const CLI_KEY_PATTERN = /(--api[-_]?key\s+)("[^"]*"|'[^']*'|[^\s'"]+)/gi;

function redactPatterns(s: string): string {
  return s
    .replace(CLI_KEY_PATTERN, `$1${REDACTED}`)
    .replace(SCHEME_USERINFO, `$1${REDACTED}@`)
    .replace(
      SENSITIVE_QUERY,
      (_m, sep: string, name: string, value: string) =>
        value === "" ? `${sep}${name}=` : `${sep}${name}=${REDACTED}`,
    )
    .replace(AUTH_PATTERN, `$1${REDACTED}`)
    .replace(HEADER_PATTERN, `$1${REDACTED}`)
    .replace(ASSIGNMENT_PATTERN, `$1${REDACTED}`);
}

/**
 * Text (a log line, an error message) with every known secret value replaced by `<redacted>`,
 * wherever it appears, including its percent-encoded form; then credential patterns the run
 * may not know as values (`Authorization: …` headers, URL userinfo, `api_key=…`) are redacted too.
 * Empty secrets are ignored; longer secrets are replaced first so one inside another cannot leak.
 */
export function redactText(s: string, secrets: string[]): string {
  const values = new Set<string>();
  for (const secret of secrets) {
    if (!secret || secret.length < MIN_SECRET_LENGTH) continue;
    values.add(secret);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) values.add(encoded);
  }
  let out = s;
  const sorted = [...values].sort((a, b) => b.length - a.length);
  for (const v of sorted) out = out.split(v).join(REDACTED);
  if (out.includes(CUT)) out = redactCutSecrets(out, sorted);
  return redactPatterns(out);
}

/**
 * Text (a JSON answer, a metrics page) with every known secret value replaced by `<redacted>`,
 * as written, percent-encoded or JSON-escaped; no credential pattern is applied, so the text's
 * own shape is kept. Values shorter than `MIN_SECRET_LENGTH` are ignored.
 */
export function redactValues(s: string, secrets: readonly string[]): string {
  let out = s;
  const forms = new Set<string>();
  for (const v of secrets) {
    if (v.length < MIN_SECRET_LENGTH) continue;
    forms.add(v);
    forms.add(encodeURIComponent(v));
    forms.add(JSON.stringify(v).slice(1, -1));
  }
  for (const v of [...forms].sort((a, b) => b.length - a.length)) {
    if (out.includes(v)) out = out.split(v).join(REDACTED);
  }
  return out;
}

/** Secrets shorter than this are not searched for by value (see the module comment). */
export const MIN_SECRET_LENGTH = 4;

/** The mark `truncate` (endpoints/server_message.ts) leaves where it cut a message. */
const CUT = "…";

/**
 * A message cut short may end inside a secret: the part before each cut mark that is the start
 * of a secret (at least `MIN_SECRET_LENGTH` characters of it) is redacted too.
 */
function redactCutSecrets(s: string, secrets: string[]): string {
  let out = "";
  let from = 0;
  for (let at = s.indexOf(CUT); at >= 0; at = s.indexOf(CUT, at + 1)) {
    let head = s.slice(from, at);
    for (const v of secrets) {
      for (let n = Math.min(v.length - 1, head.length); n >= MIN_SECRET_LENGTH; n--) {
        if (head.endsWith(v.slice(0, n))) {
          head = head.slice(0, head.length - n) + REDACTED;
          break;
        }
      }
    }
    out += head + CUT;
    from = at + CUT.length;
  }
  return out + s.slice(from);
}

/** What the request target holds that is secret, for `targetSecrets`. */
export interface SecretSources {
  /** `--api-key`. */
  apiKey?: string;
  /** The URL as given, userinfo included. */
  url?: string;
  /** The headers sent, user headers included. */
  headers?: Record<string, string>;
  /** `HF_TOKEN`, sent to the Hugging Face Hub when a tokenizer is downloaded. */
  hfToken?: string;
  /** The proxy URLs set (`HTTP_PROXY`…): their userinfo is sent as `Proxy-Authorization`. */
  proxies?: (string | undefined)[];
}

/** Header names whose values are kept secret besides `SENSITIVE_HEADERS` (by value only). */
const SECRET_NAME = /auth|key|token|secret|cookie|session|passw|credential|signature/i;

/**
 * Every value the run must never write or serve: the API key and its `Bearer` form, the URL's
 * and the proxy URLs' userinfo, password and their `Basic` (base64) forms, and the values of
 * credential-carrying headers, with the token after a `Bearer`/`Basic` scheme alone and the `user:password` a
 * `Basic` value encodes. Values shorter than `MIN_SECRET_LENGTH` are left out; longest first.
 */
export function targetSecrets(from: SecretSources): string[] {
  const found = new Set<string>();
  const add = (v: string | undefined) => {
    const t = v?.trim();
    if (t && t.length >= MIN_SECRET_LENGTH) found.add(t);
  };
  const addBasic = (userPass: string) => {
    add(userPass);
    const colon = userPass.indexOf(":");
    if (colon >= 0) add(userPass.slice(colon + 1));
    const b64 = base64Utf8(userPass);
    add(b64);
    add(`Basic ${b64}`);
  };
  const addHeaderValue = (v: string) => {
    add(v);
    const m = /^(bearer|basic|token|digest)\s+(.+)$/i.exec(v.trim());
    if (!m) return;
    add(m[2]);
    if (m[1].toLowerCase() === "basic") {
      try {
        const bytes = Uint8Array.from(atob(m[2].trim()), (c) => c.charCodeAt(0));
        addBasic(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
      } catch {
        // Not base64 text: the value itself is what is kept secret.
      }
    }
  };
  if (from.apiKey) {
    add(from.apiKey);
    add(`Bearer ${from.apiKey.trim()}`);
  }
  if (from.hfToken) {
    add(from.hfToken);
    add(`Bearer ${from.hfToken.trim()}`);
  }
  for (const url of [from.url, ...(from.proxies ?? [])]) {
    if (!url) continue;
    const userinfo = /^\s*(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/)?([^@/?#\s]+)@/.exec(url)?.[1];
    if (userinfo) {
      add(userinfo);
      const colon = userinfo.indexOf(":");
      if (colon >= 0) add(userinfo.slice(colon + 1));
      const user = decodePercent(colon < 0 ? userinfo : userinfo.slice(0, colon));
      const pass = colon < 0 ? "" : decodePercent(userinfo.slice(colon + 1));
      addBasic(`${user}:${pass}`);
    }
  }
  for (const [name, value] of Object.entries(from.headers ?? {})) {
    if (isSensitiveHeader(name) || SECRET_NAME.test(name)) addHeaderValue(value);
  }
  return [...found].sort((a, b) => b.length - a.length);
}

// ---------------------------------------------------------------------------------------------
// Config objects

/** Keys dropped from configs: their value is the API key itself. */
const API_KEY_KEYS = new Set(["api_key", "apikey", "api-key"]);

/**
 * A deep copy of a config object with `api_key`/`apiKey` dropped, sensitive header values
 * redacted (as object keys, `"Name:value"` strings or `[name, value]` pairs inside a `headers`
 * field), URL userinfo redacted in `url`/`urls`/`*_url`/`*Uri` fields and in any `scheme://`
 * string. The input is not modified.
 */
export function redactConfig<T>(obj: T): T {
  return redactValue(obj, "") as T;
}

/** `url`, `urls`, `base_url`, `otelUrl`, `mlflow_tracking_uri`… */
function isUrlKey(key: string): boolean {
  return /(url|uri)s?$/i.test(key);
}

function redactValue(value: unknown, key: string): unknown {
  const k = key.toLowerCase();
  if (typeof value === "string") {
    if (isSensitiveHeader(k)) return REDACTED;
    if (isUrlKey(key)) return redactUrl(value);
    if (/^headers?$/i.test(key)) return redactHeaderString(value);
    return redactStrayUrls(value);
  }
  if (Array.isArray(value)) {
    if (/^headers?$/i.test(key)) {
      return value.map((item) => {
        if (typeof item === "string") return redactHeaderString(item);
        if (Array.isArray(item) && item.length === 2 && typeof item[0] === "string") {
          return [item[0], isSensitiveHeader(item[0]) ? REDACTED : item[1]];
        }
        return redactValue(item, "");
      });
    }
    return value.map((item) => redactValue(item, key));
  }
  if (value && typeof value === "object") {
    if (value instanceof Date || value instanceof RegExp) return value;
    const out: Record<string, unknown> = {};
    for (const [childKey, child] of Object.entries(value as Record<string, unknown>)) {
      if (API_KEY_KEYS.has(childKey.toLowerCase())) continue;
      out[childKey] = redactValue(child, childKey);
    }
    return out;
  }
  return value;
}

/**
 * Every secret value a config holds (API key, sensitive header values, URL userinfo and its
 * password alone), for `redactText`. Walks the same fields `redactConfig` redacts.
 */
export function collectSecrets(obj: unknown): string[] {
  const found = new Set<string>();
  const addHeaderValue = (v: string) => {
    const t = v.trim();
    if (!t) return;
    found.add(t);
    // `Bearer x`: the token alone may appear without its scheme.
    const m = /^(?:bearer|basic|token|digest)\s+(.+)$/i.exec(t);
    if (m) found.add(m[1].trim());
  };
  const addUrl = (u: string, bareOk: boolean) => {
    const m = /^\s*[A-Za-z][A-Za-z0-9+.-]*:\/\/([^@/?#]+)@/.exec(u) ??
      (bareOk && !u.includes("://") ? /^\s*([^@/?#:\s]+:[^@/?#\s]*)@/.exec(u) : null);
    if (!m) return;
    found.add(m[1]);
    const colon = m[1].indexOf(":");
    if (colon >= 0 && colon < m[1].length - 1) {
      const pass = m[1].slice(colon + 1);
      found.add(pass);
      found.add(decodePercent(pass));
    }
    const auth = urlCredentials(u).authorization;
    if (auth) found.add(auth.slice("Basic ".length));
  };
  const walk = (value: unknown, key: string) => {
    const k = key.toLowerCase();
    if (typeof value === "string") {
      if (API_KEY_KEYS.has(k)) {
        if (value) found.add(value);
      } else if (isSensitiveHeader(k)) addHeaderValue(value);
      else if (/^headers?$/.test(k)) {
        const m = /^\s*([^:=\s]+)\s*[:=]\s*([\s\S]*)$/.exec(value);
        if (m && isSensitiveHeader(m[1])) addHeaderValue(m[2]);
      } else addUrl(value, isUrlKey(key));
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) {
        if (Array.isArray(item) && item.length === 2 && typeof item[0] === "string") {
          if (isSensitiveHeader(item[0]) && typeof item[1] === "string") addHeaderValue(item[1]);
          continue;
        }
        walk(item, key);
      }
      return;
    }
    if (value && typeof value === "object") {
      for (const [ck, cv] of Object.entries(value as Record<string, unknown>)) walk(cv, ck);
    }
  };
  walk(obj, "");
  return [...found].filter((s) => s.length > 0);
}
