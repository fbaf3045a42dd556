/**
 * Tokenizers from files: `builtin` (o200k) or a local Hugging Face `tokenizer.json` (or a folder
 * holding one), loaded with `@huggingface/tokenizers`, with its chat template when asked.
 */

import { join } from "node:path";
import { builtinTokenizer, type Tokenizer } from "./tokenizer.ts";
import { fast } from "../util/fast_paths.ts";
import { chatRenderer, chatTemplateOf } from "./chat_template.ts";

/** A `--tokenizer` value that cannot be used; the message says what to pass instead. */
export class TokenizerError extends Error {
  constructor(message: string) {
    // One line: a parser's message may quote the file, line breaks included.
    super(message.replace(/\s*[\r\n]+\s*/g, " "));
    this.name = "TokenizerError";
  }
}

async function statOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new TokenizerError(`Cannot read tokenizer "${path}": ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new TokenizerError(
      `Cannot read tokenizer "${path}": not valid JSON (${(e as Error).message})`,
    );
  }
}

/** How a tokenizer is built from its files. */
export interface LoadOptions {
  /** `--apply-chat-template`: count chat bodies through the config's `chat_template`. */
  applyChatTemplate?: boolean;
  /** The name the run's configuration shows (default: the spec). */
  name?: string;
}

/**
 * The tokenizer `spec` names: undefined, "" or "builtin" give o200k; a path to a
 * `tokenizer.json`, or to a folder holding one (with its `tokenizer_config.json` when present),
 * gives that tokenizer. Anything else is a {@link TokenizerError}; Hub names are resolved by
 * `resolveTokenizer` (resolve.ts).
 */
export async function loadTokenizer(spec?: string, opts: LoadOptions = {}): Promise<Tokenizer> {
  if (spec === undefined || spec === "" || spec === "builtin") {
    return fast("o200k") ? builtinTokenizer() : await plainO200k();
  }
  const info = await statOrNull(spec);
  if (info === null) {
    throw new TokenizerError(
      `--tokenizer "${spec}" is not a local file or folder: pass the path to a tokenizer.json ` +
        `(or the folder holding it), a Hugging Face model name, or "builtin" for o200k`,
    );
  }
  const file = info.isDirectory ? join(spec, "tokenizer.json") : spec;
  if (info.isDirectory && (await statOrNull(file)) === null) {
    throw new TokenizerError(`--tokenizer "${spec}": the folder holds no tokenizer.json`);
  }
  const json = await readJson(file);
  const dir = info.isDirectory ? spec : join(file, "..");
  const cfgPath = join(dir, "tokenizer_config.json");
  const config = (await statOrNull(cfgPath)) ? await readJson(cfgPath) : {};
  return await tokenizerFromJson(opts.name ?? spec, json, config, file, opts);
}

/**
 * A tokenizer from the parsed `tokenizer.json` and `tokenizer_config.json`; `where` names the
 * file in errors.
 */
export async function tokenizerFromJson(
  name: string,
  json: unknown,
  config: unknown,
  where: string,
  opts: LoadOptions = {},
): Promise<Tokenizer> {
  const { Tokenizer: HfTokenizer } = await import("@huggingface/tokenizers");
  let hf: InstanceType<typeof HfTokenizer>;
  try {
    hf = new HfTokenizer(json as object, (config ?? {}) as object);
  } catch (e) {
    throw new TokenizerError(
      `Cannot load tokenizer "${where}": ${(e as Error).message} (expected a Hugging Face ` +
        `tokenizer.json with a "model" section)`,
    );
  }
  // As AIPerf counts: no BOS/EOS or other special tokens added.
  const count = (text: string) =>
    text === "" ? 0 : hf.encode(text, { add_special_tokens: false }).ids.length;
  const tokenizer: Tokenizer = { name, count, chatTemplateAsked: opts.applyChatTemplate === true };
  const template = opts.applyChatTemplate ? chatTemplateOf(config) : undefined;
  if (template !== undefined) {
    let renderer;
    try {
      renderer = chatRenderer(template, config);
    } catch (e) {
      throw new TokenizerError(
        `Cannot read the chat template of "${where}": ${(e as Error).message}`,
      );
    }
    tokenizer.countChat = (body) => {
      const text = renderer.render(body);
      return text === undefined ? undefined : count(text);
    };
  }
  return tokenizer;
}

/**
 * The plain path of the builtin tokenizer (`--plain-paths o200k`): gpt-tokenizer's o200k_base,
 * which reprise's own counter (`o200k_count.ts`) must match token for token.
 */
export async function plainO200k(): Promise<Tokenizer> {
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  const noSpecial = { disallowedSpecial: new Set<string>() };
  return { name: "builtin", count: (text: string) => countTokens(text, noSpecial) };
}
