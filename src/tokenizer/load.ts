/**
 * `--tokenizer`: `builtin` (o200k, the default) or a local Hugging Face `tokenizer.json` (or a
 * folder holding one), loaded with `@huggingface/tokenizers`. Nothing is ever downloaded.
 */

import { join } from "node:path";
import { builtinTokenizer, type Tokenizer } from "./tokenizer.ts";
import { fast } from "../util/fast_paths.ts";

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

/**
 * The tokenizer `spec` names: undefined, "" or "builtin" give o200k; a path to a
 * `tokenizer.json`, or to a folder holding one (with its `tokenizer_config.json` when present),
 * gives that tokenizer. Anything else is a {@link TokenizerError}: reprise downloads nothing at
 * run time, so a Hub model name must be a local copy.
 */
export async function loadTokenizer(spec?: string): Promise<Tokenizer> {
  if (spec === undefined || spec === "" || spec === "builtin") {
    return fast("o200k") ? builtinTokenizer() : await plainO200k();
  }
  const info = await statOrNull(spec);
  if (info === null) {
    throw new TokenizerError(
      `--tokenizer "${spec}" is not a local file or folder. reprise downloads nothing at run ` +
        `time: pass the path to a tokenizer.json (or the folder holding it, e.g. a model ` +
        `downloaded with \`huggingface-cli download ${spec} tokenizer.json tokenizer_config.json ` +
        `--local-dir ./tok\`), or "builtin" for o200k`,
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
  const { Tokenizer: HfTokenizer } = await import("@huggingface/tokenizers");
  let hf: InstanceType<typeof HfTokenizer>;
  try {
    hf = new HfTokenizer(json as object, config as object);
  } catch (e) {
    throw new TokenizerError(
      `Cannot load tokenizer "${file}": ${(e as Error).message} (expected a Hugging Face ` +
        `tokenizer.json with a "model" section)`,
    );
  }
  return {
    name: spec,
    // As AIPerf counts: no BOS/EOS or other special tokens added.
    count: (text: string) =>
      text === "" ? 0 : hf.encode(text, { add_special_tokens: false }).ids.length,
  };
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
