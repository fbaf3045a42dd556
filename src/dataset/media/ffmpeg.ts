/**
 * Finding ffmpeg, which encodes synthetic videos (no JavaScript encoder is used). Looked up on
 * `PATH` when the run is planned, so that a missing one stops the run with one line before
 * anything is generated or sent.
 */

import { delimiter, join } from "node:path";
import { readEnv } from "../../util/env.ts";

/** The path of the `ffmpeg` executable on `PATH`, or undefined when there is none. */
export function findFfmpeg(path = readEnv("PATH") ?? ""): string | undefined {
  const names = Deno.build.os === "windows" ? ["ffmpeg.exe"] : ["ffmpeg"];
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      const full = join(dir, name);
      try {
        if (Deno.statSync(full).isFile) return full;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}
