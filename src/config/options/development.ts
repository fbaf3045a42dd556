/** The Development options of `profile`. */

import { z } from "zod";
import { FAST_PATHS } from "../../util/fast_paths.ts";
import { opt } from "./spec.ts";

/**
 * The Development options of `profile`: switches for measuring reprise itself.
 * Keys are the config field names.
 */
export const developmentOptions = {
  plainPaths: opt<string[]>({
    flag: "plain-paths",
    env: ["REPRISE_PLAIN_PATHS"],
    kind: "list",
    schema: z.array(z.enum(["all", ...FAST_PATHS])),
    expect: `all, or fast paths to turn off (${FAST_PATHS.join(", ") || "none yet"})`,
    default: [],
    group: "Development",
    help:
      "Turns off the named optimizations (or `all`), so that a run takes the plain path they are measured against (bench/LEDGER.md); repeatable.",
    metavar: "NAME",
  }),
} as const;
