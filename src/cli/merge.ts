/**
 * `reprise merge <dir | URL>… --output <dir>`: joins the artifacts of a sharded run's shards
 * into one artifact set (src/export/merge.ts). A shard is given by its run folder, by a folder
 * holding several shards' run folders, or by its live API (`--api-port`) URL, whose
 * `/api/results/files/` the artifacts are pulled from, so a merge can read pods directly.
 */

import { join } from "node:path";
import { mergeOptions } from "../config/options.ts";
import { ConfigError, parseOptions } from "../config/parse.ts";
import { MergeInputError, mergeShards, type ShardArtifacts } from "../export/merge.ts";
import { SHARD_INFO_FILE } from "../export/shard_info.ts";
import { VERSION } from "../version.ts";
import { ExitCode } from "./exit_codes.ts";
import { renderHelp } from "./help.ts";
import type { Io } from "./io.ts";
import { readTextIfExists } from "../util/files.ts";

const SUMMARY = "profile_export_aiperf.json";
const RECORDS = "profile_export.jsonl";
const INPUTS = "inputs.json";

/** The `merge` help text. */
export function mergeHelp(): string {
  return renderHelp(
    "reprise merge <dir | URL> [<dir | URL> …] --output <dir> [options]",
    "Join the shards of one sharded run (`profile --shard i/N`) into one artifact set, as if one machine had run it: the summary recomputed from every record, throughput over the global window, inputs.json, the error summary, and shards.json (the per-shard breakdown and warnings). Each input is a shard's run folder, a folder of shards' run folders, or a shard's live API URL (http://host:port).",
    mergeOptions,
  );
}

async function isRunDir(dir: string): Promise<boolean> {
  for (const name of [SUMMARY, RECORDS]) {
    try {
      if ((await Deno.stat(join(dir, name))).isFile) return true;
    } catch { /* absent */ }
  }
  return false;
}

/** A folder's shards: the folder itself when it is a run folder, else its run subfolders. */
async function fromFolder(dir: string): Promise<ShardArtifacts[]> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dir);
  } catch {
    throw new MergeInputError(`Cannot read "${dir}": no such folder`);
  }
  if (!info.isDirectory) throw new MergeInputError(`Cannot read "${dir}": not a folder`);
  const dirs = (await isRunDir(dir)) ? [dir] : [];
  if (dirs.length === 0) {
    const names = (await Array.fromAsync(Deno.readDir(dir)))
      .filter((e) => e.isDirectory).map((e) => e.name).sort();
    for (const name of names) if (await isRunDir(join(dir, name))) dirs.push(join(dir, name));
  }
  if (dirs.length === 0) {
    throw new MergeInputError(`Cannot read "${dir}": it holds no ${SUMMARY} or ${RECORDS}`);
  }
  return await Promise.all(dirs.map(async (d) => ({
    source: d,
    summary: await readTextIfExists(join(d, SUMMARY)),
    records: await readTextIfExists(join(d, RECORDS)),
    inputs: await readTextIfExists(join(d, INPUTS)),
    shardInfo: await readTextIfExists(join(d, SHARD_INFO_FILE)),
  })));
}

/** GETs `url`'s text; null on a 404. */
async function getText(url: string): Promise<string | null> {
  const res = await fetch(url);
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new MergeInputError(`Cannot read ${url}: HTTP ${res.status}`);
  }
  return await res.text();
}

/** Waits (up to `waitS`) for the run behind a live API to end; its status then. */
async function waitForEnd(base: string, waitS: number): Promise<string> {
  const until = Date.now() + waitS * 1000;
  for (;;) {
    let status = "unreachable";
    try {
      const res = await fetch(`${base}/api/results`);
      status = res.ok ? String((await res.json()).status) : `HTTP ${res.status}`;
    } catch { /* not up yet */ }
    if (status === "complete" || status === "cancelled" || status === "failed") return status;
    if (Date.now() >= until) {
      throw new MergeInputError(
        `${base}: the run has not ended (${status})${
          waitS > 0 ? ` after ${waitS} s` : ""
        }; give --wait-seconds to wait for it`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A shard's artifacts pulled from its live API. */
async function fromApi(url: string, waitS: number): Promise<ShardArtifacts> {
  const base = url.replace(/\/+$/, "");
  await waitForEnd(base, waitS);
  const file = (name: string) => getText(`${base}/api/results/files/${encodeURIComponent(name)}`);
  return {
    source: base,
    summary: await file(SUMMARY),
    records: await file(RECORDS),
    inputs: await file(INPUTS),
    shardInfo: await file(SHARD_INFO_FILE),
  };
}

/** Runs `reprise merge`; returns the exit code. */
export async function mergeCommand(args: string[], io: Io): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(mergeHelp());
    return ExitCode.OK;
  }
  const parsed = parseOptions(mergeOptions, args, io.env);
  const { output, waitSeconds } = parsed.values;
  if (parsed.positionals.length === 0) {
    throw new ConfigError("merge needs at least one shard: a run folder or a live API URL");
  }
  if (output === undefined) throw new ConfigError("merge needs --output <dir>");
  try {
    const shards: ShardArtifacts[] = [];
    for (const input of parsed.positionals) {
      if (/^https?:\/\//i.test(input)) shards.push(await fromApi(input, waitSeconds));
      else shards.push(...await fromFolder(input));
    }
    const outcome = await mergeShards(shards, output, {
      version: VERSION,
      color: io.isTerminal && io.env("NO_COLOR") === undefined,
    });
    io.stdout(outcome.table);
    for (const s of outcome.shards) {
      const name = s.index === null ? s.source : `shard ${s.index}/${s.count}`;
      io.stderr(`${name}: ${s.requests} requests (${s.errors} failed) from ${s.source}\n`);
    }
    for (const w of outcome.warnings) io.stderr(`${w}\n`);
    io.stderr(`merged ${shards.length} shards: ${output}\n`);
    return ExitCode.OK;
  } catch (e) {
    if (!(e instanceof MergeInputError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return ExitCode.BAD_DATASET;
  }
}
