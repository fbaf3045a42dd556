/**
 * Where the project's shared reference material (`shared/reference/`) is: beside the clone, as CI
 * lays it out, or beside the folder of a worktree, or at this machine's `/work/shared`.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CANDIDATES = [
  join(ROOT, "..", "shared", "reference"),
  join(ROOT, "..", "..", "shared", "reference"),
  "/work/shared/reference",
];

/** The reference folder: the first candidate that exists (the first, if none does). */
export const REFERENCE: string = CANDIDATES.find((p) => existsSync(p)) ?? CANDIDATES[0];
