/**
 * Token counting for input and output sequence lengths. The built-in tokenizer is OpenAI's
 * `o200k_base`, which is AIPerf's `builtin`: it needs no file and no download.
 */

import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

/** Counts the tokens of a text, as a server's tokenizer would without special tokens. */
export interface Tokenizer {
  /** What `--tokenizer` named, as written in the run's configuration. */
  name: string;
  /** Number of tokens in `text`; 0 for "". */
  count(text: string): number;
}

// Special-token text such as "<|endoftext|>" is counted as ordinary text: a prompt that
// happens to contain it must not throw, and no special tokens are added.
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

let builtin: Tokenizer | undefined;

/** OpenAI's `o200k_base` (AIPerf's `builtin`), counting with no special tokens. */
export function builtinTokenizer(): Tokenizer {
  builtin ??= {
    name: "builtin",
    count: (text: string) => text === "" ? 0 : countTokens(text, NO_SPECIAL),
  };
  return builtin;
}
