/**
 * The artifact directory as the API exposes it: a recursive listing and a safe lookup of one
 * file. A requested path that would leave the directory — `..` segments, absolute paths,
 * backslashes, NUL bytes, or a symlink pointing outside — is treated as missing.
 */

import { extname, isAbsolute, relative, resolve, sep } from "node:path";

/** One listed file: its path relative to the artifact directory (always `/`-separated). */
export interface ArtifactFile {
  name: string;
  size: number;
}

async function realPathOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.realPath(path);
  } catch {
    return null;
  }
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Every regular file under `dir`, recursively, sorted by name. Symlinks are listed only when
 * they resolve to a file inside `dir`; symlinked directories are not followed (no loops).
 * A missing directory lists nothing.
 */
export async function listArtifacts(dir: string): Promise<ArtifactFile[]> {
  const root = await realPathOrNull(dir);
  if (root === null) return [];
  const files: ArtifactFile[] = [];
  const walk = async (abs: string) => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(abs));
    } catch {
      return; // Removed or unreadable while listing: skip it rather than fail the listing.
    }
    for (const entry of entries) {
      const path = resolve(abs, entry.name);
      if (entry.isDirectory) {
        await walk(path);
        continue;
      }
      let target = path;
      if (entry.isSymlink) {
        const real = await realPathOrNull(path);
        if (real === null || !inside(root, real)) continue;
        target = real;
      }
      try {
        const info = await Deno.stat(target);
        if (!info.isFile) continue;
        files.push({ name: relative(root, path).split(sep).join("/"), size: info.size });
      } catch {
        continue;
      }
    }
  };
  await walk(root);
  return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The real path and size of the file `rel` (already percent-decoded) names under `dir`, or null
 * when it is missing, not a regular file, or would resolve outside `dir` by any means.
 */
export async function resolveArtifact(
  dir: string,
  rel: string,
): Promise<{ path: string; size: number } | null> {
  if (rel === "" || rel.includes("\0") || rel.includes("\\") || isAbsolute(rel)) return null;
  if (rel.split("/").some((seg) => seg === "..")) return null;
  const root = await realPathOrNull(dir);
  if (root === null) return null;
  const candidate = resolve(root, rel);
  if (!inside(root, candidate)) return null;
  const real = await realPathOrNull(candidate);
  if (real === null || real === root || !inside(root, real)) return null;
  try {
    const info = await Deno.stat(real);
    return info.isFile ? { path: real, size: info.size } : null;
  } catch {
    return null;
  }
}

const CONTENT_TYPES: Record<string, string> = {
  ".json": "application/json",
  ".jsonl": "application/x-ndjson",
  ".csv": "text/csv; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".log": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".parquet": "application/vnd.apache.parquet",
  ".gz": "application/gzip",
  ".zip": "application/zip",
};

/** The Content-Type served for an artifact, by extension; unknown types are octet streams. */
export function contentTypeFor(name: string): string {
  return CONTENT_TYPES[extname(name).toLowerCase()] ?? "application/octet-stream";
}
