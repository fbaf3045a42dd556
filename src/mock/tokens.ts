/**
 * The mock's tokens and its prompt counter. Every generated token is one common English word with
 * a leading space, each a single token in OpenAI's o200k_base, so a client counting output with
 * that tokenizer finds exactly the number of tokens the server reports.
 */

export {
  TOKEN_JSON,
  TOKEN_TEXTS,
  tokenJson,
  tokensText,
  tokenText,
  WORDS,
} from "../tokenizer/words.ts";
import { TOKEN_TEXTS } from "../tokenizer/words.ts";

/** Offset of reasoning tokens in the word list, so reasoning text differs from the answer's. */
export const REASONING_OFFSET = 97;

/** Counts prompts in o200k_base and maps generated tokens to their ids. */
export interface Tokenizer {
  /** Number of o200k_base tokens in `text` (no special tokens). */
  count(text: string): number;
  /** The o200k_base id of the k-th generated token. */
  id(k: number): number;
}

let loading: Promise<Tokenizer> | null = null;

/**
 * Loads o200k_base once (about 60 ms), on first use, so importing the mock stays cheap.
 * Like tiktoken's default `encode`, counting rejects text that contains special-token text such
 * as "<|endoftext|>": it throws `Disallowed special token found: <|endoftext|>`.
 */
export function loadTokenizer(): Promise<Tokenizer> {
  loading ??= Promise.all([
    import("../tokenizer/o200k.ts"),
    import("../tokenizer/o200k_count.ts"),
  ]).then(([o200k, { countO200k }]) => {
    const ids = TOKEN_TEXTS.map((t) => o200k.encodeO200k(t)[0]);
    const special = new RegExp(
      `(${[...o200k.O200K_SPECIAL_TOKENS.keys()].map(RegExp.escape).join("|")})`,
    );
    return {
      count: (text: string) => {
        if (text === "") return 0;
        const found = special.exec(text);
        if (found !== null) throw new Error(`Disallowed special token found: ${found[0]}`);
        return countO200k(text);
      },
      id: (k: number) => ids[k % ids.length],
    };
  });
  return loading;
}
