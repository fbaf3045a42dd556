/**
 * The run's tokenizer as AIPerf users name it: `--tokenizer` (a local path, a Hugging Face model
 * name, or `builtin`), else the model name, as AIPerf defaults. A name is looked up in the Hub
 * cache, then downloaded into it when the network is allowed; offline or without permission the
 * built-in o200k counts, with one warning saying what to do. All of it happens before the run.
 */

import { join } from "node:path";
import { builtinTokenizer, type Tokenizer } from "./tokenizer.ts";
import { loadTokenizer, plainO200k, TokenizerError, tokenizerFromJson } from "./load.ts";
import {
  downloadTokenizer,
  findInCache,
  type HubEnv,
  hubEnv,
  HubError,
  HubUnreachable,
  isRepoId,
  TOKENIZER_FILES,
} from "./hub.ts";
import { fast } from "../util/fast_paths.ts";

/** What the run asked for. */
export interface TokenizerRequest {
  /** `--tokenizer` as given; undefined follows the model. */
  tokenizer?: string;
  /** `--model`: the tokenizer's name when `--tokenizer` is not given. */
  model?: string;
  /** `--tokenizer-revision`: a branch, tag or commit. Default "main". */
  revision?: string;
  /** `--apply-chat-template`. */
  applyChatTemplate?: boolean;
  /** Gets the download's progress line (stderr). */
  progress?: (line: string) => void;
  /** The Hub's settings; default read with `getEnv`. */
  env?: HubEnv;
  /** The environment the Hub's settings are read from; default the process's. */
  getEnv?: (name: string) => string | undefined;
}

/** The tokenizer, and the warnings to print before the run (one line each). */
export interface ResolvedTokenizer {
  tokenizer: Tokenizer;
  warnings: string[];
}

/**
 * Model names that name no tokenizer (test and demo servers): with no `--tokenizer`, they count
 * with the built-in tokenizer, as AIPerf does, without trying the Hub.
 */
const PLACEHOLDER =
  /^(?:mock|test|dummy|fake|placeholder|example|demo|echo|my)(?:[-_ ]?(?:model|llm|lm|server))?(?:[-_ ]?\d+)?$/i;

/** Whether a model name is a placeholder that names no tokenizer (`mock-model`, `test`). */
export function isPlaceholderModel(name: string): boolean {
  return PLACEHOLDER.test(name);
}

async function builtin(): Promise<Tokenizer> {
  return fast("o200k") ? builtinTokenizer() : await plainO200k();
}

async function isLocal(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

function parseJson(bytes: Uint8Array, where: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new TokenizerError(
      `Cannot read tokenizer "${where}": not valid JSON (${(e as Error).message})`,
    );
  }
}

/**
 * Resolves the run's tokenizer (see the module's comment). A `--tokenizer` that names nothing
 * usable is a {@link TokenizerError}; a model name the Hub does not know falls back to o200k with
 * a warning.
 */
export async function resolveTokenizer(req: TokenizerRequest): Promise<ResolvedTokenizer> {
  const given = req.tokenizer !== undefined && req.tokenizer !== "";
  const spec = given ? req.tokenizer! : (req.model ?? "builtin");
  const revision = req.revision ?? "main";
  const warnings: string[] = [];
  const chat = req.applyChatTemplate === true;
  const mark = (t: Tokenizer): Tokenizer => {
    t.given = given;
    t.chatTemplateAsked = chat;
    if (chat && t.countChat === undefined) {
      warnings.push(
        `warning: --apply-chat-template: tokenizer "${t.name}" has no chat template ` +
          `(tokenizer_config.json "chat_template"); input tokens are counted without one`,
      );
    }
    return t;
  };
  const fallback = (why: string, todo: string): ResolvedTokenizer => {
    warnings.push(
      `warning: tokenizer "${spec}" ${why}; counting tokens with the built-in o200k tokenizer ` +
        `instead. ${todo}`,
    );
    return {
      tokenizer: { ...builtinTokenizer(), given, chatTemplateAsked: chat, fallbackFrom: spec },
      warnings,
    };
  };
  if (spec === "builtin" || spec === "") {
    return { tokenizer: mark({ ...(await builtin()) }), warnings };
  }
  if (!given && isPlaceholderModel(spec)) {
    return { tokenizer: { ...(await builtin()), given, chatTemplateAsked: chat }, warnings };
  }
  const opts = { applyChatTemplate: chat, name: spec };
  if (await isLocal(spec)) return { tokenizer: mark(await loadTokenizer(spec, opts)), warnings };
  if (!isRepoId(spec)) {
    if (given) await loadTokenizer(spec, opts); // throws: not a file, not a name
    // A model name that cannot be a Hub repository (`gpt-4o:latest`) names no tokenizer.
    return { tokenizer: { ...(await builtin()), given, chatTemplateAsked: chat }, warnings };
  }
  const env = req.env ?? hubEnv(req.getEnv);
  const cached = await findInCache(env.cacheDir, spec, revision).catch(() => null);
  if (cached !== null) return { tokenizer: mark(await loadTokenizer(cached, opts)), warnings };
  const fetchIt = `huggingface-cli download ${spec} ${TOKENIZER_FILES.join(" ")}` +
    (revision === "main" ? "" : ` --revision ${revision}`);
  const notCached = `is not in the Hugging Face cache (${env.cacheDir})`;
  if (env.offline) {
    return fallback(
      `${notCached} and HF_HUB_OFFLINE is set`,
      `Unset HF_HUB_OFFLINE to download it, fetch it once with \`${fetchIt}\`, or pass ` +
        `--tokenizer with a local tokenizer.json.`,
    );
  }
  const host = new URL(env.endpoint).host;
  let got;
  try {
    got = await downloadTokenizer(env, spec, revision, (l) => req.progress?.(`${l}\n`));
  } catch (e) {
    if (e instanceof HubUnreachable) {
      return fallback(
        `${notCached} and ${e.message}`,
        e.permission
          ? `Allow the download (--allow-net=${host}), fetch it once with \`${fetchIt}\`, or ` +
            `pass --tokenizer with a local tokenizer.json.`
          : `Fetch it once with \`${fetchIt}\` (HF_ENDPOINT sets the Hub's address), or pass ` +
            `--tokenizer with a local tokenizer.json.`,
      );
    }
    if (e instanceof HubError && !given) {
      return fallback(
        `(the model name) could not be downloaded: ${e.message.replace(/^tokenizer "[^"]*" /, "")}`,
        `Pass --tokenizer with the model's Hugging Face name or a local tokenizer.json.`,
      );
    }
    if (e instanceof HubError) throw new TokenizerError(`--tokenizer: ${e.message}`);
    throw e;
  }
  if (got.saveError !== undefined) {
    warnings.push(
      `warning: the tokenizer "${spec}" was downloaded but not saved in ${env.cacheDir} ` +
        `(${got.saveError}); it will be downloaded again next time`,
    );
  }
  const where = got.snapshot === null
    ? `${env.endpoint}/${spec}`
    : join(got.snapshot, TOKENIZER_FILES[0]);
  const json = parseJson(got.files.get(TOKENIZER_FILES[0])!, where);
  const cfgBytes = got.files.get(TOKENIZER_FILES[1]);
  const config = cfgBytes === undefined ? {} : parseJson(cfgBytes, where);
  return { tokenizer: mark(await tokenizerFromJson(spec, json, config, where, opts)), warnings };
}
