/**
 * Hugging Face tokenizers by name (`--tokenizer Qwen/Qwen3-0.6B`): found in the standard Hub
 * cache (`HF_HUB_CACHE`, else `HF_HOME/hub`, else `~/.cache/huggingface/hub`) with the Hub's own
 * layout, so a model fetched once by `huggingface-cli`, `transformers` or reprise is found by all
 * of them; fetched into that cache from `HF_ENDPOINT` when absent and the network is allowed.
 * Only `tokenizer.json` and `tokenizer_config.json` are read or fetched: data, never code.
 */

import { dirname, join } from "node:path";
import { readEnv } from "../util/env.ts";
import { readTextIfExists } from "../util/files.ts";

/** The files reprise reads from a model repository; the first one is required. */
export const TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json"] as const;

/** Where and how the Hub is reached, read from the environment (see {@link hubEnv}). */
export interface HubEnv {
  /** The cache folder holding `models--ORG--NAME` folders. */
  cacheDir: string;
  /** Base URL of the Hub, without a trailing slash. */
  endpoint: string;
  /** `HF_TOKEN`, sent as a Bearer token; a secret. */
  token?: string;
  /** `HF_HUB_OFFLINE` is set: never reach the network. */
  offline: boolean;
}

/**
 * Reads the Hub's settings as `huggingface_hub` does, from `get` (the CLI's environment; default
 * the process's). HOME, when `get` has none, is the process's.
 */
export function hubEnv(get: (name: string) => string | undefined = readEnv): HubEnv {
  const read = (name: string) => {
    const v = get(name);
    return v === undefined || v === "" ? undefined : v;
  };
  const own = (name: string) => readEnv(name) || undefined;
  const home = read("HOME") ?? own("HOME") ?? read("USERPROFILE") ?? own("USERPROFILE") ?? ".";
  const hfHome = read("HF_HOME") ??
    join(read("XDG_CACHE_HOME") ?? join(home, ".cache"), "huggingface");
  const offline = (read("HF_HUB_OFFLINE") ?? "").toLowerCase();
  return {
    cacheDir: read("HF_HUB_CACHE") ?? join(hfHome, "hub"),
    endpoint: (read("HF_ENDPOINT") ?? "https://huggingface.co").replace(/\/+$/, ""),
    token: read("HF_TOKEN"),
    offline: ["1", "true", "yes", "on"].includes(offline),
  };
}

/** Whether a name has the shape of a Hub repository id (`name` or `org/name`). */
export function isRepoId(name: string): boolean {
  return /^(?:[A-Za-z0-9][\w.-]*\/)?[A-Za-z0-9][\w.-]*$/.test(name) && !name.includes("..");
}

/** The cache folder of a model repository: `models--ORG--NAME`. */
export function repoCacheDir(cacheDir: string, repo: string): string {
  return join(cacheDir, `models--${repo.replaceAll("/", "--")}`);
}

const COMMIT = /^[0-9a-f]{40}$/;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/**
 * The snapshot folder holding `repo`'s `tokenizer.json` at `revision` (a branch or tag through
 * `refs/<revision>`, or a commit hash), or null when the cache does not hold it.
 */
export async function findInCache(
  cacheDir: string,
  repo: string,
  revision: string,
): Promise<string | null> {
  const dir = repoCacheDir(cacheDir, repo);
  let commit = revision;
  if (!COMMIT.test(revision)) {
    const ref = await readTextIfExists(join(dir, "refs", revision));
    if (ref === null) return null;
    commit = ref.trim();
  }
  const snap = join(dir, "snapshots", commit);
  return (await exists(join(snap, TOKENIZER_FILES[0]))) ? snap : null;
}

/** The Hub answered that the repository or file cannot be had; the message says why. */
export class HubError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = "HubError";
  }
}

/** The Hub could not be reached (offline, no permission, network failure); fall back. */
export class HubUnreachable extends Error {
  constructor(message: string, readonly permission = false) {
    super(message);
    this.name = "HubUnreachable";
  }
}

/** How long one file's download may take before the Hub counts as unreachable. */
const DOWNLOAD_TIMEOUT_MS = 60_000;

interface Fetched {
  body: Uint8Array | null;
  commit?: string;
}

function commitOf(res: Response): string | undefined {
  const h = res.headers.get("x-repo-commit")?.trim();
  if (h && COMMIT.test(h)) return h;
  const loc = res.headers.get("location") ?? "";
  return /\/([0-9a-f]{40})(?:\/|$)/.exec(loc)?.[1];
}

