/**
 * Token counting for input and output sequence lengths. The built-in tokenizer is OpenAI's
 * `o200k_base`, which is AIPerf's `builtin`: it needs no file and no download.
 */

import { countO200k } from "./o200k_count.ts";

/** Counts the tokens of a text, as a server's tokenizer would without special tokens. */
export interface Tokenizer {
  /** What `--tokenizer` named, as written in the run's configuration. */
  name: string;
  /** Number of tokens in `text`; 0 for "". */
  count(text: string): number;
}

let builtin: Tokenizer | undefined;

/** OpenAI's `o200k_base` (AIPerf's `builtin`), counting with no special tokens. */
export function builtinTokenizer(): Tokenizer {
  builtin ??= {
    name: "builtin",
    // Special-token text such as "<|endoftext|>" is counted as ordinary text: a prompt that
    // happens to contain it must not throw, and no special tokens are added.
    count: countO200k,
  };
  return builtin;
}
