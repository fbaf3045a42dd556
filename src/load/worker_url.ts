/**
 * Which module a Worker runs. From source (and in a `deno compile` binary, which keeps the source
 * layout) that is `worker.ts` beside this file. In the one-file bundle (`dist/reprise.js`) every
 * module shares the bundle's URL, so the Worker runs the bundle itself, and the bundle's entry
 * (main.ts) sees it is inside a Worker and starts the Worker code instead of the CLI.
 */

import { fileURLToPath } from "node:url";

/** This module's name as it appears at the end of its own URL when run from source. */
const SOURCE_SUFFIX = "/load/worker_url.ts";

/** Whether `selfUrl` (this module's URL) is a source file rather than a bundle. */
function fromSource(selfUrl: string): boolean {
  return selfUrl.endsWith(SOURCE_SUFFIX);
}

/** The Worker module URL, given the URL this module was loaded from. */
export function workerModuleUrl(selfUrl: string = import.meta.url): URL {
  if (fromSource(selfUrl)) return new URL("./worker.ts", selfUrl);
  // Bundled: this code lives inside the entry file, which doubles as the Worker module.
  return new URL(selfUrl);
}

/**
 * The local path Workers must be allowed to read to load their code: the `src` folder when run
 * from source (a Worker imports many of its modules), the bundle file when bundled; null inside a
 * `deno compile` binary (its embedded files need no permission) or when loaded over the network.
 */
export function workerReadPath(
  selfUrl: string = import.meta.url,
  standalone: boolean = Deno.build.standalone ?? false,
): string | null {
  if (standalone || !selfUrl.startsWith("file:")) return null;
  const url = fromSource(selfUrl) ? new URL("../", selfUrl) : new URL(selfUrl);
  return fileURLToPath(url).replace(/[\\/]$/, "");
}

/** Whether the code runs inside a Worker (not the main thread). */
export function inWorker(): boolean {
  // WorkerGlobalScope exists only in Workers; the main thread is a Window.
  const scope = (globalThis as { WorkerGlobalScope?: abstract new () => unknown })
    .WorkerGlobalScope;
  return typeof scope === "function" && globalThis instanceof scope;
}
