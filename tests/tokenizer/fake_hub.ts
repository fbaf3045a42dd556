/**
 * A small stand-in for the Hugging Face Hub on 127.0.0.1: `{repo}/resolve/{revision}/{file}`
 * with the Hub's headers (`x-repo-commit`), a redirect to a CDN path for `tokenizer.json` as the
 * Hub does for large files, 401 for a gated repository without the right token, 404 for an
 * unknown repository, revision or file. Records every request for the tests to check.
 */

/** One repository the stand-in serves. */
export interface FakeRepo {
  /** Branches and tags, each to a 40-hex commit. */
  refs: Record<string, string>;
  /** File texts by name, the same at every revision. */
  files: Record<string, string>;
  /** When set, only `Authorization: Bearer <token>` gets the files. */
  token?: string;
}

/** A request the stand-in received. */
export interface FakeHubRequest {
  path: string;
  authorization: string | null;
}

/** A running stand-in. */
export interface FakeHub {
  /** Base URL, for `HF_ENDPOINT`. */
  url: string;
  requests: FakeHubRequest[];
  close(): Promise<void>;
}

/** Starts the stand-in on 127.0.0.1, port 0, serving `repos` by id (`org/name`). */
export function startFakeHub(repos: Record<string, FakeRepo>): FakeHub {
  const requests: FakeHubRequest[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    requests.push({ path, authorization: req.headers.get("authorization") });
    const cdn = /^\/cdn\/(.+)\/([0-9a-f]{40})\/([^/]+)$/.exec(path);
    if (cdn) {
      const text = repos[cdn[1]]?.files[cdn[3]];
      return text === undefined ? new Response("no", { status: 404 }) : new Response(text);
    }
    const m = /^\/(.+)\/resolve\/([^/]+)\/([^/]+)$/.exec(path);
    const repo = m ? repos[m[1]] : undefined;
    if (!m || !repo) {
      return new Response("Repository not found", {
        status: 404,
        headers: { "x-error-code": "RepoNotFound" },
      });
    }
    if (repo.token !== undefined && req.headers.get("authorization") !== `Bearer ${repo.token}`) {
      return new Response("Access to this model is restricted", {
        status: 401,
        headers: { "x-error-code": "GatedRepo" },
      });
    }
    const revision = decodeURIComponent(m[2]);
    const commit = repo.refs[revision] ??
      (Object.values(repo.refs).includes(revision) ? revision : undefined);
    if (commit === undefined) {
      return new Response("Revision not found", {
        status: 404,
        headers: { "x-error-code": "RevisionNotFound" },
      });
    }
    const file = m[3];
    const text = repo.files[file];
    const headers = { "x-repo-commit": commit, etag: `"${commit.slice(0, 8)}-${file}"` };
    if (text === undefined) {
      return new Response("Entry not found", {
        status: 404,
        headers: { ...headers, "x-error-code": "EntryNotFound" },
      });
    }
    if (file === "tokenizer.json") {
      return new Response(null, {
        status: 302,
        headers: { ...headers, location: `/cdn/${m[1]}/${commit}/${file}` },
      });
    }
    return new Response(text, { headers });
  });
  const addr = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    requests,
    close: () => server.shutdown(),
  };
}
