/**
 * `deno task bundle`: the whole program as one JavaScript file, `dist/reprise.js`, run with
 * `deno run dist/reprise.js …`. The bundle is also its own Worker module (see
 * src/load/worker_url.ts). Minified: an unminified bundle would carry this machine's cache paths.
 */

import { fileURLToPath } from "node:url";

/** The repository root. */
const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The `deno bundle` arguments that write `output` from the repository's main.ts. */
export function bundleArgs(output: string): string[] {
  return ["bundle", "--quiet", "--minify", "--platform", "deno", "--output", output, "main.ts"];
}

/** Bundles into `output` (default `dist/reprise.js`); returns the process exit code. */
export async function bundle(output = "dist/reprise.js"): Promise<number> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: bundleArgs(output),
    cwd: ROOT,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (out.success) console.error(`bundled: ${output}`);
  return out.code;
}

if (import.meta.main) Deno.exit(await bundle(Deno.args[0]));
