/**
 * `--public-dataset NAME`: AIPerf's public datasets, read from a local copy, never downloaded
 * at run time. ShareGPT is the one that works: the file given with `--input-file`, or the one
 * found in the Hugging Face hub cache (where `huggingface-cli download` puts it) or in
 * `$REPRISE_DATASETS/sharegpt/`. Every other name of AIPerf's list is refused with one line,
 * and so is an unknown name; both before anything is sent.
 */

import { join } from "node:path";
import { ConfigError } from "../config/parse.ts";
import { SHAREGPT } from "./sharegpt.ts";

/** The names AIPerf's `--public-dataset` takes, in AIPerf's order. */
export const PUBLIC_DATASET_NAMES: readonly string[] = Object.freeze([
  "sharegpt",
  "aimo",
  "aimo_aime",
  "aimo_numina_cot",
  "aimo_numina_1_5",
  "mmstar",
  "mmvu",
  "vision_arena",
  "llava_onevision",
  "spec_bench",
  "spec_al_gsm8k",
  "spec_al_math500",
  "spec_al_humaneval",
  "spec_al_mbpp",
  "spec_al_mtbench",
  "instruct_coder",
  "blazedit_5k",
  "blazedit_10k",
  "librispeech",
  "voxpopuli",
  "gigaspeech",
  "ami",
  "spgispeech",
  "exgentic",
  "exgentic_v2",
  "semianalysis_cc_traces_weka",
  "weka_hf",
]);

/** Where ShareGPT comes from on Hugging Face: the dataset repository AIPerf downloads from. */
export const SHAREGPT_SOURCE = Object.freeze({
  repo: "anon8231489123/ShareGPT_Vicuna_unfiltered",
  file: "ShareGPT_V3_unfiltered_cleaned_split.json",
});

/** The command that puts ShareGPT in the Hugging Face cache, said when it is not there. */
export const SHAREGPT_DOWNLOAD =
  `huggingface-cli download ${SHAREGPT_SOURCE.repo} ${SHAREGPT_SOURCE.file} --repo-type dataset`;

/** Reads an environment variable; undefined when unset. */
export type EnvReader = (name: string) => string | undefined;

/** A public dataset resolved to a local file and the `--custom-dataset-type` that reads it. */
export interface PublicDatasetFile {
  path: string;
  type: string;
}

/** Prefixes of AIPerf's families of variants (`speed_bench_coding`, pinned trace variants). */
const VARIANT_PREFIXES = ["semianalysis_cc_traces_weka_", "speed_bench_"];

/** Whether `name` is one of AIPerf's public datasets (its own spelling or a variant). */
function isKnown(name: string): boolean {
  return PUBLIC_DATASET_NAMES.includes(name) || VARIANT_PREFIXES.some((p) => name.startsWith(p));
}

/**
 * The Hugging Face hub cache folder, as `huggingface_hub` picks it: `$HF_HUB_CACHE`, else
 * `$HF_HOME/hub`, else `$XDG_CACHE_HOME/huggingface/hub`, else `~/.cache/huggingface/hub`.
 * Undefined when none can be worked out (no home folder).
 */
export function hubCacheDir(env: EnvReader): string | undefined {
  const hubCache = env("HF_HUB_CACHE");
  if (hubCache) return hubCache;
  const hfHome = env("HF_HOME");
  if (hfHome) return join(hfHome, "hub");
  const xdg = env("XDG_CACHE_HOME");
  if (xdg) return join(xdg, "huggingface", "hub");
  const home = env("HOME") ?? env("USERPROFILE");
  return home ? join(home, ".cache", "huggingface", "hub") : undefined;
}

/** Whether `path` is a readable file (a cache snapshot's symlink to its blob counts). */
async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/** The folders of `dir`, sorted; none when it cannot be read. */
async function subdirs(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) if (e.isDirectory || e.isSymlink) out.push(e.name);
  } catch {
    return [];
  }
  return out.sort();
}

/**
 * The ShareGPT file in a hub cache folder: the snapshot `refs/main` names first, then any
 * other snapshot holding the file. Undefined when none does.
 */
async function inHubCache(hub: string): Promise<string | undefined> {
  const repoDir = join(hub, `datasets--${SHAREGPT_SOURCE.repo.replace("/", "--")}`);
  const snapshots = join(repoDir, "snapshots");
  let main: string | undefined;
  try {
    main = (await Deno.readTextFile(join(repoDir, "refs", "main"))).trim();
  } catch {
    main = undefined;
  }
  const names = await subdirs(snapshots);
  const ordered = main && names.includes(main) ? [main, ...names.filter((n) => n !== main)] : names;
  for (const name of ordered) {
    const file = join(snapshots, name, SHAREGPT_SOURCE.file);
    if (await isFile(file)) return file;
  }
  return undefined;
}

/**
 * Resolves `--public-dataset name` to the file to read. With `inputFile` (the local copy), that
 * file; otherwise the Hugging Face hub cache ({@link hubCacheDir}), then
 * `$REPRISE_DATASETS/<name>/<file>`. `customType` is `--custom-dataset-type` when given: it
 * must agree with the dataset. Throws a one-line `ConfigError` for a name reprise does not read
 * yet, an unknown name, a disagreeing type, or a file found nowhere (saying where it looked and
 * how to get it).
 */
export async function resolvePublicDataset(
  name: string,
  opts: { inputFile?: string; customType?: string; env: EnvReader },
): Promise<PublicDatasetFile> {
  if (name !== SHAREGPT) {
    if (isKnown(name)) {
      throw new ConfigError(
        `--public-dataset ${name}: not supported yet (only sharegpt is read, from a local copy)`,
      );
    }
    throw new ConfigError(
      `--public-dataset ${JSON.stringify(name)} is not a known dataset; known: ${
        PUBLIC_DATASET_NAMES.join(", ")
      }`,
    );
  }
  if (opts.customType !== undefined && opts.customType !== SHAREGPT) {
    throw new ConfigError(
      `--public-dataset sharegpt reads ShareGPT; --custom-dataset-type ${opts.customType} disagrees (drop it)`,
    );
  }
  if (opts.inputFile) return { path: opts.inputFile, type: SHAREGPT };
  const looked: string[] = [];
  const hub = hubCacheDir(opts.env);
  if (hub) {
    const found = await inHubCache(hub);
    if (found) return { path: found, type: SHAREGPT };
    looked.push(
      join(hub, `datasets--${SHAREGPT_SOURCE.repo.replace("/", "--")}`, "snapshots", "*"),
    );
  }
  const own = opts.env("REPRISE_DATASETS");
  if (own) {
    const file = join(own, name, SHAREGPT_SOURCE.file);
    if (await isFile(file)) return { path: file, type: SHAREGPT };
    looked.push(join(own, name));
  }
  const where = looked.length ? `looked in ${looked.join(" and ")}` : "no cache folder is set";
  throw new ConfigError(
    `--public-dataset sharegpt: ${SHAREGPT_SOURCE.file} not found (${where}); get it with \`${SHAREGPT_DOWNLOAD}\`, or pass a local copy with --input-file`,
  );
}