/** One file of the repository, following redirects by hand to read the commit on the way. */
async function fetchFile(
  env: HubEnv,
  repo: string,
  revision: string,
  file: string,
): Promise<Fetched> {
  let url = `${env.endpoint}/${repo}/resolve/${encodeURIComponent(revision)}/${file}`;
  const first = new URL(url).origin;
  let commit: string | undefined;
  const signal = AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS);
  for (let hop = 0; hop < 5; hop++) {
    const headers: Record<string, string> = { "user-agent": "reprise" };
    // The token goes to the Hub only, never to a CDN it redirects to.
    if (env.token && new URL(url).origin === first) headers.authorization = `Bearer ${env.token}`;
    let res: Response;
    try {
      res = await fetch(url, { headers, redirect: "manual", signal });
    } catch (e) {
      if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
        throw new HubUnreachable(`no network permission for ${new URL(url).host}`, true);
      }
      throw new HubUnreachable(`${new URL(url).host} is unreachable (${(e as Error).message})`);
    }
    commit ??= commitOf(res);
    if (res.status >= 300 && res.status < 400 && res.headers.has("location")) {
      await res.body?.cancel();
      url = new URL(res.headers.get("location")!, url).href;
      continue;
    }
    if (res.status === 404 && file !== TOKENIZER_FILES[0]) {
      await res.body?.cancel();
      return { body: null, commit };
    }
    if (!res.ok) {
      await res.body?.cancel();
      const why = res.status === 401 || res.status === 403
        ? `is gated or private (HTTP ${res.status}): set HF_TOKEN to a token with access`
        : res.status === 404
        ? `has no ${file} at revision "${revision}" (HTTP 404): check the name and ` +
          `--tokenizer-revision, or pass a local tokenizer.json`
        : `answered HTTP ${res.status} for ${file}`;
      throw new HubError(`tokenizer "${repo}" ${why}`, res.status);
    }
    try {
      return { body: new Uint8Array(await res.arrayBuffer()), commit };
    } catch (e) {
      throw new HubUnreachable(`the download of ${file} failed (${(e as Error).message})`);
    }
  }
  throw new HubError(`tokenizer "${repo}": too many redirects for ${file}`);
}

/** Whether this process may connect to `host`, asked without prompting anyone. */
async function netAllowed(host: string): Promise<boolean> {
  try {
    return (await Deno.permissions.query({ name: "net", host })).state === "granted";
  } catch {
    return true; // The fetch itself will say.
  }
}

async function writeAtomic(path: string, data: Uint8Array): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${crypto.randomUUID()}.incomplete`;
  await Deno.writeFile(tmp, data);
  await Deno.rename(tmp, path);
}

/** What a download gave: the files, and where they were saved (null when they could not be). */
export interface Downloaded {
  files: Map<string, Uint8Array>;
  snapshot: string | null;
  /** Why the files could not be saved in the cache, if they could not. */
  saveError?: string;
}

/**
 * Downloads the tokenizer files of `repo` at `revision` into the cache's layout
 * (`snapshots/<commit>/<file>`, `refs/<revision>` holding the commit). `progress` gets one line.
 * Throws {@link HubUnreachable} when the Hub cannot be reached, {@link HubError} when it refuses.
 */
export async function downloadTokenizer(
  env: HubEnv,
  repo: string,
  revision: string,
  progress: (line: string) => void,
): Promise<Downloaded> {
  const host = new URL(env.endpoint).host;
  if (!(await netAllowed(host))) {
    throw new HubUnreachable(`no network permission for ${host}`, true);
  }
  progress(
    `Downloading tokenizer ${repo} (${TOKENIZER_FILES.join(", ")}) from ${env.endpoint} ` +
      `into ${env.cacheDir}`,
  );
  const files = new Map<string, Uint8Array>();
  let commit: string | undefined;
  for (const file of TOKENIZER_FILES) {
    const got = await fetchFile(env, repo, revision, file);
    commit ??= got.commit;
    if (got.body !== null) files.set(file, got.body);
  }
  if (COMMIT.test(revision)) commit = revision;
  if (commit === undefined) {
    return { files, snapshot: null, saveError: "the Hub named no commit (x-repo-commit)" };
  }
  const dir = repoCacheDir(env.cacheDir, repo);
  const snapshot = join(dir, "snapshots", commit);
  try {
    for (const [file, data] of files) await writeAtomic(join(snapshot, file), data);
    if (revision !== commit) {
      await writeAtomic(join(dir, "refs", revision), new TextEncoder().encode(commit));
    }
  } catch (e) {
    return { files, snapshot: null, saveError: (e as Error).message };
  }
  return { files, snapshot };
}
