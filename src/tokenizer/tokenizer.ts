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
  /**
   * With `--apply-chat-template` and a tokenizer that has a chat template: the input tokens of
   * a chat body as the server counts them (messages rendered through the template, no special
   * tokens added again); undefined when the template cannot render the body.
   */
  countChat?(body: Record<string, unknown>): number | undefined;
  /** The user named this tokenizer with `--tokenizer` (rather than it following the model). */
  given?: boolean;
  /** `--apply-chat-template` was asked for. */
  chatTemplateAsked?: boolean;
  /** The Hugging Face name this built-in tokenizer stands in for, as it could not be had. */
  fallbackFrom?: string;
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
