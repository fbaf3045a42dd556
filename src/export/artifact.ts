/** Writing artifact files: every writer creates the directory it needs. */

import { dirname } from "node:path";

/** Writes `text` to `path`, creating its directory first. */
export async function writeArtifact(path: string, text: string): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, text);
}
